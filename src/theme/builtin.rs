//! The themes compiled into the binary.

/// A built-in theme: its name and TOML source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Builtin {
    pub(super) name: &'static str,
    pub(super) source: &'static str,
}

impl Builtin {
    /// How errors name the file.
    pub(super) fn display_path(self) -> String {
        format!("themes/{}.toml (built-in)", self.name)
    }
}

/// Sorted by name.
pub(super) const BUILTINS: [Builtin; 3] = [
    Builtin {
        name: "default",
        source: include_str!("../../themes/default.toml"),
    },
    Builtin {
        name: "high-contrast",
        source: include_str!("../../themes/high-contrast.toml"),
    },
    Builtin {
        name: "light",
        source: include_str!("../../themes/light.toml"),
    },
];

pub(super) fn find(name: &str) -> Option<Builtin> {
    BUILTINS
        .iter()
        .copied()
        .find(|builtin| builtin.name == name)
}
