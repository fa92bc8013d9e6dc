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
}

impl Layer {
    pub const ALL: [Layer; 14] = [
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
    ];

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
        }
    }
}

macro_rules! actions {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// Everything a key binding can trigger.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action { $($variant),* }

        impl Action {
            pub const ALL: &'static [Action] = &[$(Action::$variant),*];

            /// The name used in `[ui.keys]`.
            pub fn name(self) -> &'static str {
                match self { $(Action::$variant => $name),* }
            }

            pub fn from_name(name: &str) -> Option<Action> {
                match name { $($name => Some(Action::$variant),)* _ => None }
            }
        }
    };
}

actions! {
    Interrupt => "interrupt",
    Quit => "quit",
    FocusNext => "focus_next",
    FocusPrev => "focus_prev",
    Palette => "palette",
    Help => "help",
    ToggleLogs => "toggle_logs",
    Up => "up",
    Down => "down",
    PageUp => "page_up",
    PageDown => "page_down",
    Top => "top",
    Bottom => "bottom",
    NextTab => "next_tab",
    PrevTab => "prev_tab",
    Filter => "filter",
    Activate => "activate",
    FocusComposer => "focus_composer",
    Reconnect => "reconnect",
    ToggleServer => "toggle_server",
    ExpandCards => "expand_cards",
    LogLevel => "log_level",
    Send => "send",
    Newline => "newline",
    Close => "close",
    ApproveOnce => "approve_once",
    ApproveSession => "approve_session",
    ApproveAlways => "approve_always",
    Deny => "deny",
    DenyWithReason => "deny_with_reason",
    AbortTurn => "abort_turn",
    ToggleRaw => "toggle_raw",
    ShowSkills => "show_skills",
    ToggleStepMode => "toggle_step_mode",
    StepNext => "step_next",
    StepContinue => "step_continue",
    CancelTurn => "cancel_turn",
    ShowMemory => "show_memory",
    CallTool => "call_tool",
    ExternalEditor => "external_editor",
    OpenUrl => "open_url",
    Login => "login",
    CopyUrl => "copy_url",
    ShowTasks => "show_tasks",
    CancelTask => "cancel_task",
    Subscribe => "subscribe",
    CycleMode => "cycle_mode",
    ShowWire => "show_wire",
    ExportWire => "export_wire",
    CopyCommand => "copy_command",
}
