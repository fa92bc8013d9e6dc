//! Variable expansion in imported configs: `${VAR}`, `${VAR:-default}`, `${env:VAR}`,
//! and VS Code's `${input:id}` through an [`InputResolver`].

/// Why an `${input:id}` placeholder got no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// A headless run has nobody to ask.
    #[error(
        "${{input:{id}}}{what} needs an answer from the user, which a headless run cannot give; replace it with the value or an ${{env:VAR}} reference",
        what = .description.as_ref().map_or_else(String::new, |d| format!(" ({d})"))
    )]
    Headless {
        id: String,
        description: Option<String>,
    },
    /// The user was asked but gave no answer for this id.
    #[error("${{input:{id}}} was not answered")]
    Unanswered { id: String },
}

/// Why a placeholder could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    /// A `${` without its closing `}`; `text` is the whole value.
    #[error("unterminated ${{ in {text:?}")]
    Unterminated { text: String },
    /// Not a variable name, `env:NAME`, `NAME:-default` nor `input:id`.
    #[error("unsupported placeholder ${{{body}}}")]
    Unsupported { body: String },
    /// A variable without a default that is not set.
    #[error("environment variable {name} is not set (used as ${{{body}}})")]
    Unset { name: String, body: String },
    #[error(transparent)]
    Input(#[from] InputError),
}

/// Answers `${input:id}` placeholders (VS Code `inputs`). The TUI prompts the user;
/// headless runs use [`Headless`], which refuses.
pub trait InputResolver {
    /// `description` and `password` come from the file's `inputs` entry, when present.
    fn resolve(
        &self,
        id: &str,
        description: Option<&str>,
        password: bool,
    ) -> Result<String, InputError>;
}

/// Refuses every `${input:…}`: there is nobody to ask.
#[derive(Debug, Clone, Copy, Default)]
pub struct Headless;

impl InputResolver for Headless {
    fn resolve(
        &self,
        id: &str,
        description: Option<&str>,
        _password: bool,
    ) -> Result<String, InputError> {
        Err(InputError::Headless {
            id: id.to_owned(),
            description: description.map(str::to_owned),
        })
    }
}

/// Answers the user gave (in the TUI's input prompt), by input id.
#[derive(Debug, Clone, Default)]
pub struct Answers(pub std::collections::BTreeMap<String, String>);

impl InputResolver for Answers {
    fn resolve(&self, id: &str, _: Option<&str>, _: bool) -> Result<String, InputError> {
        self.0
            .get(id)
            .cloned()
            .ok_or_else(|| InputError::Unanswered { id: id.to_owned() })
    }
}

/// The `${input:id}` placeholders in `text`, each once, in the order they first appear.
pub fn input_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${input:") {
        let after = &rest[start + "${input:".len()..];
        let Some(end) = after.find('}') else { break };
        let id = &after[..end];
        if !id.is_empty() && !ids.iter().any(|known| known == id) {
            ids.push(id.to_owned());
        }
        rest = &after[end..];
    }
    ids
}

/// A VS Code `inputs` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputSpec {
    pub id: String,
    pub description: Option<String>,
    pub password: bool,
}

/// The environment and inputs used while expanding.
pub struct Expander<'a> {
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub inputs: &'a [InputSpec],
    pub resolver: &'a dyn InputResolver,
    /// Writing a config file: [`Expander::expand_secret`] keeps environment references
    /// (as `${VAR}`, which switchboard expands when the server starts) instead of
    /// writing their values into the file.
    pub keep_env: bool,
}

impl Expander<'_> {
    /// Like [`Expander::expand`] for values that may hold secrets (headers, `env`):
    /// with `keep_env`, `${VAR}`, `${env:VAR}` and `${VAR:-default}` stay references
    /// (`${VAR}`, `${VAR:-default}`); `${input:…}` is still resolved.
    pub fn expand_secret(&self, text: &str) -> Result<String, ExpandError> {
        if !self.keep_env {
            return self.expand(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find('}').ok_or_else(|| ExpandError::Unterminated {
                text: text.to_owned(),
            })?;
            let body = &after[..end];
            if body.starts_with("input:") {
                out.push_str(&self.placeholder(body)?);
            } else {
                let body = body.strip_prefix("env:").unwrap_or(body);
                out.push_str("${");
                out.push_str(body);
                out.push('}');
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Expands every placeholder in `text`. An unset variable without a default, an
    /// unterminated `${`, or an unanswerable input is an error naming it.
    pub fn expand(&self, text: &str) -> Result<String, ExpandError> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find('}').ok_or_else(|| ExpandError::Unterminated {
                text: text.to_owned(),
            })?;
            out.push_str(&self.placeholder(&after[..end])?);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn placeholder(&self, body: &str) -> Result<String, ExpandError> {
        if let Some(id) = body.strip_prefix("input:") {
            let spec = self.inputs.iter().find(|i| i.id == id);
            return Ok(self.resolver.resolve(
                id,
                spec.and_then(|s| s.description.as_deref()),
                spec.is_some_and(|s| s.password),
            )?);
        }
        let body = body.strip_prefix("env:").unwrap_or(body);
        let (name, default) = match body.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (body, None),
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(ExpandError::Unsupported {
                body: body.to_owned(),
            });
        }
        match ((self.env)(name), default) {
            (Some(value), _) if !value.is_empty() || default.is_none() => Ok(value),
            (_, Some(default)) => Ok(default.to_owned()),
            (None, None) => Err(ExpandError::Unset {
                name: name.to_owned(),
                body: body.to_owned(),
            }),
            (Some(value), None) => Ok(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    fn expander(resolver: &dyn InputResolver) -> Expander<'_> {
        Expander {
            env: &env,
            inputs: &[],
            resolver,
            keep_env: false,
        }
    }

    #[test]
    fn all_forms_expand() {
        let e = expander(&Headless);
        assert_eq!(e.expand("${HOME}/x").unwrap(), "/home/me/x");
        assert_eq!(e.expand("${env:HOME}").unwrap(), "/home/me");
        assert_eq!(e.expand("${NOPE:-fallback}").unwrap(), "fallback");
        assert_eq!(e.expand("${EMPTY:-fallback}").unwrap(), "fallback");
        assert_eq!(e.expand("a${HOME}b${HOME}").unwrap(), "a/home/meb/home/me");
        assert_eq!(e.expand("plain $HOME").unwrap(), "plain $HOME");
    }

    #[test]
    fn failures_name_the_placeholder() {
        let e = expander(&Headless);
        assert!(
            e.expand("${NOPE}")
                .unwrap_err()
                .to_string()
                .contains("NOPE is not set")
        );
        assert!(
            e.expand("${HOME")
                .unwrap_err()
                .to_string()
                .contains("unterminated")
        );
        let err = e.expand("${input:token}").unwrap_err().to_string();
        assert!(
            err.contains("${input:token}") && err.contains("headless"),
            "{err}"
        );
    }

    #[test]
    fn secrets_keep_their_references_when_writing_a_file() {
        let keep = Expander {
            keep_env: true,
            ..expander(&Headless)
        };
        assert_eq!(
            keep.expand_secret("Bearer ${env:HOME}").unwrap(),
            "Bearer ${HOME}"
        );
        assert_eq!(keep.expand_secret("${NOPE:-x}").unwrap(), "${NOPE:-x}");
        assert_eq!(
            expander(&Headless).expand_secret("${HOME}").unwrap(),
            "/home/me"
        );
    }

    #[test]
    fn input_ids_are_found_once_in_order() {
        let text = r#"{"a": "${input:token}", "b": "x${input:host}y", "c": "${input:token}", "d": "${input:}"}"#;
        assert_eq!(input_ids(text), ["token", "host"]);
        assert!(input_ids("${input:open").is_empty());
    }

    #[test]
    fn answers_resolve_what_was_given_and_name_what_was_not() {
        let answers = Answers([("key".to_owned(), "s3cret".to_owned())].into());
        let e = expander(&answers);
        assert_eq!(e.expand("Bearer ${input:key}").unwrap(), "Bearer s3cret");
        assert!(
            e.expand("${input:other}")
                .unwrap_err()
                .to_string()
                .contains("other")
        );
    }

    #[test]
    fn inputs_go_to_the_resolver() {
        struct Answer;
        impl InputResolver for Answer {
            fn resolve(&self, id: &str, _: Option<&str>, _: bool) -> Result<String, InputError> {
                Ok(format!("answer-{id}"))
            }
        }
        assert_eq!(
            expander(&Answer).expand("${input:key}").unwrap(),
            "answer-key"
        );
    }
}
