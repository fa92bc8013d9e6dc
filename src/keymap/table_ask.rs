//! The keys of the layer where a server asks the person: an elicitation form, a URL
//! to visit, a sampling request to approve. Form fields take typed keys first, so the
//! letter keys below apply to the URL and sampling cards. Also the Tasks view and
//! resource subscriptions.

use super::action::{Action as A, Layer, Layer::Ask as L};
use super::key::{Key, KeyCode as C};
use super::table::{Row, k};

pub(super) fn rows() -> Vec<Row> {
    vec![
        (
            L,
            k(C::Enter),
            A::Activate,
            "accept (form: send the values; URL: done; sampling: approve)",
            Some("accept"),
        ),
        (
            L,
            Key::ctrl('d'),
            A::Deny,
            "decline (the server is told)",
            Some("decline"),
        ),
        (L, Key::char('n'), A::Deny, "decline (URL, sampling)", None),
        (
            L,
            Key::char('y'),
            A::ApproveOnce,
            "approve (URL, sampling)",
            None,
        ),
        (
            L,
            k(C::Esc),
            A::Close,
            "cancel (the server is told)",
            Some("cancel"),
        ),
        (L, k(C::Up), A::Up, "previous field", None),
        (L, k(C::Down), A::Down, "next field", None),
        (
            L,
            k(C::Left),
            A::PrevTab,
            "previous choice (enum, boolean, multi-select)",
            None,
        ),
        (
            L,
            k(C::Right),
            A::NextTab,
            "next choice (enum, boolean, multi-select)",
            None,
        ),
        (
            L,
            Key::char('o'),
            A::OpenUrl,
            "open the URL in the browser",
            None,
        ),
        (
            L,
            Key::char('c'),
            A::CopyUrl,
            "copy the URL (terminal clipboard, OSC 52)",
            None,
        ),
        (
            L,
            Key::ctrl('e'),
            A::ExternalEditor,
            "edit the sampling messages or reply in $VISUAL / $EDITOR",
            None,
        ),
        (Layer::Global, k(C::F(5)), A::ShowTasks, "tasks", None),
        (
            Layer::Normal,
            Key::char('s'),
            A::Subscribe,
            "catalog: subscribe to the selected resource / stop",
            None,
        ),
        (Layer::Tasks, k(C::Up), A::Up, "previous task", None),
        (Layer::Tasks, k(C::Down), A::Down, "next task", None),
        (
            Layer::Tasks,
            k(C::Enter),
            A::Activate,
            "ask the server now (tasks/get; the result once done)",
            Some("get"),
        ),
        (
            Layer::Tasks,
            Key::char('x'),
            A::CancelTask,
            "cancel the task (tasks/cancel)",
            Some("cancel task"),
        ),
        (Layer::Tasks, k(C::Esc), A::Close, "close", Some("close")),
    ]
}
