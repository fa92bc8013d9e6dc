//! The help overlay: every key of the key table, by layer; scrolls and closes.

use crate::keymap::Action;

use super::msg::Handled;
use super::state::{Overlay, OverlayStack};

pub fn key(overlays: &mut OverlayStack, action: Option<Action>) -> Handled {
    let Some(Overlay::Help { scroll }) = overlays.top_mut() else {
        return Handled::nothing();
    };
    if super::scroll::scroll_overlay(scroll, action) {
        return Handled::nothing();
    }
    match action {
        Some(Action::Close | Action::Help) => {
            overlays.pop();
        }
        Some(other) => return Handled::Unhandled(other),
        None => {}
    }
    Handled::nothing()
}
