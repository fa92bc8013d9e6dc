//! The UI state: plain data, no channels, no handles. `update` changes it; `render`
//! draws it.

use std::collections::VecDeque;

use crate::keymap::{Keymap, Layer};

mod agent_cards;
mod approval;
mod ask;
mod catalog;
pub mod chat_entries;
mod composer;
pub mod elicit;
mod form;
pub mod frame_cache;
mod library;
mod login;
pub mod nested;
mod overlay;
mod palette;
mod panes;
mod registry;
pub mod sampling;
mod sessions;
mod subs;
mod tasks;
pub mod transcript;
mod wire;

pub use agent_cards::RemoteCard;
pub use approval::{ApprovalStage, PendingApproval};
pub use ask::{AskId, AskView, PendingAsk, UrlAsk};
pub use catalog::{
    Catalog, CatalogEntry, CatalogPane, CatalogTab, Filter, Made, Unmade, is_subsequence,
};
pub use chat_entries::ChatEntries;
pub use composer::Composer;
pub use form::{FormField, FormState, FormTarget};
pub use library::{BrowseKind, Library, SkillRow};
pub use login::{LoginMsg, LoginPhase, LoginView};
pub use overlay::{Overlay, OverlayStack};
pub use palette::PaletteState;
pub use panes::{LogsPane, ServersPane, TurnView};
pub use registry::{
    InstallForm, Installed, RegistryMsg, RegistryPhase, RegistryPlace, RegistryView, Results,
};
pub use sessions::{SessionPicker, SessionRow};
pub use subs::Subscriptions;
pub use tasks::TaskRow;
pub use wire::{WireDetail, WirePane};

/// The panes that can hold focus, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Servers,
    Catalog,
    Chat,
    Composer,
    Logs,
}

impl Pane {
    pub fn title(self) -> &'static str {
        match self {
            Pane::Servers => "Servers",
            Pane::Catalog => "Catalog",
            Pane::Chat => "Chat",
            Pane::Composer => "Message",
            Pane::Logs => "Logs",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ServerStatus {
    /// Built into switchboard; always available.
    Builtin,
    /// Configured, not connected yet.
    #[default]
    Idle,
    Connecting,
    Ready,
    Failed,
    /// An HTTP server that asks for an OAuth login (`l`).
    NeedsLogin,
    Disconnected,
    /// Disabled in the config.
    Disabled,
    /// Starts on demand and is not running (not started yet, or stopped when idle).
    OnDemand,
}

/// One row of the Servers pane. Text fields are sanitised when they enter the state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerRow {
    pub name: String,
    pub transport: String,
    /// The protocol generation it speaks (`2025-11-25`, `2026-07-28`), once connected.
    pub era: Option<String>,
    pub status: ServerStatus,
    pub tools: usize,
    /// One line under the name: the workspace, the last error…
    pub detail: Option<String>,
    /// What Enter shows: (label, value) pairs, then instructions and stderr.
    pub facts: Vec<(String, String)>,
    pub instructions: Option<String>,
    pub stderr: Vec<String>,
    /// A stdio server that runs under its Landlock sandbox.
    pub sandboxed: bool,
    /// The size of its tools' declarations (weighed in tokens with the provider's
    /// shape when shown).
    pub declared: crate::llm::DeclarationSize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatKind {
    User,
    Assistant,
    Tool,
    Note,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatEntry {
    pub kind: ChatKind,
    pub text: String,
    /// Assistant text still streaming into this entry (its run id).
    pub streaming: Option<String>,
    /// A tool call made by the model.
    pub card: Option<super::cards::ToolCard>,
}

impl ChatEntry {
    pub fn new(kind: ChatKind, text: impl Into<String>) -> Self {
        Self {
            kind,
            text: text.into(),
            streaming: None,
            card: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub level: LogLevel,
    pub target: String,
    pub message: String,
}

/// At most this many log lines are kept in memory (the log file has them all).
pub const LOG_CAPACITY: usize = 5_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warn,
    Error,
}

/// A one-line message in the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
}

/// What the status bar reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub provider: String,
    pub model: String,
    pub step_mode: bool,
    pub policy_mode: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub notice: Option<Notice>,
    /// The provider kind and context window tools are weighed against (from the
    /// session's start).
    pub budget: Option<crate::agent::exposure::ToolBudget>,
    /// What the last model request declared.
    pub offered: Option<crate::agent::exposure::OfferReport>,
}

/// What the status bar shows while no model provider is connected.
pub const NO_PROVIDER: &str = "no provider";

/// A session grant as the palette lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantView {
    pub id: crate::policy::GrantId,
    pub text: String,
}

/// Lines scrolled up from the newest line; 0 follows the tail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TailScroll(pub usize);

/// The transcript: its entries, their layout kept between frames, how far it is
/// scrolled back, and whether tool cards show whole.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatPane {
    /// Changed only through its methods, which stamp what they change.
    pub entries: ChatEntries,
    /// `entries` laid out, kept between frames.
    pub layout: frame_cache::TranscriptCache,
    pub scroll: TailScroll,
    /// Tool cards show their whole arguments and results.
    pub cards_expanded: bool,
    /// `/` in the Chat pane: the query, and the entry of the match in view.
    pub search: ChatSearch,
}

/// A search of the transcript: the query (case-insensitive), whether it is being
/// typed, and the entry of the current match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatSearch {
    pub query: String,
    pub editing: bool,
    pub at: Option<usize>,
}

impl ChatPane {
    /// Adds an entry without touching the scroll: a transcript at its tail follows
    /// the new entry; one scrolled back keeps its offset from the tail (news from the
    /// background does not jump the view to the end).
    pub fn push(&mut self, entry: ChatEntry) {
        self.entries.push(entry);
    }

    /// Adds an entry and brings the view to the tail: the answer to what the person
    /// just did is in view.
    pub fn show(&mut self, entry: ChatEntry) {
        self.entries.push(entry);
        self.follow();
    }

    /// Brings the view back to the tail.
    pub fn follow(&mut self) {
        self.scroll = TailScroll(0);
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub size: (u16, u16),
    pub focus: Pane,
    /// The overlays open over the panes; the top one takes the keys.
    pub overlays: OverlayStack,
    pub show_logs: bool,
    pub mouse: bool,
    pub servers: ServersPane,
    /// `--serve`: the gateway's URL and its connected clients.
    pub serve: super::serve_view::ServeView,
    pub catalog: CatalogPane,
    pub chat: ChatPane,
    pub composer: Composer,
    pub logs: LogsPane,
    pub status: Status,
    pub theme_name: String,
    pub theme_names: Vec<String>,
    pub keymap: Keymap,
    /// Tool calls waiting for the person; the front one is shown.
    pub approvals: VecDeque<PendingApproval>,
    /// What servers ask the person; the front one is shown over everything.
    pub asks: VecDeque<PendingAsk>,
    /// Tasks calls became (the MCP tasks extension), in the order first seen.
    pub tasks: Vec<TaskRow>,
    /// Subscribed resources and which changed since read.
    pub subscriptions: Subscriptions,
    /// The captured JSON-RPC messages, for the Wire view.
    pub wire: WirePane,
    /// `[policy] confirm_delete = "double"`.
    pub confirm_delete_double: bool,
    /// Where "always" writes its rule (shown before it does).
    pub always_file: String,
    pub grants: Vec<GrantView>,
    /// Skills and memory files, for their panes.
    pub library: Library,
    /// The agent session's id (from its start event).
    pub session_id: Option<String>,
    /// Configured provider names, for the palette.
    pub providers: Vec<String>,
    /// The runtime's clock, in ms since start (`Msg::Tick`).
    pub clock_ms: u64,
    /// Calls the person made so far (their ids are `manual-N`).
    pub manual_calls: u64,
    /// The agent turn in progress.
    pub turn: TurnView,
    /// Ctrl+C was pressed once while typing; the next one quits.
    pub interrupt_armed: bool,
    /// What the last read or call from the composer or a form returned, for `/save`.
    pub last_contents: Option<LastContents>,
    /// The last call, read or prompt the person made, for `/save-case`.
    pub last_case: Option<Box<LastCase>>,
    /// The MCP Registry "Add server…" searches and the file it writes (`None`: the
    /// palette does not offer it).
    pub registry_place: Option<RegistryPlace>,
    pub quit: bool,
}

/// Contents the person asked for (a read or a tool call), kept so `/save` can write
/// one of its items to a file.
#[derive(Debug, Clone, PartialEq)]
pub struct LastContents {
    /// `SERVER read URI` or the tool's name.
    pub source: String,
    pub blocks: Vec<crate::tools::ContentBlock>,
}

/// A call, read or prompt the person made and what came back: a test case to save.
#[derive(Debug, Clone, PartialEq)]
pub struct LastCase {
    /// The server (`builtin` for a built-in tool).
    pub server: String,
    pub target: crate::cases::Target,
    pub observed: crate::cases::Observed,
}

impl Status {
    /// The shape the provider declares tools in (OpenAI's until a session says).
    pub fn declaration_shape(&self) -> crate::llm::DeclarationShape {
        self.budget
            .as_ref()
            .map_or(crate::llm::DeclarationShape::Openai, |b| {
                crate::llm::DeclarationShape::of_kind(&b.kind)
            })
    }
}

impl State {
    pub fn new(keymap: Keymap, theme_name: String, theme_names: Vec<String>) -> Self {
        Self {
            size: (100, 30),
            focus: Pane::Composer,
            overlays: OverlayStack::default(),
            show_logs: false,
            mouse: true,
            servers: ServersPane::default(),
            serve: super::serve_view::ServeView::default(),
            catalog: CatalogPane::default(),
            chat: ChatPane::default(),
            composer: Composer::default(),
            logs: LogsPane::default(),
            status: Status {
                provider: NO_PROVIDER.into(),
                model: String::new(),
                step_mode: false,
                policy_mode: "ask".into(),
                tokens_in: 0,
                tokens_out: 0,
                notice: None,
                budget: None,
                offered: None,
            },
            theme_name,
            theme_names,
            keymap,
            approvals: VecDeque::new(),
            asks: VecDeque::new(),
            tasks: Vec::new(),
            subscriptions: Subscriptions::default(),
            wire: WirePane::default(),
            confirm_delete_double: false,
            always_file: "switchboard.toml".into(),
            grants: Vec::new(),
            library: Library::default(),
            session_id: None,
            providers: Vec::new(),
            clock_ms: 0,
            manual_calls: 0,
            turn: TurnView::default(),
            interrupt_armed: false,
            last_contents: None,
            last_case: None,
            registry_place: None,
            quit: false,
        }
    }

    /// The panes in Tab order (Logs only while shown).
    pub fn focus_order(&self) -> Vec<Pane> {
        let mut panes = vec![Pane::Servers, Pane::Catalog, Pane::Chat, Pane::Composer];
        if self.show_logs {
            panes.push(Pane::Logs);
        }
        panes
    }

    /// A step pause waits while a message is being typed: the composer keeps every
    /// typed key, the pause's own too, until the message is sent or cleared.
    pub fn typing_through_pause(&self) -> bool {
        self.turn.step_pause.is_some()
            && self.focus == Pane::Composer
            && self.layer() == Layer::Step
            && !self.composer.is_blank()
    }

    /// The key layers from the bottom up: the focused pane's, a step pause, the
    /// approval card, each open overlay, a server's question.
    pub fn layers(&self) -> Vec<Layer> {
        let mut layers = vec![self.pane_layer()];
        if self.turn.step_pause.is_some() {
            layers.push(Layer::Step);
        }
        if !self.approvals.is_empty() {
            layers.push(Layer::Approval);
        }
        layers.extend(self.overlays.iter().map(|o| o.layer(self.wire.editing)));
        if !self.asks.is_empty() {
            layers.push(Layer::Ask);
        }
        layers
    }

    /// The key layer that currently interprets keys: the top of [`State::layers`].
    pub fn layer(&self) -> Layer {
        self.layers().last().copied().unwrap_or(Layer::Normal)
    }

    /// The layer of the focused pane, under everything else.
    fn pane_layer(&self) -> Layer {
        match self.focus {
            Pane::Composer => Layer::Composer,
            Pane::Catalog if self.catalog.filter.editing => Layer::Filter,
            Pane::Chat if self.chat.search.editing => Layer::Filter,
            _ => Layer::Normal,
        }
    }

    /// A fresh id for a call the person makes.
    pub fn next_manual_call(&mut self) -> crate::gate::CallId {
        self.manual_calls += 1;
        crate::gate::CallId(format!("manual-{}", self.manual_calls))
    }

    /// Calls, reads and prompts the person made that have not ended.
    pub fn open_manual_calls(&self) -> Vec<crate::gate::CallId> {
        self.chat
            .entries
            .open_cards()
            .filter(|c| c.origin == crate::policy::Origin::Manual)
            .map(|c| c.call_id.clone())
            .collect()
    }

    /// Something is running (a turn or a call): the clock should tick.
    pub fn busy(&self) -> bool {
        self.turn.running() || self.chat.entries.open_cards().next().is_some()
    }

    pub fn notice(&mut self, level: NoticeLevel, text: impl Into<String>) {
        self.status.notice = Some(Notice {
            level,
            text: text.into(),
        });
    }
}
