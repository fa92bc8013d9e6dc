//! Collections of saved calls, as tests of MCP servers: a TOML file of cases (a tool
//! call, a resource read or a prompt get, each with what it should return), the checks
//! of one case against what came back, a JUnit report, and saving a case from a call
//! that was made. `switchboard test` (cli) runs them through the gate.
//!
//! ```toml
//! [[case]]
//! name = "paris is partly cloudy"
//! server = "weather"
//! tool = "get_weather"
//! args = { city = "Paris" }
//! expect.text_contains = "partly cloudy"
//! ```

mod expect;
mod junit;
mod save;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::{ConfigError, SourceMap, decode_toml, line_column};

pub use expect::{Failure, Observed, SchemaCheck, check};
pub use junit::{CaseReport, Outcome, junit_xml};
pub use save::{SaveError, append, case_for};

/// The file a saved case goes to when none is named.
pub const DEFAULT_FILE: &str = "switchboard.calls.toml";

/// The file as written: `[[case]]` tables.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileModel {
    #[serde(default)]
    case: Vec<CaseModel>,
}

/// One `[[case]]` as written.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CaseModel {
    pub name: String,
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub args: Map<String, Value>,
    #[serde(default)]
    pub expect: Expect,
}

/// What a case should return. Unset fields are not checked, except `ok`: a case
/// expects success unless it says `ok = false` or gives `error_contains`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// Text the result must contain (one string, or several that all must).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_contains: Option<OneOrMany>,
    /// The call must fail, with this in its error text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_contains: Option<String>,
    /// A regular expression the text must match (Rust `regex` syntax).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    /// A subset the structured content must contain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// The structured content must satisfy the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_valid: Option<bool>,
    /// JSON Pointer (RFC 6901, `/a/0/b`) or simple JSONPath (`$.a[0].b`) → the value
    /// found there, in the structured content (else in the text read as JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_path: Option<Map<String, Value>>,
    /// The call must take at most this many milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ms: Option<u64>,
}

/// One string or a list of them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub fn items(&self) -> &[String] {
        match self {
            Self::One(one) => std::slice::from_ref(one),
            Self::Many(many) => many,
        }
    }
}

/// What a case asks of its server.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Tool {
        name: String,
        args: Map<String, Value>,
    },
    Read {
        uri: String,
    },
    Prompt {
        name: String,
        args: Map<String, Value>,
    },
}

impl Target {
    /// `tool get_weather`, `read weather://cities`, `prompt greet`.
    pub fn label(&self) -> String {
        match self {
            Self::Tool { name, .. } => format!("tool {name}"),
            Self::Read { uri } => format!("read {uri}"),
            Self::Prompt { name, .. } => format!("prompt {name}"),
        }
    }
}

/// One case, checked and ready to run.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub server: String,
    pub target: Target,
    pub expect: Expect,
    /// Where it is written (for reports).
    pub file: PathBuf,
    pub line: usize,
}

/// Why a collection could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CasesError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(#[from] ConfigError),
}

/// Reads the cases of the file at `path`.
pub fn load(path: &Path) -> Result<Vec<Case>, CasesError> {
    let text = std::fs::read_to_string(path).map_err(|source| CasesError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(parse(&text, path)?)
}

/// The cases of `text` (the content of `path`); a problem names the file, line and key.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Case>, ConfigError> {
    let file: FileModel = decode_toml(text, path)?;
    let map = SourceMap::parse(text).ok();
    let mut cases = Vec::with_capacity(file.case.len());
    for (index, model) in file.case.into_iter().enumerate() {
        let span = map
            .as_ref()
            .map_or(0..0, |m| m.element_span(&["case"], index));
        let fail = |key: &str, message: &str| {
            ConfigError::at(
                path,
                text,
                span.clone(),
                format!("case[{index}]{key}"),
                message,
                None,
            )
        };
        let target = target_of(&model).map_err(|m| fail("", m))?;
        if let Some(pattern) = &model.expect.matches
            && let Err(e) = regex::Regex::new(pattern)
        {
            return Err(fail(
                ".expect.matches",
                &format!("not a regular expression: {e}"),
            ));
        }
        if let Some(paths) = &model.expect.json_path {
            for key in paths.keys() {
                if let Err(e) = expect::pointer_of(key) {
                    return Err(fail(".expect.json_path", &e));
                }
            }
        }
        if model.name.trim().is_empty() || model.server.trim().is_empty() {
            return Err(fail("", "`name` and `server` must not be empty"));
        }
        cases.push(Case {
            name: model.name,
            server: model.server,
            target,
            expect: model.expect,
            file: path.to_path_buf(),
            line: line_column(text, span.start).0,
        });
    }
    Ok(cases)
}

fn target_of(model: &CaseModel) -> Result<Target, &'static str> {
    let args = model.args.clone();
    match (&model.tool, &model.resource, &model.prompt) {
        (Some(name), None, None) => Ok(Target::Tool {
            name: name.clone(),
            args,
        }),
        (None, Some(uri), None) if args.is_empty() => Ok(Target::Read { uri: uri.clone() }),
        (None, Some(_), None) => Err("a `resource` read takes no `args`"),
        (None, None, Some(name)) => Ok(Target::Prompt {
            name: name.clone(),
            args,
        }),
        _ => Err("give exactly one of `tool`, `resource` or `prompt`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<Case>, String> {
        parse(text, Path::new("calls.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_tool_a_read_and_a_prompt() {
        let cases = parsed(
            r#"
[[case]]
name = "paris"
server = "weather"
tool = "get_weather"
args = { city = "Paris" }
expect.text_contains = "cloudy"
expect.structured = { condition = "cloudy" }

[[case]]
name = "cities"
server = "weather"
resource = "weather://cities"
expect.ok = true

[[case]]
name = "greeting"
server = "weather"
prompt = "greet"
args = { name = "Ann" }
expect.text_contains = ["Hello", "Ann"]
"#,
        )
        .unwrap();
        assert_eq!(cases.len(), 3);
        assert_eq!(
            cases[0].target,
            Target::Tool {
                name: "get_weather".into(),
                args: serde_json::json!({"city": "Paris"})
                    .as_object()
                    .cloned()
                    .unwrap()
            }
        );
        assert_eq!(cases[0].line, 2);
        assert_eq!(
            cases[0].expect.structured,
            Some(serde_json::json!({"condition": "cloudy"}))
        );
        assert_eq!(
            cases[1].target,
            Target::Read {
                uri: "weather://cities".into()
            }
        );
        assert_eq!(cases[1].line, 10);
        assert_eq!(
            cases[2].expect.text_contains.as_ref().unwrap().items(),
            ["Hello", "Ann"]
        );
    }

    #[test]
    fn problems_name_the_file_line_and_key() {
        let unknown = parsed(
            "[[case]]\nname = \"a\"\nserver = \"s\"\ntool = \"t\"\nexpect.text_contain = \"x\"\n",
        );
        let unknown = unknown.unwrap_err();
        assert!(unknown.starts_with("calls.toml:5:"), "{unknown}");
        assert!(unknown.contains("text_contain"), "{unknown}");

        let two = parsed("[[case]]\nname = \"a\"\nserver = \"s\"\n\n[[case]]\nname = \"b\"\nserver = \"s\"\ntool = \"t\"\nprompt = \"p\"\n").unwrap_err();
        assert!(two.starts_with("calls.toml:1:"), "{two}");
        let two_b =
            parsed("[[case]]\nname = \"a\"\nserver = \"s\"\ntool = \"t\"\n\n[[case]]\nname = \"b\"\nserver = \"s\"\ntool = \"t\"\nprompt = \"p\"\n")
                .unwrap_err();
        assert!(two_b.starts_with("calls.toml:6:"), "{two_b}");
        assert!(two_b.contains("`case[1]`"), "{two_b}");
        assert!(two_b.contains("exactly one of"), "{two_b}");

        let regex = parsed(
            "[[case]]\nname = \"a\"\nserver = \"s\"\ntool = \"t\"\nexpect.matches = \"(\"\n",
        )
        .unwrap_err();
        assert!(regex.contains("case[0].expect.matches"), "{regex}");

        let path = parsed("[[case]]\nname = \"a\"\nserver = \"s\"\ntool = \"t\"\nexpect.json_path = { \"$..x\" = 1 }\n").unwrap_err();
        assert!(path.contains("case[0].expect.json_path"), "{path}");

        let syntax = parsed("[[case]\n").unwrap_err();
        assert!(syntax.starts_with("calls.toml:1:"), "{syntax}");
    }
}
