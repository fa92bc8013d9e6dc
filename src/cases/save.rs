//! Saving a call that was made as a case: `expect` filled from what came back (the
//! person edits it after), appended to a collection file without touching what is
//! already written there.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{CaseModel, Expect, Observed, OneOrMany, SchemaCheck, Target, parse};
use crate::config::ConfigError;

/// Why a case could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is there but is not a collection; nothing is written to it.
    #[error("{0}")]
    Invalid(#[from] ConfigError),
    #[error("the case cannot be written as TOML: {0}")]
    Encode(#[from] toml::ser::Error),
}

/// A case that expects what `observed` is: success or the error's first line, the
/// structured content (or the text's first line), a valid output schema when it was.
pub fn case_for(server: &str, target: &Target, observed: &Observed) -> CaseModel {
    let mut expect = Expect {
        ok: Some(observed.ok),
        ..Expect::default()
    };
    let first_line = observed
        .text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| clip(l, 80));
    if !observed.ok {
        expect.error_contains = first_line;
    } else if let Some(structured) = &observed.structured {
        expect.structured = Some(without_nulls(structured));
        if observed.schema == SchemaCheck::Valid {
            expect.schema_valid = Some(true);
        }
    } else {
        expect.text_contains = first_line.map(OneOrMany::One);
    }
    let mut case = CaseModel {
        name: String::new(),
        server: server.to_owned(),
        expect,
        ..CaseModel::default()
    };
    match target {
        Target::Tool { name, args } => {
            case.args = strip(args);
            case.name = clip(&format!("{name}{}", summary(&case.args)), 70);
            case.tool = Some(name.clone());
        }
        Target::Read { uri } => {
            case.name = clip(&format!("read {uri}"), 70);
            case.resource = Some(uri.clone());
        }
        Target::Prompt { name, args } => {
            case.args = strip(args);
            case.name = clip(&format!("prompt {name}{}", summary(&case.args)), 70);
            case.prompt = Some(name.clone());
        }
    }
    case
}

/// Appends `case` to the collection at `path` (made when missing). A name already
/// used there gets ` (2)`, ` (3)`…; a file that is not a valid collection is left as
/// it is and named in the error.
pub fn append(path: &Path, mut case: CaseModel) -> Result<String, SaveError> {
    let io = |source| SaveError::Io {
        path: path.to_path_buf(),
        source,
    };
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(e)),
    };
    let cases = parse(&existing, path)?;
    let base = case.name.clone();
    let mut n = 1;
    while cases.iter().any(|c| c.name == case.name) {
        n += 1;
        case.name = format!("{base} ({n})");
    }
    let name = case.name.clone();
    let mut text = existing;
    if !text.is_empty() {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
    }
    text.push_str(&render(&case)?);
    // What is written must read back as a collection.
    parse(&text, path)?;
    let partial = path.with_extension("toml.partial");
    std::fs::write(&partial, &text).map_err(io)?;
    std::fs::rename(&partial, path).map_err(io)?;
    Ok(name)
}

/// One `[[case]]` table as a person would write it: a line per key, `args` inline and
/// each expectation as a dotted `expect.KEY = …` line.
fn render(case: &CaseModel) -> Result<String, toml::ser::Error> {
    let mut text = String::from("[[case]]\n");
    let value = serde_json::to_value(case).unwrap_or_default();
    for (key, value) in value.as_object().into_iter().flatten() {
        if key == "expect" {
            for (check, want) in value.as_object().into_iter().flatten() {
                let _ = writeln!(text, "expect.{check} = {}", inline(want)?);
            }
        } else {
            let _ = writeln!(text, "{key} = {}", inline(value)?);
        }
    }
    Ok(text)
}

/// A value as inline TOML (`{ a = 1 }`, `[1, 2]`, `"text"`).
fn inline(value: &Value) -> Result<String, toml::ser::Error> {
    Ok(toml::Value::try_from(value)?.to_string())
}

/// ` city=Paris days=3`, values as compact JSON (strings bare).
fn summary(args: &Map<String, Value>) -> String {
    args.iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!(" {k}={s}"),
            other => format!(" {k}={other}"),
        })
        .collect()
}

fn strip(args: &Map<String, Value>) -> Map<String, Value> {
    match without_nulls(&Value::Object(args.clone())) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// TOML has no null: object keys whose value is null are left out, null items of an
/// array become empty strings.
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| {
                    if v.is_null() {
                        Value::String(String::new())
                    } else {
                        without_nulls(v)
                    }
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    text.chars()
        .take(max)
        .collect::<String>()
        .trim_end()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::check;
    use serde_json::json;

    fn tool(args: &Value) -> Target {
        Target::Tool {
            name: "get_weather".into(),
            args: args.as_object().cloned().unwrap(),
        }
    }

    #[test]
    fn saved_cases_read_back_and_pass_against_what_they_came_from() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("calls.toml");
        std::fs::write(&file, "# my cases\n[[case]]\nname = \"get_weather city=Paris\"\nserver = \"weather\"\ntool = \"get_weather\"\n").unwrap();
        let structured = Observed {
            ok: true,
            text: "{…}".into(),
            structured: Some(json!({"condition": "cloudy", "gone": null, "hours": [1, null]})),
            schema: SchemaCheck::Valid,
            ..Observed::default()
        };
        let target = tool(&json!({"city": "Paris", "unit": null}));
        let case = case_for("weather", &target, &structured);
        assert_eq!(append(&file, case).unwrap(), "get_weather city=Paris (2)");
        let text_only = Observed {
            ok: false,
            text: "\n  no such city: Atlantis \nmore".into(),
            ..Observed::default()
        };
        let failing = tool(&json!({"city": "Atlantis"}));
        append(&file, case_for("weather", &failing, &text_only)).unwrap();
        let read = Target::Read {
            uri: "weather://cities".into(),
        };
        let listed = Observed {
            ok: true,
            text: "Paris\nLondon".into(),
            ..Observed::default()
        };
        append(&file, case_for("weather", &read, &listed)).unwrap();

        let text = std::fs::read_to_string(&file).unwrap();
        insta::assert_snapshot!(text, @r#"
        # my cases
        [[case]]
        name = "get_weather city=Paris"
        server = "weather"
        tool = "get_weather"

        [[case]]
        name = "get_weather city=Paris (2)"
        server = "weather"
        tool = "get_weather"
        args = { city = "Paris" }
        expect.ok = true
        expect.structured = { condition = "cloudy", hours = [1, ""] }
        expect.schema_valid = true

        [[case]]
        name = "get_weather city=Atlantis"
        server = "weather"
        tool = "get_weather"
        args = { city = "Atlantis" }
        expect.ok = false
        expect.error_contains = "no such city: Atlantis"

        [[case]]
        name = "read weather://cities"
        server = "weather"
        resource = "weather://cities"
        expect.ok = true
        expect.text_contains = "Paris"
        "#);
        let cases = crate::cases::parse(&text, &file).unwrap();
        assert_eq!(cases.len(), 4);
        assert_eq!(cases[1].target, tool(&json!({"city": "Paris"})));
        assert_eq!(
            cases[1].expect.structured,
            Some(json!({"condition": "cloudy", "hours": [1, ""]}))
        );
        assert_eq!(cases[1].expect.schema_valid, Some(true));
        assert_eq!(
            cases[2].expect.error_contains.as_deref(),
            Some("no such city: Atlantis")
        );
        assert_eq!(
            cases[3].expect.text_contains,
            Some(OneOrMany::One("Paris".into()))
        );
        // Each passes against what it was saved from (nulls aside).
        assert!(check(&cases[2].expect, &text_only).is_empty());
        assert!(check(&cases[3].expect, &listed).is_empty());
    }

    #[test]
    fn a_broken_file_is_named_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("calls.toml");
        std::fs::write(&file, "[[case]\n").unwrap();
        let observed = Observed {
            ok: true,
            ..Observed::default()
        };
        let error = append(&file, case_for("s", &tool(&json!({})), &observed)).unwrap_err();
        assert!(error.to_string().contains("calls.toml:1:"), "{error}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "[[case]\n");
    }
}
