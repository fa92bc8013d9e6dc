//! Counted nouns and who-asked phrases for UI text: "1 line", "2 lines".

use crate::policy::Origin;

/// `n` and the noun, singular for one: `count(1, "line", "lines")` is `1 line`.
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
}
