//! The argument form for a tool call or a prompt, generated from its schema: one field
//! per top-level argument, validated before anything is sent; raw JSON on a toggle.

mod keys;
pub use keys::{completion_request, key};

pub use super::state::{FormField, FormState, FormTarget};

use super::field::FieldKind;

impl FormState {
    /// Ctrl+E: the value being typed (or the raw JSON) to the external editor. Choice
    /// fields are chosen with ←/→, not typed.
    pub fn external_edit(&mut self) -> Vec<super::msg::Cmd> {
        let json = self.raw.is_some()
            || self
                .fields
                .get(self.sel)
                .is_some_and(|f| f.kind == FieldKind::Json { bare_text: false });
        let choice = self.raw.is_none()
            && self
                .fields
                .get(self.sel)
                .is_some_and(|f| f.kind.is_choice());
        if choice {
            self.error = Some("choose this value with ←/→".into());
            return Vec::new();
        }
        let skeleton = self.raw.is_none().then(|| self.skeleton()).flatten();
        let Some(text) = self.text_mut() else {
            return Vec::new();
        };
        let text = match skeleton {
            Some(skeleton) if text.trim().is_empty() => skeleton,
            _ => text.clone(),
        };
        vec![
            super::msg::UiCmd::EditExternally {
                text,
                suffix: if json { ".json" } else { ".txt" }.into(),
            }
            .into(),
        ]
    }
}
