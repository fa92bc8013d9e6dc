//! Counted nouns and who-asked phrases for UI text: "1 line", "2 lines".

use crate::policy::Origin;

/// `n` and the noun, singular for one: `count(1, "line", "lines")` is `1 line`.
/// `text` cut to `width` columns by dropping its middle (`github__create_p…_review`),
/// so both its start and its end stay readable; never shorter than `min` columns.
pub fn middle(text: &str, width: usize, min: usize) -> String {
    use unicode_width::{UnicodeWidthChar as _, UnicodeWidthStr as _};
    let width = width.max(min);
    if text.width() <= width {
        return text.to_owned();
    }
    let keep = width.saturating_sub(1);
    let (head_w, tail_w) = (keep - keep / 2, keep / 2);
    let mut head = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > head_w {
            break;
        }
        used += w;
        head.push(c);
    }
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > tail_w {
            break;
        }
        used += w;
        tail.push(c);
    }
    tail.reverse();
    format!("{head}…{}", tail.into_iter().collect::<String>())
}

pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Who asked for a call, as the approval pane says it.
pub fn asker(origin: Origin) -> &'static str {
    match origin {
        Origin::Model => "the model",
        Origin::Manual => "you (/call or a form)",
        Origin::Cli => "switchboard call",
        Origin::Serve => "a serve client",
        Origin::Agent => "a sub-agent",
        Origin::App => "an MCP App",
    }
}

/// Who asked, naming a serve client: "claude-desktop via serve" (the name is
/// untrusted text, sanitised).
pub fn asked_by(origin: Origin, client: Option<&str>) -> String {
    match (origin, client) {
        (Origin::Serve, Some(name)) => {
            format!("{} via serve", crate::sanitize::sanitize_line(name))
        }
        (Origin::Agent, Some(name)) => {
            format!("sub-agent {}", crate::sanitize::sanitize_line(name))
        }
        (Origin::App, Some(name)) => {
            format!("the app {}", crate::sanitize::sanitize_line(name))
        }
        _ => asker(origin).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular() {
        assert_eq!(count(1, "line", "lines"), "1 line");
        assert_eq!(count(0, "line", "lines"), "0 lines");
        assert_eq!(count(12, "template", "templates"), "12 templates");
    }

    #[test]
    fn middles_go_first() {
        let name = "github__create_pull_request_review_comment";
        assert_eq!(middle(name, 20, 8), "github__cr…w_comment");
        assert_eq!(middle(name, 99, 8), name);
        // Never below the floor, whatever room is left.
        assert_eq!(middle(name, 2, 8), "gith…ent");
        assert_eq!(
            unicode_width::UnicodeWidthStr::width(middle("ツールツールツール", 9, 4).as_str()),
            9
        );
    }
}
