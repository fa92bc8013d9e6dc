//! What a key can do, and the layers keys are looked up in.

/// Where a key press is interpreted. A layer's own bindings win; `Global` applies
/// under every layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// Everywhere, also while typing.
    Global,
    /// List and text panes that do not take typed text (servers, catalog, chat, logs).
    Normal,
    /// The message composer; unbound keys are typed.
    Composer,
    /// The catalog filter line; unbound keys are typed.
    Filter,
    /// The command palette; unbound keys are typed into its query.
    Palette,
    /// The help overlay.
    Help,
    /// The approval pane.
    Approval,
    /// The detail view of a catalog item.
    Detail,
    /// The Skills and Memory panes.
    Browse,
    /// A turn paused by step mode.
    Step,
    /// The argument form of a tool call or prompt; unbound keys are typed.
    Form,
    /// A server asks the person (elicitation, sampling); form fields take typed keys.
    Ask,
    /// The Tasks view.
    Tasks,
    /// The Wire view: every JSON-RPC message with the MCP peers.
    Wire,
    /// "Add server…": the MCP Registry; unbound keys are typed into the query or field.
    Registry,
}

impl Layer {
    pub const ALL: [Layer; 15] = [
        Layer::Global,
        Layer::Normal,
        Layer::Composer,
        Layer::Filter,
        Layer::Palette,
        Layer::Help,
        Layer::Approval,
        Layer::Detail,
        Layer::Browse,
        Layer::Step,
        Layer::Form,
        Layer::Ask,
        Layer::Tasks,
        Layer::Wire,
        Layer::Registry,
    ];

    /// The section name in `default.toml` and under `[ui.keys]` (`[ui.keys.approval]`).
    pub fn name(self) -> &'static str {
        match self {
            Layer::Global => "global",
            Layer::Normal => "panes",
            Layer::Composer => "composer",
            Layer::Filter => "filter",
            Layer::Palette => "palette",
            Layer::Help => "help",
            Layer::Approval => "approval",
            Layer::Detail => "detail",
            Layer::Browse => "browse",
            Layer::Step => "step",
            Layer::Form => "form",
            Layer::Ask => "ask",
            Layer::Tasks => "tasks",
            Layer::Wire => "wire",
            Layer::Registry => "registry",
        }
    }

    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }

    pub fn title(self) -> &'static str {
        match self {
            Layer::Global => "Everywhere",
            Layer::Normal => "Panes",
            Layer::Composer => "Composer",
            Layer::Filter => "Filter",
            Layer::Palette => "Command palette",
            Layer::Help => "Help",
            Layer::Approval => "Approval",
            Layer::Detail => "Catalog detail",
            Layer::Browse => "Skills and Memory",
            Layer::Step => "Step mode (paused)",
            Layer::Form => "Call form",
            Layer::Ask => "A server asks",
            Layer::Tasks => "Tasks",
            Layer::Wire => "Wire view",
            Layer::Registry => "Add server (MCP Registry)",
        }
    }
}

macro_rules! actions {
    ($($variant:ident => $name:literal, $description:literal),* $(,)?) => {
        /// Everything a key binding can trigger. The order is the help overlay's: a
        /// layer lists its actions in this order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action { $($variant),* }

        impl Action {
            pub const ALL: &'static [Action] = &[$(Action::$variant),*];

            /// The name used in `[ui.keys]`.
            pub fn name(self) -> &'static str {
                match self { $(Action::$variant => $name),* }
            }

            /// One line on what the action does: the help text of a binding that
            /// does not bring its own, and the docs' list of actions.
            pub fn description(self) -> &'static str {
                match self { $(Action::$variant => $description),* }
            }

            pub fn from_name(name: &str) -> Option<Action> {
                match name { $($name => Some(Action::$variant),)* _ => None }
            }
        }
    };
}

actions! {
    Interrupt => "interrupt", "quit (twice while typing)",
    FocusNext => "focus_next", "next pane",
    FocusPrev => "focus_prev", "previous pane",
    CycleMode => "cycle_mode", "next permission mode",
    Palette => "palette", "command palette",
    Help => "help", "help",
    ToggleLogs => "toggle_logs", "show/hide logs",
    ShowSkills => "show_skills", "show the Skills pane",
    ToggleStepMode => "toggle_step_mode", "step mode on/off",
    ShowMemory => "show_memory", "show the Memory pane",
    Up => "up", "move up",
    Down => "down", "move down",
    PageUp => "page_up", "page up",
    PageDown => "page_down", "page down",
    Top => "top", "first",
    Bottom => "bottom", "last",
    NextTab => "next_tab", "next catalog tab",
    PrevTab => "prev_tab", "previous catalog tab",
    Filter => "filter", "filter the catalog",
    Activate => "activate", "open / select",
    FocusComposer => "focus_composer", "write a message",
    Send => "send", "send",
    Newline => "newline", "new line",
    Close => "close", "close",
    CancelTurn => "cancel_turn", "interrupt the running turn",
    Reconnect => "reconnect", "reconnect the selected server (catalog: read the resource again)",
    ExpandCards => "expand_cards", "tool cards: show all / first lines",
    CopyEntry => "copy_entry", "chat: copy the newest message or result in view (OSC 52)",
    OpenApp => "open_app", "chat: open the MCP App of the tool result in view, in the browser",
    SearchNext => "search_next", "chat: the next older match of the search",
    SearchPrev => "search_prev", "chat: the next newer match of the search",
    LogLevel => "log_level", "logs: lowest level shown",
    Login => "login", "log in to the selected server (OAuth)",
    ToggleServer => "toggle_server", "disable / enable the selected server",
    CallTool => "call_tool", "catalog: call / use the selected item",
    Quit => "quit", "quit",
    StepNext => "step_next", "next step",
    StepContinue => "step_continue", "continue without pausing",
    ToggleRaw => "toggle_raw", "raw JSON on/off",
    CopyUrl => "copy_url", "copy the URL (terminal clipboard, OSC 52)",
    ExternalEditor => "external_editor", "edit the value in $VISUAL / $EDITOR",
    ApproveOnce => "approve_once", "approve once",
    ApproveSession => "approve_session", "approve for this session",
    ApproveAlways => "approve_always", "always allow (shows the rule)",
    Deny => "deny", "deny",
    DenyWithReason => "deny_with_reason", "deny with a reason",
    AbortTurn => "abort_turn", "abort the turn",
    OpenUrl => "open_url", "open the URL in the browser",
    ShowTasks => "show_tasks", "show the Tasks view",
    Subscribe => "subscribe", "catalog: subscribe to the selected resource / stop",
    SaveCase => "save_case", "save your last call, read or prompt as a test case",
    CancelTask => "cancel_task", "cancel the task (tasks/cancel)",
    ShowWire => "show_wire", "show the Wire view (every JSON-RPC message)",
    ExportWire => "export_wire", "export the shown messages (JSONL)",
    CopyCommand => "copy_command", "copy the command that repeats the request (OSC 52)",
}
