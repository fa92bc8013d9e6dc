//! What a piece of the screen is, as far as colour goes.

/// Declares `Role` with its snake_case theme-file name and its fallback.
macro_rules! roles {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal => $fallback:expr ),+ $(,)?) => {
        /// A styled element of the UI. Every pane asks the theme for a role, never for
        /// a colour.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Role {
            $( $(#[$doc])* $variant, )+
        }

        impl Role {
            /// Every role, in declaration order.
            pub const ALL: &'static [Role] = &[ $( Role::$variant, )+ ];

            /// The snake_case key used under `[styles]` in theme files.
            pub fn name(self) -> &'static str {
                match self { $( Role::$variant => $name, )+ }
            }

            /// The role whose style is used when a theme does not set this one;
            /// `None` only for `Text`, whose fallback is the empty style.
            pub fn fallback(self) -> Option<Role> {
                match self { $( Role::$variant => $fallback, )+ }
            }
        }
    };
}

roles! {
    /// Ordinary text; the end of every fallback chain.
    Text = "text" => None,
    /// Secondary, de-emphasised text.
    Dim = "dim" => Some(Role::Text),
    /// Pane titles and headings.
    Title = "title" => Some(Role::Text),
    /// Borders of unfocused panes.
    Border = "border" => Some(Role::Dim),
    /// Border of the focused pane.
    BorderFocus = "border_focus" => Some(Role::Title),
    /// The selected row in a list.
    Selection = "selection" => Some(Role::Text),
    /// The user's chat messages.
    User = "user" => Some(Role::Text),
    /// The model's chat messages.
    Assistant = "assistant" => Some(Role::Text),
    /// System and meta messages in the transcript.
    System = "system" => Some(Role::Dim),
    /// Model reasoning ("thinking") text.
    Thinking = "thinking" => Some(Role::Dim),
    /// Tool call headers in the transcript.
    Tool = "tool" => Some(Role::Text),
    /// A tool call that succeeded.
    ToolOk = "tool_ok" => Some(Role::Success),
    /// A tool call that failed.
    ToolError = "tool_error" => Some(Role::Error),
    /// Effect badge: reads only.
    EffectRead = "effect_read" => Some(Role::Success),
    /// Effect badge: computes without side effects outside.
    EffectCompute = "effect_compute" => Some(Role::Info),
    /// Effect badge: writes or changes state.
    EffectWrite = "effect_write" => Some(Role::Warning),
    /// Effect badge: deletes.
    EffectDelete = "effect_delete" => Some(Role::Error),
    /// Effect badge: effect not known.
    EffectUnknown = "effect_unknown" => Some(Role::Warning),
    /// The approval prompt.
    Approval = "approval" => Some(Role::Warning),
    /// Key hints in the status bar and help.
    KeyHint = "key_hint" => Some(Role::Dim),
    /// The status bar.
    Status = "status" => Some(Role::Text),
    /// A warning shown in the status bar.
    StatusWarn = "status_warn" => Some(Role::Warning),
    /// Success messages.
    Success = "success" => Some(Role::Text),
    /// Informational messages.
    Info = "info" => Some(Role::Text),
    /// Error messages.
    Error = "error" => Some(Role::Text),
    /// Warnings.
    Warning = "warning" => Some(Role::Text),
    /// The active tab.
    TabActive = "tab_active" => Some(Role::Title),
    /// Inactive tabs.
    TabInactive = "tab_inactive" => Some(Role::Dim),
    /// The matched part of a filtered item.
    FilterMatch = "filter_match" => Some(Role::Title),
    /// Hyperlinks and URLs.
    Link = "link" => Some(Role::Info),
    /// Inline code and code blocks.
    Code = "code" => Some(Role::Text),
    /// Placeholder text in empty inputs.
    Placeholder = "placeholder" => Some(Role::Dim),
    /// Added lines in a diff.
    DiffAdd = "diff_add" => Some(Role::Success),
    /// Removed lines in a diff.
    DiffRemove = "diff_remove" => Some(Role::Error),
    /// Hunk and file headers in a diff.
    DiffHeader = "diff_header" => Some(Role::Title),
    /// Log lines at error level.
    LogError = "log_error" => Some(Role::Error),
    /// Log lines at warn level.
    LogWarn = "log_warn" => Some(Role::Warning),
    /// Log lines at info level.
    LogInfo = "log_info" => Some(Role::Text),
    /// Log lines at debug and trace level.
    LogDebug = "log_debug" => Some(Role::Dim),
    /// Small labels: counts, transport names, server states.
    Badge = "badge" => Some(Role::Dim),
}

impl Role {
    /// Number of roles.
    pub const COUNT: usize = Role::ALL.len();

    /// The role with this theme-file name.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|role| role.name() == name)
    }

    /// Position in [`Role::ALL`], for table lookups.
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for (i, role) in Role::ALL.iter().enumerate() {
            assert_eq!(Role::from_name(role.name()), Some(*role));
            assert_eq!(role.index(), i);
        }
        assert_eq!(Role::from_name("nope"), None);
    }

    #[test]
    fn every_chain_ends_at_text() {
        for role in Role::ALL {
            let mut current = *role;
            let mut steps = 0;
            while let Some(next) = current.fallback() {
                current = next;
                steps += 1;
                assert!(steps < Role::COUNT, "{role:?} has a fallback cycle");
            }
            assert_eq!(current, Role::Text, "{role:?}");
        }
    }

    #[test]
    fn required_fallbacks() {
        let chain = |role: Role| {
            std::iter::successors(role.fallback(), |r| r.fallback()).collect::<Vec<_>>()
        };
        assert_eq!(chain(Role::EffectUnknown), [Role::Warning, Role::Text]);
        assert_eq!(chain(Role::BorderFocus), [Role::Title, Role::Text]);
        assert_eq!(chain(Role::LogError), [Role::Error, Role::Text]);
        assert_eq!(chain(Role::TabActive), [Role::Title, Role::Text]);
        assert_eq!(chain(Role::StatusWarn), [Role::Warning, Role::Text]);
    }
}
