//! The Catalog pane's keys: moving, tabs, the filter, opening an item's detail.

use crate::keymap::{Action, Key, KeyCode};

use super::msg::Handled;
use super::state::{CatalogPane, Overlay};

/// Keys while typing the catalog filter.
pub fn filter_key(catalog: &mut CatalogPane, key: Key, action: Option<Action>) -> Handled {
    match action {
        Some(Action::Close) => {
            catalog.filter.query.clear();
            catalog.filter.editing = false;
            catalog.sel = 0;
        }
        Some(Action::Activate) => catalog.filter.editing = false,
        Some(Action::Up) => catalog.sel = catalog.sel.saturating_sub(1),
        Some(Action::Down) => {
            let last = catalog.visible().len().saturating_sub(1);
            catalog.sel = (catalog.sel + 1).min(last);
        }
        Some(other) => return Handled::Unhandled(other),
        None => {
            if let Some(c) = key.typed_char() {
                catalog.filter.query.push(c);
                catalog.sel = 0;
            } else if key.code == KeyCode::Backspace {
                catalog.filter.query.pop();
                catalog.sel = 0;
            }
        }
    }
    Handled::nothing()
}

/// Navigation in the catalog list: moves, tabs, `/` to start a filter, Enter for detail.
pub fn nav(catalog: &mut CatalogPane, action: Action, page: usize) -> Option<Overlay> {
    match action {
        Action::NextTab | Action::PrevTab => {
            let delta = if action == Action::NextTab { 1 } else { -1 };
            catalog.tab = catalog.tab.shifted_in(catalog.items.tabs(), delta);
            catalog.sel = 0;
        }
        // A fresh filter, as `/` starts a fresh search in a pager.
        Action::Filter => {
            catalog.filter.query.clear();
            catalog.filter.editing = true;
            catalog.sel = 0;
        }
        Action::Activate => {
            return catalog.selected_entry().map(|_| Overlay::Detail {
                scroll: 0,
                raw: false,
            });
        }
        _ => {
            let len = catalog.visible().len();
            catalog.sel = super::scroll::moved(catalog.sel, len, action, page);
        }
    }
    None
}
