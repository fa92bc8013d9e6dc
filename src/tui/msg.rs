//! Messages into `update` and commands out of it.

use serde_json::{Map, Value};

use crate::agent::AgentEvent;
use crate::gate::{ApprovalDecision, ApprovalId, CallId};
use crate::keymap::Key;
use crate::policy::GrantId;

use super::state::{GrantView, LogLine};

/// Everything that can change the UI state.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(Key),
    /// Bracketed paste.
    Paste(String),
    Mouse(Mouse),
    Resize(u16, u16),
    Log(LogLine),
    /// Something happened in the session or at the tool gate (one route: the
    /// session's sink).
    Agent(Box<AgentEvent>),
    /// Something the UI itself asked for failed (a server could not be disabled, the
    /// session is gone, a saved session was not found): said in the transcript. Not
    /// an agent event: no session produced it.
    Failed(String),
    /// The session grants now.
    Grants(Vec<GrantView>),
    /// A read or a call the person made returned these contents (its text arrives as
    /// an `AgentEvent`); kept for `/save`.
    Contents(Box<super::state::LastContents>),
    /// The saved sessions of this workspace, for the resume picker.
    SessionList(Vec<super::sessions::SessionRow>),
    /// A saved session was reopened: replay it into the transcript.
    Resumed(Box<crate::agent::LoadedSession>),
    /// The runtime's clock (milliseconds since start), for spinners and elapsed times;
    /// ticks while a call is open.
    Tick(u64),
    /// `/save` wrote a file (what it wrote) or did not (why).
    Saved(Result<String, String>),
    /// The external editor returned the form value (or why it did not).
    Edited(Result<String, String>),
    MemoryFiles(Vec<(String, u64)>),
    /// A memory file's text, or why it could not be read.
    MemoryFile {
        path: String,
        text: String,
    },
    /// The clients connected to the gateway (`--serve`), one line each.
    ServeClients(Vec<String>),
    /// The MCP servers changed: new rows for the Servers pane and a new catalog.
    Servers {
        rows: Vec<super::state::ServerRow>,
        catalog: super::state::Catalog,
    },
    /// Suggestions for a form field (for the value typed when they were asked for).
    Completions {
        argument: String,
        value: String,
        values: Vec<String>,
    },
    /// A server reported progress on a running call (`call_id`: the call's, when the
    /// server's progress token belongs to one).
    Progress {
        server: String,
        call_id: Option<CallId>,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// A login started from the TUI moved on.
    Login(super::login::LoginMsg),
    /// The runtime tried to switch the theme.
    ThemeApplied {
        name: String,
        error: Option<String>,
    },
    /// A server asks the person (elicitation, sampling); answer with `Cmd::Answer`.
    Asked {
        id: super::ask::AskId,
        ask: Box<crate::mcp::Ask>,
    },
    /// The server no longer waits for this question (its call ended).
    AskGone(super::ask::AskId),
    /// The hub saw a task (a call became one, or a poll saw it again).
    TaskSeen {
        tool: String,
        view: Box<crate::mcp::TaskView>,
    },
    /// What `tasks/get` or `tasks/cancel` answered (the task as it is now, if known).
    TaskAnswer {
        view: Option<Box<crate::mcp::TaskView>>,
        text: Result<String, String>,
    },
    /// A subscribe (`on`) or unsubscribe was answered.
    Subscribed {
        server: String,
        uri: String,
        on: bool,
        result: Result<(), String>,
    },
    /// A subscribed resource changed.
    ResourceUpdated {
        server: String,
        uri: String,
    },
    /// A remote agent's card was read (or why it could not be), for the agent tool
    /// `tool` (`agent__NAME`).
    AgentCard {
        tool: String,
        card: Result<Box<crate::a2a::AgentCard>, String>,
    },
    /// A subscription could not be made again after a reconnect.
    SubscriptionLost {
        server: String,
        uri: String,
        reason: String,
    },
    /// Messages captured since the Wire view's last (`WireLog::entries_after`).
    Wire(Vec<std::sync::Arc<crate::mcp::wire::WireEntry>>),
    /// The Wire view's export wrote (how many messages, where) or why not.
    WireExported(Result<(usize, String), String>),
    /// The model's answer to an approved sampling request (or why there is none).
    Sampled {
        id: super::ask::AskId,
        result: Result<crate::mcp::SamplingReply, String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mouse {
    pub kind: MouseKind,
    pub column: u16,
    pub row: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseKind {
    Click,
    ScrollUp,
    ScrollDown,
}

/// What a completion is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionTarget {
    /// A resource template, by its URI template.
    Template(String),
    /// A prompt, by name.
    Prompt(String),
}

/// What a layer's key handler made of a key: commands for the executor, or an
/// action it leaves to the global keys (only `update` falls back to those).
#[derive(Debug, Clone, PartialEq)]
pub enum Handled {
    Done(Vec<Cmd>),
    Unhandled(crate::keymap::Action),
}

impl Handled {
    /// Handled, with nothing for the executor.
    pub fn nothing() -> Self {
        Self::Done(Vec::new())
    }
}

impl From<Vec<Cmd>> for Handled {
    fn from(cmds: Vec<Cmd>) -> Self {
        Self::Done(cmds)
    }
}

/// Work for the executor, done in the order `update` returned it. `update` never
/// does IO itself.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    Quit,
    /// Load a theme by name and use it; answers with `Msg::ThemeApplied`.
    LoadTheme(String),
    /// Turn mouse capture on or off.
    SetMouseCapture(bool),
    /// Remember the theme and mouse setting for the next run.
    RememberUi,
    /// Decide calls in this permission mode from now on (Shift+Tab, `/mode`).
    SetMode(crate::policy::Mode),
    /// Tell the agent session something (a user turn, step signals, interrupts).
    Op(crate::agent::Op),
    /// Answer a pending approval.
    Decide {
        id: ApprovalId,
        decision: ApprovalDecision,
    },
    RevokeGrant(GrantId),
    /// Ask for the session grants (answers `Msg::Grants`).
    RefreshGrants,
    /// Start a new session with another provider and/or model; the conversation
    /// carries over (`/model`, the palette).
    SwitchProvider {
        provider: Option<String>,
        model: Option<String>,
    },
    /// Open the resume picker (answers with the list of sessions).
    OpenSessions,
    /// List this workspace's saved sessions (answers `Msg::SessionList`).
    ListSessions,
    /// Reopen a saved session in place of the current one (answers `Msg::Resumed`).
    Resume(String),
    /// Reconnect an MCP server now (also enables a disabled one).
    Reconnect(String),
    /// Log in to an HTTP server that asks for OAuth (answers with `Msg::Login`).
    Login(String),
    /// What the person pasted into the login overlay (redirect URL or code).
    LoginPaste(String),
    /// Stop the running login.
    CancelLogin,
    /// Close an MCP server's connection and keep it off until enabled.
    Disable(String),
    /// Run agents with the coordinator (`/agents a,b --mode pipeline TASK`); one card
    /// for the run, each agent's call nested under it.
    RunAgents {
        call_id: CallId,
        plan: crate::agents::Plan,
        task: String,
    },
    /// Read these remote agents' cards in the background, each within `timeout`
    /// (answers one `Msg::AgentCard` each).
    ReadAgentCards {
        agents: Vec<(String, crate::config::AgentDef)>,
        timeout: std::time::Duration,
    },
    /// Read a resource (`/read SERVER URI`); its card shows the text.
    ReadResource {
        call_id: CallId,
        server: String,
        uri: String,
    },
    /// Write item `item` (1-based) of the last contents to `path` (`/save`, `/save!`).
    SaveContents {
        blocks: Vec<crate::tools::ContentBlock>,
        item: usize,
        path: String,
        overwrite: bool,
    },
    /// Edit the form's current value in `$VISUAL` / `$EDITOR` (answers `Msg::Edited`);
    /// `suffix` hints the syntax (`.json`).
    EditExternally {
        text: String,
        suffix: String,
    },
    /// Ask the MCP servers for this log level and above (`logging/setLevel`).
    SetServerLogLevel(String),
    /// Render a prompt (`/prompt SERVER NAME k=v …`).
    GetPrompt {
        call_id: CallId,
        server: String,
        name: String,
        args: Map<String, Value>,
    },
    /// List the memory directory (answers `Msg::MemoryFiles`).
    ListMemory,
    /// Read one memory file (answers `Msg::MemoryFile`).
    ReadMemory(String),
    /// Ask a server for `completion/complete` suggestions (answers `Msg::Completions`).
    Complete {
        server: String,
        reference: CompletionTarget,
        argument: String,
        value: String,
        /// The other fields' values, for servers that narrow by them.
        context: std::collections::BTreeMap<String, String>,
    },
    /// Cancel these calls the person made (those still running stop; those waiting
    /// for approval abort).
    CancelCalls(Vec<CallId>),
    /// Answer a server's question (elicitation, sampling).
    Answer {
        id: super::ask::AskId,
        answer: Box<crate::mcp::Answer>,
    },
    /// Send an approved sampling request to the current provider (answers
    /// `Msg::Sampled`).
    Sample {
        id: super::ask::AskId,
        server: String,
        params: Value,
    },
    /// Subscribe to a resource (`on`) or stop (answers `Msg::Subscribed`).
    Subscribe {
        server: String,
        uri: String,
        on: bool,
    },
    /// `tasks/get` for one task (answers `Msg::TaskAnswer`).
    GetTask {
        server: String,
        task_id: String,
    },
    /// `tasks/cancel` for one task (answers `Msg::TaskAnswer`).
    CancelTask {
        server: String,
        task_id: String,
    },
    /// Open a web page in the browser (a URL elicitation, when the person asks).
    OpenUrl(String),
    /// Put text on the terminal's clipboard (OSC 52).
    CopyText(String),
    /// Write these captured messages to a new JSONL file (answers `Msg::WireExported`).
    ExportWire(Vec<std::sync::Arc<crate::mcp::wire::WireEntry>>),
    /// Call a tool through the gate, on the person's behalf (`/call`, a form).
    CallTool {
        call_id: CallId,
        tool: String,
        args: Map<String, Value>,
    },
}
