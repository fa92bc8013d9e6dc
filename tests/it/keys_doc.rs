//! docs/src/keys.md carries the key reference generated from the built-in table
//! (`keymap::reference_markdown`) between its markers; a stale copy fails here.
//! `SWITCHBOARD_BLESS=1 cargo test --test it keys_doc` writes the current one.

use std::path::Path;

const BEGIN: &str = "<!-- keys:begin -->\n";
const END: &str = "<!-- keys:end -->";

#[test]
fn keys_doc_reference_is_generated_from_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/keys.md");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!(
            "{} has no `{}` … `{END}` markers",
            path.display(),
            BEGIN.trim()
        );
    };
    let current = text.get(begin + BEGIN.len()..end).unwrap_or_default();
    let generated = switchboard::keymap::reference_markdown();
    if current == generated {
        return;
    }
    if std::env::var_os("SWITCHBOARD_BLESS").is_some_and(|v| v == "1") {
        let fresh = format!(
            "{}{generated}{}",
            &text[..begin + BEGIN.len()],
            &text[end..]
        );
        if let Err(e) = std::fs::write(&path, fresh) {
            panic!("cannot write {}: {e}", path.display());
        }
        return;
    }
    panic!(
        "{} is stale: the key table (src/keymap/default.toml or action.rs) changed.\n\
         Regenerate it with: SWITCHBOARD_BLESS=1 cargo test --test it keys_doc",
        path.display()
    );
}
