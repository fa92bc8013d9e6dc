//! The YAML-ish front matter of a `SKILL.md`: `---`, `key: value` lines, `---`.
//!
//! Only flat keys are read (`name`, `description`, `version`, others ignored); a value
//! may be quoted, or `>` / `|` followed by indented lines. Nested YAML is skipped.

use std::collections::BTreeMap;

/// Why front matter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontMatterError {
    #[error("no front matter: the file must start with a `---` line")]
    Missing,
    #[error("the front matter has no closing `---` within {0} lines")]
    TooLong(usize),
    #[error("front matter line {line} is not `key: value`: {text:?}")]
    BadLine { line: usize, text: String },
}

/// Parsed front matter and the body after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatter<'a> {
    pub fields: BTreeMap<String, String>,
    pub body: &'a str,
}

/// Splits `text` into front matter (at most `max_lines` lines between the fences) and
/// body.
pub fn parse(text: &str, max_lines: usize) -> Result<FrontMatter<'_>, FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rest = match text.split_once('\n') {
        Some((first, rest)) if first.trim_end() == "---" => rest,
        _ => return Err(FrontMatterError::Missing),
    };
    let mut lines = Vec::new();
    loop {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        if line.trim_end() == "---" {
            rest = after;
            break;
        }
        if lines.len() == max_lines || (after.is_empty() && !rest.contains('\n')) {
            return Err(if lines.len() == max_lines {
                FrontMatterError::TooLong(max_lines)
            } else {
                FrontMatterError::Missing
            });
        }
        lines.push(line);
        rest = after;
    }
    Ok(FrontMatter {
        fields: fields(&lines)?,
        body: rest,
    })
}

fn fields(lines: &[&str]) -> Result<BTreeMap<String, String>, FrontMatterError> {
    let mut fields = BTreeMap::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        i += 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') || indented(line) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(FrontMatterError::BadLine {
                line: i + 1,
                text: line.to_owned(),
            });
        };
        let value = value.trim();
        let value = if matches!(value, ">" | "|" | ">-" | "|-" | "") {
            let mut block = Vec::new();
            while i < lines.len() && (indented(lines[i]) || lines[i].trim().is_empty()) {
                block.push(lines[i].trim());
                i += 1;
            }
            let sep = if value.starts_with('|') { "\n" } else { " " };
            block.join(sep).trim().to_owned()
        } else {
            unquote(value).to_owned()
        };
        fields.insert(key.trim().to_owned(), value);
    }
    Ok(fields)
}

fn indented(line: &str) -> bool {
    line.starts_with(' ') || line.starts_with('\t')
}

fn unquote(value: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_flat_keys_quotes_and_blocks() {
        let text = "---\nname: a\ndescription: >\n  one\n  two\nversion: \"1.0\"\nmetadata:\n  x: y\n---\nbody\n";
        let fm = parse(text, 32).unwrap();
        assert_eq!(fm.fields["name"], "a");
        assert_eq!(fm.fields["description"], "one two");
        assert_eq!(fm.fields["version"], "1.0");
        assert_eq!(fm.body, "body\n");
    }

    #[test]
    fn refuses_missing_unclosed_and_long() {
        assert_eq!(parse("# hi\n", 32), Err(FrontMatterError::Missing));
        assert_eq!(parse("---\nname: a\n", 32), Err(FrontMatterError::Missing));
        let long = format!("---\n{}---\n", "a: b\n".repeat(40));
        assert_eq!(parse(&long, 32), Err(FrontMatterError::TooLong(32)));
    }
}
