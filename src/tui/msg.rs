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
    /// Something for the transcript as a note (a manual call waits for its server).
    Note(String),
    /// The session grants now.
    Grants(Vec<GrantView>),
    /// A read or a call the person made returned these contents (its text arrives as
    /// an `AgentEvent`); kept for `/save`.
    Contents(Box<super::state::LastContents>),
    /// A call, read or prompt the person made ended: what it asked and what came back,
    /// kept for `/save-case` (and the `save_case` key).
    CaseSource(Box<super::state::LastCase>),
    /// The saved sessions of this workspace, for the resume picker.
    SessionList(Vec<super::state::SessionRow>),
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
    /// Filter haystacks a worker made for new catalog entries (`UiCmd::MakeHaystacks`).
    HaystacksMade(Vec<crate::tui::state::Made>),
    /// The hub's snapshot or the registry's tool names changed; `update` asks for
    /// new rows (`ServerCmd::Refresh`).
    HubChanged,
    /// The MCP servers changed: new rows for the Servers pane and a new catalog, and
    /// the hub's snapshot they come from (a reconnect with another catalog is said).
    Servers {
        rows: Vec<super::state::ServerRow>,
        catalog: super::state::Catalog,
        snapshot: std::sync::Arc<crate::mcp::HubSnapshot>,
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
    Login(super::state::LoginMsg),
    Registry(super::state::RegistryMsg),
    /// The runtime tried to switch the theme.
    ThemeApplied {
        name: String,
        error: Option<String>,
    },
    /// A server asks the person (elicitation, sampling); answer with `AskCmd::Answer`.
    Asked {
        id: super::state::AskId,
        ask: Box<crate::mcp::Ask>,
    },
    /// The server no longer waits for this question (its call ended).
    AskGone(super::state::AskId),
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
    /// A request failed until the person visits these pages (-32042).
    PagesRequired {
        server: String,
        request: String,
        pages: Vec<crate::mcp::RequiredPage>,
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
        id: super::state::AskId,
        result: Result<crate::mcp::SamplingReply, String>,
    },
    /// An MCP App's host started (its page's address), or why it could not.
    AppOpened {
        app: String,
        result: Result<String, String>,
    },
    /// What an open MCP App did that the person should see.
    App(crate::apps::AppNote),
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
///
/// Commands come in groups by what they act on; each group is done by one
/// exhaustive `match` in `executor/<group>.rs`, so a new command that no executor
/// handles does not compile. What answers each command (a `Msg` back into `update`,
/// at once or from the background through the inbox) is said on the group.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    /// The terminal and the desktop (`executor/ui.rs`).
    Ui(UiCmd),
    /// Local files: results, the wire capture, memories (`executor/files.rs`).
    Files(FileCmd),
    /// The agent session and the saved sessions (`executor/session.rs`).
    Session(SessionCmd),
    /// The tool gate's own state: mode, approvals, grants (`executor/gate.rs`).
    Gate(GateCmd),
    /// Calls the person makes, each with its card (`executor/calls.rs`).
    Call(CallCmd),
    /// The peers outside a call: MCP servers and remote agents
    /// (`executor/servers.rs`).
    Server(ServerCmd),
    /// Answers to servers' questions (`executor/ask.rs`).
    Ask(AskCmd),
    /// The OAuth login started from the TUI (`executor/login.rs`).
    Login(LoginCmd),
    Registry(RegistryCmd),
    /// MCP Apps opened from result cards (`executor/apps.rs`).
    App(AppCmd),
}

/// MCP Apps. Answers: `Open` → `Msg::AppOpened` once the host runs (or could not
/// start), then `Msg::App` for what the app does.
#[derive(Debug, Clone, PartialEq)]
pub enum AppCmd {
    /// Read the tool's `ui://` page and serve it, showing this call.
    Open(Box<AppOpen>),
}

/// The call an app is opened for.
#[derive(Debug, Clone, PartialEq)]
pub struct AppOpen {
    pub server: String,
    /// The server's name for the tool.
    pub tool: String,
    pub arguments: serde_json::Map<String, serde_json::Value>,
    /// Its result as MCP sends it (`CallToolResult`), or why it has none.
    pub result: Result<serde_json::Value, String>,
}

/// The terminal and the desktop. Answers: `LoadTheme` → `Msg::ThemeApplied`,
/// `EditExternally` → `Msg::Edited` (the event loop runs the editor); `OpenUrl` →
/// `Msg::Log` only when the page could not be opened; the others answer nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum UiCmd {
    /// Leave (the event loop sees `State::quit`).
    Quit,
    /// Load a theme by name and use it; answers with `Msg::ThemeApplied`.
    LoadTheme(String),
    /// Turn mouse capture on or off.
    SetMouseCapture(bool),
    /// Remember the theme and mouse setting for the next run.
    RememberUi,
    /// Edit the form's current value in `$VISUAL` / `$EDITOR` (answers `Msg::Edited`);
    /// `suffix` hints the syntax (`.json`).
    EditExternally { text: String, suffix: String },
    /// Open a web page in the browser (a URL elicitation, when the person asks).
    OpenUrl(String),
    /// Put text on the terminal's clipboard (OSC 52).
    CopyText(String),
    /// Make the filter's haystacks of new catalog entries on a worker thread;
    /// answers `Msg::HaystacksMade`.
    MakeHaystacks(Vec<crate::tui::state::Unmade>),
}

/// Local files. Answers: `SaveContents` and `SaveCase` → `Msg::Saved`, `ExportWire` →
/// `Msg::WireExported`, `ListMemory` → `Msg::MemoryFiles`, `ReadMemory` →
/// `Msg::MemoryFile`; all at once.
#[derive(Debug, Clone, PartialEq)]
pub enum FileCmd {
    /// Write item `item` (1-based) of the last contents to `path` (`/save`, `/save!`).
    SaveContents {
        blocks: Vec<crate::tools::ContentBlock>,
        item: usize,
        path: String,
        overwrite: bool,
    },
    /// Append the last call, read or prompt as a test case to the collection at `path`
    /// (`/save-case`, the `save_case` key; answers `Msg::Saved`).
    SaveCase {
        case: Box<super::state::LastCase>,
        path: String,
    },
    /// Write these captured messages to a new JSONL file (answers `Msg::WireExported`).
    ExportWire(Vec<std::sync::Arc<crate::mcp::wire::WireEntry>>),
    /// List the memory directory (answers `Msg::MemoryFiles`).
    ListMemory,
    /// Read one memory file (answers `Msg::MemoryFile`).
    ReadMemory(String),
}

/// The agent session and the saved sessions. Answers: `Op` → `Msg::Failed` only
/// when the session has stopped (the session itself answers with `Msg::Agent`);
/// `SwitchProvider` → `Msg::Agent` (a notice) or `Msg::Failed`; `OpenSessions` and
/// `ListSessions` → `Msg::SessionList`; `Resume` → `Msg::Resumed` or `Msg::Failed`.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionCmd {
    /// Tell the agent session something (a user turn, step signals, interrupts).
    Op(crate::agent::Op),
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
}

/// The tool gate's own state. Answers: `RevokeGrant` and `RefreshGrants` →
/// `Msg::Grants`; `SetMode` and `Decide` answer nothing (the decided call's gate
/// events arrive as `Msg::Agent`).
#[derive(Debug, Clone, PartialEq)]
pub enum GateCmd {
    /// Decide calls in this permission mode from now on (Shift+Tab, `/mode`).
    SetMode(crate::policy::Mode),
    /// Answer a pending approval.
    Decide {
        id: ApprovalId,
        decision: ApprovalDecision,
    },
    RevokeGrant(GrantId),
    /// Ask for the session grants (answers `Msg::Grants`).
    RefreshGrants,
}

/// Calls the person makes, through the gate or to a server, each recorded on the
/// session's sink: they answer with `Msg::Agent` (`ToolCallRequested` /
/// `RequestStarted`, the gate's events, `ToolResult` / `RequestFinished`) from the
/// background; `CallTool` and `ReadResource` also with `Msg::Contents`.
/// `CancelCalls` answers nothing (the cancelled calls end as `Msg::Agent`).
#[derive(Debug, Clone, PartialEq)]
pub enum CallCmd {
    /// Call a tool through the gate, on the person's behalf (`/call`, a form).
    CallTool {
        call_id: CallId,
        tool: String,
        args: Map<String, Value>,
    },
    /// Run agents with the coordinator (`/agents a,b --mode pipeline TASK`); one card
    /// for the run, each agent's call nested under it.
    RunAgents {
        call_id: CallId,
        plan: crate::agents::Plan,
        task: String,
    },
    /// Read a resource (`/read SERVER URI`); its card shows the text.
    ReadResource {
        call_id: CallId,
        server: String,
        uri: String,
    },
    /// Render a prompt (`/prompt SERVER NAME k=v …`).
    GetPrompt {
        call_id: CallId,
        server: String,
        name: String,
        args: Map<String, Value>,
    },
    /// Cancel these calls the person made (those still running stop; those waiting
    /// for approval abort).
    CancelCalls(Vec<CallId>),
}

/// The peers outside a call: MCP servers and remote agents. Answers: `Refresh` →
/// `Msg::Servers` (at once); `Reconnect` and `Disable` → `Msg::Failed` only when
/// refused (the new status arrives as `Msg::HubChanged`); from the background,
/// `Complete` → `Msg::Completions`, `Subscribe` → `Msg::Subscribed`, `GetTask` and
/// `CancelTask` → `Msg::TaskAnswer`, `ReadAgentCards` → one `Msg::AgentCard` each;
/// `SetLogLevel` answers nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerCmd {
    /// New server rows and catalog from the hub and the registry (answers
    /// `Msg::Servers`; asked for on `Msg::HubChanged`).
    Refresh,
    /// Reconnect an MCP server now (also enables a disabled one).
    Reconnect(String),
    /// Close an MCP server's connection and keep it off until enabled.
    Disable(String),
    /// Ask the MCP servers for this log level and above (`logging/setLevel`).
    SetLogLevel(String),
    /// Ask a server for `completion/complete` suggestions (answers `Msg::Completions`).
    Complete {
        server: String,
        reference: CompletionTarget,
        argument: String,
        value: String,
        /// The other fields' values, for servers that narrow by them.
        context: std::collections::BTreeMap<String, String>,
    },
    /// Subscribe to a resource (`on`) or stop (answers `Msg::Subscribed`).
    Subscribe {
        server: String,
        uri: String,
        on: bool,
    },
    /// `tasks/get` for one task (answers `Msg::TaskAnswer`).
    GetTask { server: String, task_id: String },
    /// `tasks/cancel` for one task (answers `Msg::TaskAnswer`).
    CancelTask { server: String, task_id: String },
    /// Read these remote agents' cards in the background, each within `timeout`
    /// (answers one `Msg::AgentCard` each).
    ReadAgentCards {
        agents: Vec<(String, crate::config::AgentDef)>,
        timeout: std::time::Duration,
    },
}

/// Answers to servers' questions (`Msg::Asked`). Answers: `Sample` →
/// `Msg::Sampled` (from the background); `Answer` answers nothing (the server goes
/// on with its call).
#[derive(Debug, Clone, PartialEq)]
pub enum AskCmd {
    /// Answer a server's question (elicitation, sampling).
    Answer {
        id: super::state::AskId,
        answer: Box<crate::mcp::Answer>,
    },
    /// Send an approved sampling request to the current provider (answers
    /// `Msg::Sampled`).
    Sample {
        id: super::state::AskId,
        server: String,
        params: Value,
    },
}

/// The OAuth login started from the TUI. Answers: `Start` → `Msg::Login` (waiting
/// for the browser or a paste, then finished; at once when it cannot start);
/// `Paste` and `Cancel` answer nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum LoginCmd {
    /// Log in to an HTTP server that asks for OAuth.
    Start(String),
    /// What the person pasted into the login overlay (redirect URL or code).
    Paste(String),
    /// Stop the running login.
    Cancel,
}

/// `From` each group, so a handler writes `UiCmd::Quit.into()`.
/// The MCP Registry ("Add server…"): a search answered (after a short pause, the
/// newest only) by `Msg::Registry(Found)`, a write by `Msg::Registry(Installed)`.
#[derive(Debug, Clone, PartialEq)]
pub enum RegistryCmd {
    Search {
        seq: u64,
        query: String,
    },
    /// Writes `[servers.KEY]` to the person's own config file.
    Install {
        key: String,
        server: Box<crate::config::ServerConfig>,
        /// What it writes, a line each, said back in the transcript.
        shown: Vec<String>,
    },
}

macro_rules! cmd_from {
    ($($group:ident => $variant:ident),* $(,)?) => {$(
        impl From<$group> for Cmd {
            fn from(cmd: $group) -> Self {
                Self::$variant(cmd)
            }
        }
    )*};
}

cmd_from! {
    UiCmd => Ui,
    FileCmd => Files,
    SessionCmd => Session,
    GateCmd => Gate,
    CallCmd => Call,
    ServerCmd => Server,
    AskCmd => Ask,
    LoginCmd => Login,
    RegistryCmd => Registry,
    AppCmd => App,
}
