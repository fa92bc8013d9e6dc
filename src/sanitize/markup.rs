//! Text for HTML and XML documents (the session export, the JUnit report).

/// Text made safe inside HTML or XML elements and attribute values: the five markup
/// characters escaped (`&#39;` reads the same in both), tab and line breaks kept, and
/// every other control character — and U+FFFE / U+FFFF, which XML 1.0 cannot hold —
/// replaced by U+FFFD, so the document stays well-formed and shows something was there.
pub fn escape_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
