//! The overlays open over the panes, as a stack: the top one takes the keys and is
//! drawn last; closing it shows the one below.

use crate::keymap::Layer;

/// Something drawn over the panes that takes the keys while open.
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help {
        scroll: u16,
    },
    /// The argument form of a tool call or prompt.
    Form(super::FormState),
    /// The Skills or Memory pane.
    Browse {
        kind: super::BrowseKind,
        sel: usize,
        scroll: u16,
    },
    /// The selected server in full: status, capabilities, instructions, stderr.
    Server {
        scroll: u16,
    },
    /// The selected catalog item in full; `raw` shows the schema as JSON.
    Detail {
        scroll: u16,
        raw: bool,
    },
    Palette(super::PaletteState),
    /// The resume picker.
    Sessions(super::SessionPicker),
    /// A login to a server that asks for OAuth.
    Login(super::LoginView),
    /// The tasks of this session's calls.
    Tasks {
        sel: usize,
    },
    /// The Wire view (its state is `State::wire`).
    Wire,
    /// "Add server…": the MCP Registry searched, an entry installed.
    Registry(Box<super::RegistryView>),
}

impl Overlay {
    /// The key layer that interprets keys while this overlay is on top;
    /// `wire_editing` says the Wire view's filter is being typed.
    pub fn layer(&self, wire_editing: bool) -> Layer {
        match self {
            Overlay::Help { .. } => Layer::Help,
            Overlay::Palette(_) => Layer::Palette,
            Overlay::Detail { .. } | Overlay::Server { .. } => Layer::Detail,
            Overlay::Browse { .. } | Overlay::Sessions(_) => Layer::Browse,
            Overlay::Form(_) | Overlay::Login(_) => Layer::Form,
            Overlay::Tasks { .. } => Layer::Tasks,
            Overlay::Wire if wire_editing => Layer::Filter,
            Overlay::Wire => Layer::Wire,
            Overlay::Registry(_) => Layer::Registry,
        }
    }
}

/// The open overlays, bottom first. Opening one pushes it; closing pops it and
/// shows the one it was opened over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverlayStack(Vec<Overlay>);

impl OverlayStack {
    /// The overlay that takes the keys.
    pub fn top(&self) -> Option<&Overlay> {
        self.0.last()
    }

    pub fn top_mut(&mut self) -> Option<&mut Overlay> {
        self.0.last_mut()
    }

    /// Opens `overlay` over the ones open.
    pub fn push(&mut self, overlay: Overlay) {
        self.0.push(overlay);
    }

    /// Closes the top overlay.
    pub fn pop(&mut self) -> Option<Overlay> {
        self.0.pop()
    }

    /// Puts `overlay` in place of the top one (opens it if none is open).
    pub fn replace_top(&mut self, overlay: Overlay) {
        self.0.pop();
        self.0.push(overlay);
    }

    /// Closes every overlay.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Opens `overlay`, or closes it when one of its kind is on top (a key that
    /// opens a view also closes it).
    pub fn toggle(&mut self, overlay: Overlay) {
        if self
            .top()
            .is_some_and(|top| std::mem::discriminant(top) == std::mem::discriminant(&overlay))
        {
            self.0.pop();
        } else {
            self.0.push(overlay);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Bottom first, as they are drawn.
    pub fn iter(&self) -> std::slice::Iter<'_, Overlay> {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a OverlayStack {
    type Item = &'a Overlay;
    type IntoIter = std::slice::Iter<'a, Overlay>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
