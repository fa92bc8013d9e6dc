//! The checks of one case against what came back.

use std::time::Duration;

use serde_json::Value;

use super::Expect;
use crate::tools::same_data;

/// What a call, read or prompt returned, as the checks see it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// Not an error (a tool's `isError`, a failed read or prompt, a denial).
    pub ok: bool,
    /// The text of the result (or of the error).
    pub text: String,
    pub structured: Option<Value>,
    pub schema: SchemaCheck,
    pub elapsed: Duration,
}

impl Observed {
    /// A tool's result as the checks see it; `has_schema`: the tool declares an
    /// `outputSchema`.
    pub fn from_tool_result(result: &crate::tools::ToolResult, has_schema: bool) -> Self {
        let schema = if !has_schema {
            SchemaCheck::NoSchema
        } else if !result.structured_mismatch.is_empty() {
            SchemaCheck::Invalid(result.structured_mismatch.clone())
        } else if result.structured.is_some() {
            SchemaCheck::Valid
        } else {
            SchemaCheck::Invalid(vec!["no structured content came back".into()])
        };
        Self {
            ok: !result.is_error,
            text: result.text_content(),
            structured: result.structured.clone(),
            schema,
            elapsed: Duration::ZERO,
        }
    }

    /// A read's or a prompt's outcome (without the newline that ends the printed form,
    /// so `$` in `expect.matches` is the end of the content).
    pub fn from_text(ok: bool, text: &str) -> Self {
        Self {
            ok,
            text: text.trim_end().to_owned(),
            ..Self::default()
        }
    }
}

/// The structured content against the tool's `outputSchema`.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum SchemaCheck {
    /// A read or a prompt: there is no schema to check.
    #[default]
    NotATool,
    /// The tool declares no `outputSchema`.
    NoSchema,
    Valid,
    /// Where it breaks the schema (`path: what`).
    Invalid(Vec<String>),
}

/// One expectation that did not hold: which (`text_contains`) and why, line by line.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub check: &'static str,
    pub detail: Vec<String>,
}

impl Failure {
    fn new(check: &'static str, detail: impl Into<String>) -> Self {
        Self {
            check,
            detail: vec![detail.into()],
        }
    }

    /// `check: first line` and the rest indented, for a report.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.detail.len());
        for (i, line) in self.detail.iter().enumerate() {
            if i == 0 {
                out.push(format!("{}: {line}", self.check));
            } else {
                out.push(format!("  {line}"));
            }
        }
        out
    }
}

/// Every expectation of `expect` that `observed` breaks (none: the case passes).
pub fn check(expect: &Expect, observed: &Observed) -> Vec<Failure> {
    let mut failures = Vec::new();
    let want_ok = expect.ok.unwrap_or(expect.error_contains.is_none());
    if observed.ok != want_ok {
        let said = if want_ok {
            "expected success, got an error"
        } else {
            "expected an error, got success"
        };
        failures.push(Failure {
            check: "ok",
            detail: vec![said.into(), format!("text: {}", excerpt(&observed.text))],
        });
    }
    if let Some(needle) = &expect.error_contains
        && (observed.ok || !observed.text.contains(needle.as_str()))
    {
        failures.push(Failure {
            check: "error_contains",
            detail: vec![
                format!("{needle:?} not in the error"),
                format!("text: {}", excerpt(&observed.text)),
            ],
        });
    }
    for needle in expect
        .text_contains
        .iter()
        .flat_map(super::OneOrMany::items)
    {
        if !observed.text.contains(needle.as_str()) {
            failures.push(Failure {
                check: "text_contains",
                detail: vec![
                    format!("{needle:?} not in the text"),
                    format!("text: {}", excerpt(&observed.text)),
                ],
            });
        }
    }
    if let Some(pattern) = &expect.matches {
        check_regex(pattern, &observed.text, &mut failures);
    }
    if let Some(subset) = &expect.structured {
        check_structured(subset, observed.structured.as_ref(), &mut failures);
    }
    if expect.schema_valid == Some(true) {
        check_schema(&observed.schema, &mut failures);
    }
    if let Some(paths) = &expect.json_path {
        check_paths(paths, observed, &mut failures);
    }
    if let Some(max) = expect.max_ms {
        let took = observed.elapsed.as_millis();
        if took > u128::from(max) {
            failures.push(Failure::new(
                "max_ms",
                format!("took {took} ms, more than {max} ms"),
            ));
        }
    }
    failures
}

fn check_regex(pattern: &str, text: &str, failures: &mut Vec<Failure>) {
    match regex::Regex::new(pattern) {
        Ok(re) if re.is_match(text) => {}
        Ok(_) => failures.push(Failure {
            check: "matches",
            detail: vec![
                format!("/{pattern}/ does not match the text"),
                format!("text: {}", excerpt(text)),
            ],
        }),
        Err(e) => failures.push(Failure::new("matches", format!("bad pattern: {e}"))),
    }
}

fn check_structured(subset: &Value, actual: Option<&Value>, failures: &mut Vec<Failure>) {
    let Some(actual) = actual else {
        failures.push(Failure::new(
            "structured",
            "no structured content came back",
        ));
        return;
    };
    let mut differences = Vec::new();
    diff_subset(subset, actual, "", &mut differences);
    if !differences.is_empty() {
        failures.push(Failure {
            check: "structured",
            detail: differences,
        });
    }
}

fn check_schema(schema: &SchemaCheck, failures: &mut Vec<Failure>) {
    let problem = match schema {
        SchemaCheck::Valid => return,
        SchemaCheck::NotATool => vec!["only a tool's result has an outputSchema".to_owned()],
        SchemaCheck::NoSchema => vec!["the tool declares no outputSchema".to_owned()],
        SchemaCheck::Invalid(problems) => problems.clone(),
    };
    failures.push(Failure {
        check: "schema_valid",
        detail: problem,
    });
}

fn check_paths(
    paths: &serde_json::Map<String, Value>,
    observed: &Observed,
    failures: &mut Vec<Failure>,
) {
    let parsed_text;
    let document = if let Some(structured) = &observed.structured {
        structured
    } else if let Ok(value) = serde_json::from_str::<Value>(&observed.text) {
        parsed_text = value;
        &parsed_text
    } else {
        failures.push(Failure::new(
            "json_path",
            "no structured content, and the text is not JSON",
        ));
        return;
    };
    for (path, want) in paths {
        let Ok(pointer) = pointer_of(path) else {
            continue;
        };
        match document.pointer(&pointer) {
            Some(found) if same_data(found, want) => {}
            Some(found) => failures.push(Failure::new(
                "json_path",
                format!("{path}: expected {}, got {}", compact(want), compact(found)),
            )),
            None => failures.push(Failure::new(
                "json_path",
                format!("{path}: nothing there (expected {})", compact(want)),
            )),
        }
    }
}

/// The JSON Pointer (RFC 6901) for `path`: a pointer as is, or a simple JSONPath
/// (`$`, `.name`, `['name']`, `[0]`) turned into one. Filters, wildcards and recursive
/// descent are refused: one path names one value.
pub fn pointer_of(path: &str) -> Result<String, String> {
    if path.is_empty() || path.starts_with('/') {
        return Ok(path.to_owned());
    }
    let refuse =
        || format!("{path:?}: use a JSON Pointer (`/a/0/b`) or a simple JSONPath (`$.a[0].b`)");
    let Some(mut rest) = path.strip_prefix('$') else {
        return Err(refuse());
    };
    let mut pointer = String::new();
    while !rest.is_empty() {
        let (segment, after) = if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            (&after[..end], &after[end..])
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or_else(refuse)?;
            let inside = &after[..end];
            let name = inside
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .or_else(|| inside.strip_prefix('"').and_then(|s| s.strip_suffix('"')));
            match name {
                Some(name) => (name, &after[end + 1..]),
                None if !inside.is_empty() && inside.chars().all(|c| c.is_ascii_digit()) => {
                    (inside, &after[end + 1..])
                }
                None => return Err(refuse()),
            }
        } else {
            return Err(refuse());
        };
        if segment.is_empty() || segment == "*" {
            return Err(refuse());
        }
        pointer.push('/');
        pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
        rest = after;
    }
    Ok(pointer)
}

/// Where `actual` does not contain `expected`: objects by their listed keys, arrays
/// item by item (same length), the rest by value. Each difference is `pointer: what`.
fn diff_subset(expected: &Value, actual: &Value, at: &str, out: &mut Vec<String>) {
    let shown = if at.is_empty() { "/" } else { at };
    match (expected, actual) {
        (Value::Object(want), Value::Object(got)) => {
            for (key, want) in want {
                let path = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                match got.get(key) {
                    Some(got) => diff_subset(want, got, &path, out),
                    None => out.push(format!("{path}: missing (expected {})", compact(want))),
                }
            }
        }
        (Value::Array(want), Value::Array(got)) if want.len() == got.len() => {
            for (i, (want, got)) in want.iter().zip(got).enumerate() {
                diff_subset(want, got, &format!("{at}/{i}"), out);
            }
        }
        (Value::Array(want), Value::Array(got)) => out.push(format!(
            "{shown}: expected {} items, got {}",
            want.len(),
            got.len()
        )),
        _ if same_data(expected, actual) => {}
        _ => out.push(format!(
            "{shown}: expected {}, got {}",
            compact(expected),
            compact(actual)
        )),
    }
}

/// One-line JSON, at most 120 characters.
fn compact(value: &Value) -> String {
    clip(&value.to_string(), 120)
}

/// The text on one line, at most 200 characters (`(empty)` when there is none).
fn excerpt(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return "(empty)".into();
    }
    clip(&one_line, 200)
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::OneOrMany;
    use serde_json::json;

    fn ok(text: &str, structured: Option<Value>) -> Observed {
        Observed {
            ok: true,
            text: text.into(),
            structured,
            schema: SchemaCheck::Valid,
            elapsed: Duration::from_millis(12),
        }
    }

    fn checks(expect: &Expect, observed: &Observed) -> Vec<&'static str> {
        check(expect, observed).iter().map(|f| f.check).collect()
    }

    #[test]
    fn success_is_expected_unless_an_error_is() {
        let error = Observed {
            ok: false,
            text: "boom: no such city".into(),
            ..Observed::default()
        };
        assert_eq!(checks(&Expect::default(), &error), ["ok"]);
        assert!(checks(&Expect::default(), &ok("fine", None)).is_empty());
        let wants_error = Expect {
            error_contains: Some("no such city".into()),
            ..Expect::default()
        };
        assert!(checks(&wants_error, &error).is_empty());
        assert_eq!(
            checks(&wants_error, &ok("fine", None)),
            ["ok", "error_contains"]
        );
        let other_error = Expect {
            error_contains: Some("timeout".into()),
            ..Expect::default()
        };
        assert_eq!(checks(&other_error, &error), ["error_contains"]);
    }

    #[test]
    fn text_regex_and_time() {
        let expect = Expect {
            text_contains: Some(OneOrMany::Many(vec!["partly".into(), "rain".into()])),
            matches: Some(r"\d+ °C".into()),
            max_ms: Some(10),
            ..Expect::default()
        };
        let failures = check(&expect, &ok("partly cloudy, 18 °C", None));
        assert_eq!(
            failures.iter().map(|f| f.check).collect::<Vec<_>>(),
            ["text_contains", "max_ms"]
        );
        assert_eq!(
            failures[0].lines(),
            [
                "text_contains: \"rain\" not in the text",
                "  text: partly cloudy, 18 °C"
            ]
        );
        assert_eq!(failures[1].lines(), ["max_ms: took 12 ms, more than 10 ms"]);
    }

    #[test]
    fn structured_is_a_subset_and_each_difference_is_named() {
        let actual = json!({"condition": "sunny", "temp": {"high": 20, "low": 11.0}, "hours": [1, 2], "extra": true});
        let expect = Expect {
            structured: Some(
                json!({"condition": "partly cloudy", "temp": {"low": 11, "feels": 9}, "hours": [1]}),
            ),
            ..Expect::default()
        };
        let failures = check(&expect, &ok("", Some(actual.clone())));
        assert_eq!(
            failures[0].detail,
            [
                "/condition: expected \"partly cloudy\", got \"sunny\"",
                "/temp/feels: missing (expected 9)",
                "/hours: expected 1 items, got 2",
            ]
        );
        let fits = Expect {
            structured: Some(json!({"temp": {"low": 11}, "hours": [1, 2]})),
            ..Expect::default()
        };
        assert!(check(&fits, &ok("", Some(actual))).is_empty());
        assert_eq!(checks(&fits, &ok("", None)), ["structured"]);
    }

    #[test]
    fn schema_validity_and_paths() {
        let expect = Expect {
            schema_valid: Some(true),
            ..Expect::default()
        };
        let mut observed = ok("", Some(json!({})));
        assert!(checks(&expect, &observed).is_empty());
        observed.schema = SchemaCheck::Invalid(vec!["/temp: missing".into()]);
        assert_eq!(check(&expect, &observed)[0].detail, ["/temp: missing"]);
        observed.schema = SchemaCheck::NoSchema;
        assert_eq!(checks(&expect, &observed), ["schema_valid"]);

        let paths = Expect {
            json_path: Some(
                json!({"$.temp.high": 20, "/list/1/name": "b", "$['a/b']": 1, "$.none": 0})
                    .as_object()
                    .cloned()
                    .unwrap(),
            ),
            ..Expect::default()
        };
        let doc = json!({"temp": {"high": 20.0}, "list": [{"name": "a"}, {"name": "c"}], "a/b": 1});
        let failures = check(&paths, &ok("", Some(doc.clone())));
        let lines: Vec<_> = failures.iter().flat_map(Failure::lines).collect();
        assert_eq!(
            lines,
            [
                "json_path: /list/1/name: expected \"b\", got \"c\"",
                "json_path: $.none: nothing there (expected 0)",
            ]
        );
        // Without structured content, the text is read as JSON.
        let from_text = ok(&doc.to_string(), None);
        assert_eq!(check(&paths, &from_text).len(), 2);
    }

    #[test]
    fn simple_jsonpath_becomes_a_pointer() {
        assert_eq!(pointer_of("$.a[0].b").unwrap(), "/a/0/b");
        assert_eq!(pointer_of("$['x.y'][\"z\"]").unwrap(), "/x.y/z");
        assert_eq!(pointer_of("$").unwrap(), "");
        assert_eq!(pointer_of("/a~1b").unwrap(), "/a~1b");
        assert_eq!(pointer_of("$.a~b/c").unwrap(), "/a~0b~1c");
        for refused in ["$..a", "$.*", "$[?(@.x)]", "a.b", "$[x]"] {
            assert!(pointer_of(refused).is_err(), "{refused}");
        }
    }
}
