//! [`KeyPath`]: a dotted key path as written in TOML (`policy.effects."fs.write"`).

use std::fmt;

/// Displays key segments the way a user would write them: bare keys joined by `.`,
/// keys that are not bare quoted, array indices (segments like `[2]`) appended.
#[derive(Debug, Clone, Copy)]
pub struct KeyPath<'a, S> {
    segments: &'a [S],
}

impl<'a, S: AsRef<str>> KeyPath<'a, S> {
    pub fn new(segments: &'a [S]) -> Self {
        Self { segments }
    }
}

impl<S: AsRef<str>> fmt::Display for KeyPath<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            let segment = segment.as_ref();
            if is_index(segment) {
                f.write_str(segment)?;
                continue;
            }
            if i > 0 {
                f.write_str(".")?;
            }
            if is_bare(segment) {
                f.write_str(segment)?;
            } else {
                write!(
                    f,
                    "\"{}\"",
                    segment.replace('\\', "\\\\").replace('"', "\\\"")
                )?;
            }
        }
        Ok(())
    }
}

/// A key TOML accepts without quotes.
pub fn is_bare(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn is_index(segment: &str) -> bool {
    segment.len() > 2
        && segment.starts_with('[')
        && segment.ends_with(']')
        && segment[1..segment.len() - 1]
            .chars()
            .all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_toml() {
        let k = ["policy", "effects", "fs.write"];
        assert_eq!(KeyPath::new(&k).to_string(), "policy.effects.\"fs.write\"");
        let k = ["policy", "allow", "[2]"];
        assert_eq!(KeyPath::new(&k).to_string(), "policy.allow[2]");
        let k: [&str; 0] = [];
        assert_eq!(KeyPath::new(&k).to_string(), "");
        let k = ["a b"];
        assert_eq!(KeyPath::new(&k).to_string(), "\"a b\"");
    }
}
