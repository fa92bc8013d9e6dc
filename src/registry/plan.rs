//! From a registry entry to a `[servers.NAME]` entry: which way to run or reach the
//! server (a remote, streamable HTTP before SSE, or a package: npm, pypi, oci), the
//! values it asks for, and the entry itself. Built as argv, never a shell line.
//! Secrets are never written: a secret environment variable or header becomes a
//! `${VAR}` reference, expanded from the environment when the server starts; a secret
//! that would land where nothing expands it (an argument, a URL) is refused.

use std::collections::BTreeMap;

use super::types::{Argument, Input, KeyValueInput, Package, Remote, ServerJson};
use crate::config::ServerConfig;

/// Why an entry cannot become a server entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("`{0}` has neither a remote nor a package switchboard can run")]
    Nothing(String),
    #[error(
        "`{0}` is published only as an MCP bundle (mcpb), which switchboard does not download; install it by hand and add it with `switchboard mcp add`"
    )]
    Bundle(String),
    #[error(
        "`{name}` is published only as a {kind} package, which switchboard cannot run (it runs npm, pypi and oci packages and remotes)"
    )]
    Unsupported { name: String, kind: String },
    #[error(
        "`{0}`'s package serves HTTP once started, which switchboard does not start for you; run it yourself and add its URL with `switchboard mcp add NAME --url URL`"
    )]
    LocalHttp(String),
    #[error("{0:?} is not a package name switchboard will put on a command line")]
    BadIdentifier(String),
    #[error(
        "{0} is secret, and switchboard never writes a secret into a command line or a URL; add the server by hand with `switchboard mcp add`"
    )]
    SecretNotExpandable(String),
    #[error("{0}: not an argument switchboard understands")]
    BadArgument(String),
    /// The flags that would give the missing values (`--arg tenant`).
    #[error("{}", missing_text(.0))]
    Missing(Vec<String>),
}

fn missing_text(flags: &[String]) -> String {
    let examples: Vec<String> = flags.iter().map(|f| format!("{f}=VALUE")).collect();
    format!(
        "no value for {}: give it on the command line, e.g. {}",
        flags.join(", "),
        examples.join(" ")
    )
}

/// How the server will be run or reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice<'a> {
    Remote(&'a Remote),
    Package(&'a Package),
}

impl<'a> Choice<'a> {
    /// `remote`, `npm`, `pypi` or `oci`.
    pub fn source(&self) -> &'a str {
        match self {
            Self::Remote(_) => "remote",
            Self::Package(p) => &p.registry_type,
        }
    }
}

/// Picks how to install `server`: a remote (streamable HTTP, then SSE) or a package
/// switchboard can run (npm, pypi, oci over stdio); `prefer_package` puts packages
/// first.
pub fn choose(server: &ServerJson, prefer_package: bool) -> Result<Choice<'_>, PlanError> {
    let remote = ["streamable-http", "sse"]
        .iter()
        .find_map(|kind| server.remotes.iter().find(|r| r.kind == *kind))
        .map(Choice::Remote);
    let package = server
        .packages
        .iter()
        .find(|p| {
            matches!(p.registry_type.as_str(), "npm" | "pypi" | "oci")
                && p.transport.kind == "stdio"
        })
        .map(Choice::Package);
    let chosen = if prefer_package {
        package.or(remote)
    } else {
        remote.or(package)
    };
    if let Some(choice) = chosen {
        return Ok(choice);
    }
    let name = server.name.clone();
    let runnable = |p: &&Package| matches!(p.registry_type.as_str(), "npm" | "pypi" | "oci");
    if server.packages.iter().any(|p| runnable(&p)) {
        return Err(PlanError::LocalHttp(name));
    }
    match server.packages.first().map(|p| p.registry_type.as_str()) {
        Some("mcpb") => Err(PlanError::Bundle(name)),
        Some(kind) => Err(PlanError::Unsupported {
            name,
            kind: if kind.is_empty() { "unnamed" } else { kind }.to_owned(),
        }),
        None => Err(PlanError::Nothing(name)),
    }
}

/// Which flag answers a question: `--env NAME=VALUE` (environment variables) or
/// `--arg NAME=VALUE` (arguments, headers, variables of a URL or a value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Flag {
    Env,
    Arg,
}

impl Flag {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Env => "--env",
            Self::Arg => "--arg",
        }
    }
}

/// The values given for an install, by flag and name.
pub type Answers = BTreeMap<(Flag, String), String>;

/// A value the entry asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub flag: Flag,
    /// The name to answer with (`--env KEY=…`, `--arg KEY=…`).
    pub key: String,
    /// What it is: `environment variable API_URL`, `argument --port`, `header X-Team`.
    pub what: String,
    pub description: Option<String>,
    pub required: bool,
    pub default: Option<String>,
    pub choices: Vec<String>,
}

/// A secret the entry names as a `${VAR}` reference: the variable must be exported
/// before the server starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    pub var: String,
    pub what: String,
    pub description: Option<String>,
}

/// What `mcp install` writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub server: ServerConfig,
    /// `remote`, `npm`, `pypi` or `oci`.
    pub source: String,
    pub secrets: Vec<Secret>,
}

impl Plan {
    /// What will be written, a line each (not sanitized: the front end does that):
    /// `command: …` (argv quoted as a shell would read it) or `url: …`, then
    /// `env: K=V` and `header: K=V`.
    pub fn shown(&self) -> Vec<String> {
        let entry = &self.server;
        let mut out = Vec::new();
        if let Some(command) = &entry.command {
            let mut argv = vec![command.as_str()];
            argv.extend(entry.args.iter().map(String::as_str));
            let line = shlex::try_join(argv).unwrap_or_else(|_| entry.args.join(" "));
            out.push(format!("command: {line}"));
        }
        if let Some(url) = &entry.url {
            out.push(format!("url: {url}"));
        }
        for (label, map) in [("env", &entry.env), ("header", &entry.headers)] {
            for (name, value) in map {
                out.push(format!("{label}: {name}={value}"));
            }
        }
        out
    }
}

/// The questions the chosen way asks, in order (fixed values and secrets are not
/// asked).
pub fn questions(choice: Choice<'_>) -> Result<Vec<Question>, PlanError> {
    let answers = Answers::new();
    let mut fill = Filler::new(&answers);
    fill.entry(choice)?;
    Ok(fill.asked)
}

/// The server entry for `choice` with `answers` (a question not answered takes its
/// default); a required value with neither is [`PlanError::Missing`].
pub fn build(choice: Choice<'_>, answers: &Answers) -> Result<Plan, PlanError> {
    let mut fill = Filler::new(answers);
    let server = fill.entry(choice)?;
    if !fill.missing.is_empty() {
        return Err(PlanError::Missing(fill.missing));
    }
    Ok(Plan {
        server,
        source: choice.source().to_owned(),
        secrets: fill.secrets,
    })
}

/// The name of the config entry: the part of `namespace/name` after the `/`, in
/// letters, digits, `-` and `_` (never `__`, which separates a server from its tools).
pub fn config_name(registry_name: &str) -> String {
    let short = registry_name.rsplit('/').next().unwrap_or(registry_name);
    let mut out = String::new();
    for c in short.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' {
            c.to_ascii_lowercase()
        } else {
            '-'
        };
        let doubled = matches!((out.chars().last(), c), (Some('-'), '-') | (Some('_'), '_'));
        if !doubled {
            out.push(c);
        }
    }
    let out = out.trim_matches(['-', '_']).to_owned();
    if out.is_empty() { "server".into() } else { out }
}

/// `X-Api-Key` → `X_API_KEY`: the environment variable a secret is read from.
fn env_var_name(name: &str) -> String {
    let out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{out}")
    } else {
        out
    }
}

/// Where a value lands: env and headers expand `${VAR}`, arguments and URLs do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Expands,
    Literal,
}

/// Walks an entry's inputs, answering each from the answers or its default, and
/// keeping what it asked, what is missing and which secrets it referred to.
struct Filler<'a> {
    answers: &'a Answers,
    asked: Vec<Question>,
    missing: Vec<String>,
    secrets: Vec<Secret>,
}

impl<'a> Filler<'a> {
    fn new(answers: &'a Answers) -> Self {
        Self {
            answers,
            asked: Vec::new(),
            missing: Vec::new(),
            secrets: Vec::new(),
        }
    }

    fn entry(&mut self, choice: Choice<'_>) -> Result<ServerConfig, PlanError> {
        match choice {
            Choice::Remote(remote) => self.remote(remote),
            Choice::Package(package) => self.package(package),
        }
    }

    fn remote(&mut self, remote: &Remote) -> Result<ServerConfig, PlanError> {
        let url = self.template(&remote.url, &remote.variables, "the URL", Place::Literal)?;
        let headers = self.named_values(&remote.headers, "header", Flag::Arg)?;
        Ok(ServerConfig {
            url: Some(url),
            headers,
            transport: Some(if remote.kind == "sse" { "sse" } else { "http" }.into()),
            ..ServerConfig::default()
        })
    }

    fn package(&mut self, package: &Package) -> Result<ServerConfig, PlanError> {
        let ident = checked(&package.identifier)?;
        let version = package.version.as_deref().map(checked).transpose()?;
        let env = self.named_values(
            &package.environment_variables,
            "environment variable",
            Flag::Env,
        )?;
        let mut runtime = Vec::new();
        self.arguments(&package.runtime_arguments, &mut runtime)?;
        let (command, mut args, spec) = match package.registry_type.as_str() {
            "npm" => {
                let yes = runtime.iter().any(|a| a == "-y" || a == "--yes");
                let lead = if yes {
                    Vec::new()
                } else {
                    vec!["-y".to_owned()]
                };
                let spec = version.map_or_else(|| ident.to_owned(), |v| format!("{ident}@{v}"));
                ("npx", lead, spec)
            }
            "pypi" => {
                let spec = version.map_or_else(|| ident.to_owned(), |v| format!("{ident}=={v}"));
                ("uvx", Vec::new(), spec)
            }
            _ => {
                // docker passes a variable named with `-e NAME` from its own environment.
                let mut lead: Vec<String> = ["run", "-i", "--rm"].map(str::to_owned).to_vec();
                for name in env.keys() {
                    lead.extend(["-e".to_owned(), name.clone()]);
                }
                let tagged = ident
                    .rsplit('/')
                    .next()
                    .is_some_and(|l| l.contains([':', '@']));
                let spec = match version {
                    Some(v) if !tagged => format!("{ident}:{v}"),
                    _ => ident.to_owned(),
                };
                ("docker", lead, spec)
            }
        };
        args.extend(runtime);
        args.push(spec);
        self.arguments(&package.package_arguments, &mut args)?;
        Ok(ServerConfig {
            command: Some(command.into()),
            args,
            env,
            ..ServerConfig::default()
        })
    }

    /// Environment variables or headers: name → value, leaving out optional ones
    /// nobody gave.
    fn named_values(
        &mut self,
        items: &[KeyValueInput],
        kind: &str,
        flag: Flag,
    ) -> Result<BTreeMap<String, String>, PlanError> {
        let mut out = BTreeMap::new();
        for item in items {
            let what = format!("{kind} {}", item.name);
            if let Some(value) = self.value(&item.name, flag, &what, &item.input, Place::Expands)? {
                out.insert(item.name.clone(), value);
            }
        }
        Ok(out)
    }

    fn arguments(&mut self, items: &[Argument], out: &mut Vec<String>) -> Result<(), PlanError> {
        for (i, arg) in items.iter().enumerate() {
            match (arg.kind.as_str(), &arg.name) {
                ("named", Some(name)) if !name.trim().is_empty() => {
                    let key = name.trim_start_matches('-');
                    let what = format!("argument {name}");
                    if bare_flag(&arg.input) {
                        out.push(name.clone());
                    } else if let Some(v) =
                        self.value(key, Flag::Arg, &what, &arg.input, Place::Literal)?
                    {
                        out.extend([name.clone(), v]);
                    }
                }
                ("positional", _) => {
                    let key = arg
                        .value_hint
                        .clone()
                        .unwrap_or_else(|| format!("arg{}", i + 1));
                    let what = format!("argument <{key}>");
                    if let Some(v) =
                        self.value(&key, Flag::Arg, &what, &arg.input, Place::Literal)?
                    {
                        out.push(v);
                    }
                }
                _ => {
                    return Err(PlanError::BadArgument(format!(
                        "{} argument #{}",
                        arg.kind,
                        i + 1
                    )));
                }
            }
        }
        Ok(())
    }

    /// One input's value: its fixed value (variables filled), a `${VAR}` reference
    /// for a secret, else the answer or the default; `None` when optional and not given.
    fn value(
        &mut self,
        key: &str,
        flag: Flag,
        what: &str,
        input: &Input,
        place: Place,
    ) -> Result<Option<String>, PlanError> {
        if let Some(template) = &input.value {
            return self
                .template(template, &input.variables, what, place)
                .map(Some);
        }
        if input.is_secret {
            return self
                .secret(&env_var_name(key), what, input, place)
                .map(Some);
        }
        self.asked.push(Question {
            flag,
            key: key.to_owned(),
            what: what.to_owned(),
            description: input.description.clone(),
            required: input.is_required,
            default: input.default.clone(),
            choices: input.choices.clone(),
        });
        let given = self.answers.get(&(flag, key.to_owned())).cloned();
        let value = given
            .or_else(|| input.default.clone())
            .filter(|v| !v.is_empty());
        if value.is_none() && input.is_required {
            self.missing.push(format!("{} {key}", flag.as_str()));
        }
        Ok(value)
    }

    fn secret(
        &mut self,
        var: &str,
        what: &str,
        input: &Input,
        place: Place,
    ) -> Result<String, PlanError> {
        if place == Place::Literal {
            return Err(PlanError::SecretNotExpandable(what.to_owned()));
        }
        if !self.secrets.iter().any(|s| s.var == var) {
            self.secrets.push(Secret {
                var: var.to_owned(),
                what: what.to_owned(),
                description: input.description.clone(),
            });
        }
        Ok(format!("${{{var}}}"))
    }

    /// `template` with each `{x}` replaced by the variable `x`'s value; a variable
    /// in the text is needed even when the entry does not say it is required.
    fn template(
        &mut self,
        template: &str,
        variables: &BTreeMap<String, Input>,
        what: &str,
        place: Place,
    ) -> Result<String, PlanError> {
        let mut out = template.to_owned();
        for (name, variable) in variables {
            let marker = format!("{{{name}}}");
            if !template.contains(&marker) {
                continue;
            }
            let inner = format!("{{{name}}} in {what}");
            let value = if variable.is_secret {
                self.secret(&env_var_name(name), &inner, variable, place)?
            } else {
                let needed = Input {
                    is_required: true,
                    ..variable.clone()
                };
                self.value(name, Flag::Arg, &inner, &needed, place)?
                    .unwrap_or_default()
            };
            out = out.replace(&marker, &value);
        }
        Ok(out)
    }
}

/// A named argument with nothing to fill (no value, default, choices or description)
/// is a flag given as it is, e.g. `--stdio`.
fn bare_flag(input: &Input) -> bool {
    input.value.is_none()
        && input.default.is_none()
        && input.choices.is_empty()
        && input.description.is_none()
        && !input.is_required
        && !input.is_secret
}

/// A package name or version fit for argv: not empty, no white space or control
/// characters, not starting with `-` (it would read as an option).
fn checked(text: &str) -> Result<&str, PlanError> {
    let bad = text.is_empty()
        || text.starts_with('-')
        || text.chars().any(|c| c.is_whitespace() || c.is_control());
    if bad {
        Err(PlanError::BadIdentifier(text.to_owned()))
    } else {
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn server(value: serde_json::Value) -> ServerJson {
        serde_json::from_value(value).unwrap()
    }

    fn answers(pairs: &[(Flag, &str, &str)]) -> Answers {
        pairs
            .iter()
            .map(|(f, k, v)| ((*f, (*k).to_owned()), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn npm_runs_with_npx_and_secrets_are_references() {
        let s = server(json!({
            "name": "io.github.acme/weather",
            "packages": [{
                "registryType": "npm", "identifier": "@acme/weather-mcp", "version": "1.2.3",
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "named", "name": "--units", "default": "metric", "description": "units"},
                    {"type": "positional", "valueHint": "city", "isRequired": true},
                    {"type": "named", "name": "--stdio"}
                ],
                "environmentVariables": [
                    {"name": "WEATHER_API_KEY", "isSecret": true, "isRequired": true},
                    {"name": "WEATHER_REGION", "description": "region", "isRequired": true},
                    {"name": "WEATHER_DEBUG"}
                ]
            }]
        }));
        let choice = choose(&s, false).unwrap();
        let asked: Vec<String> = questions(choice)
            .unwrap()
            .iter()
            .map(|q| format!("{} {}", q.flag.as_str(), q.key))
            .collect();
        assert_eq!(
            asked,
            [
                "--env WEATHER_REGION",
                "--env WEATHER_DEBUG",
                "--arg units",
                "--arg city"
            ]
        );
        let missing = build(choice, &Answers::new()).unwrap_err();
        assert_eq!(
            missing,
            PlanError::Missing(vec!["--env WEATHER_REGION".into(), "--arg city".into()])
        );
        let given = answers(&[
            (Flag::Env, "WEATHER_REGION", "eu"),
            (Flag::Arg, "city", "Lyon"),
        ]);
        let plan = build(choice, &given).unwrap();
        assert_eq!(plan.source, "npm");
        assert_eq!(plan.server.command.as_deref(), Some("npx"));
        assert_eq!(
            plan.server.args,
            [
                "-y",
                "@acme/weather-mcp@1.2.3",
                "--units",
                "metric",
                "Lyon",
                "--stdio"
            ]
        );
        assert_eq!(
            plan.server.env,
            BTreeMap::from([
                ("WEATHER_API_KEY".into(), "${WEATHER_API_KEY}".into()),
                ("WEATHER_REGION".into(), "eu".into()),
            ])
        );
        assert_eq!(plan.secrets.len(), 1);
        assert_eq!(plan.secrets[0].var, "WEATHER_API_KEY");
    }

    #[test]
    fn pypi_and_oci_pin_their_version() {
        let s = server(json!({"name": "a/b", "packages": [
            {"registryType": "pypi", "identifier": "weather-mcp", "version": "0.4.0",
             "runtimeArguments": [{"type": "named", "name": "--python", "value": "3.12"}]}
        ]}));
        let plan = build(choose(&s, false).unwrap(), &Answers::new()).unwrap();
        assert_eq!(plan.server.command.as_deref(), Some("uvx"));
        assert_eq!(plan.server.args, ["--python", "3.12", "weather-mcp==0.4.0"]);

        let s = server(json!({"name": "a/b", "packages": [
            {"registryType": "oci", "identifier": "ghcr.io/acme/weather", "version": "2.0.0",
             "environmentVariables": [{"name": "TOKEN", "isSecret": true}]}
        ]}));
        let plan = build(choose(&s, false).unwrap(), &Answers::new()).unwrap();
        assert_eq!(plan.server.command.as_deref(), Some("docker"));
        assert_eq!(
            plan.server.args,
            [
                "run",
                "-i",
                "--rm",
                "-e",
                "TOKEN",
                "ghcr.io/acme/weather:2.0.0"
            ]
        );
        assert_eq!(plan.server.env["TOKEN"], "${TOKEN}");
    }

    #[test]
    fn remotes_come_first_streamable_http_before_sse() {
        let s = server(json!({"name": "a/b",
        "packages": [{"registryType": "npm", "identifier": "b", "version": "1.0.0"}],
        "remotes": [
            {"type": "sse", "url": "https://old.example/sse"},
            {"type": "streamable-http", "url": "https://{tenant}.example/mcp",
             "variables": {"tenant": {"description": "your tenant"}},
             "headers": [
                {"name": "Authorization", "value": "Bearer {token}",
                 "variables": {"token": {"isSecret": true}}},
                {"name": "X-Api-Key", "isSecret": true},
                {"name": "X-Team", "default": "core"}
             ]}
        ]}));
        let choice = choose(&s, false).unwrap();
        let given = answers(&[(Flag::Arg, "tenant", "acme")]);
        let plan = build(choice, &given).unwrap();
        assert_eq!(plan.source, "remote");
        assert_eq!(plan.server.url.as_deref(), Some("https://acme.example/mcp"));
        assert_eq!(plan.server.transport.as_deref(), Some("http"));
        assert_eq!(plan.server.headers["Authorization"], "Bearer ${TOKEN}");
        assert_eq!(plan.server.headers["X-Api-Key"], "${X_API_KEY}");
        assert_eq!(plan.server.headers["X-Team"], "core");
        // A URL variable is needed even though the entry did not say so.
        assert!(
            matches!(build(choice, &Answers::new()), Err(PlanError::Missing(m)) if m == ["--arg tenant"])
        );
        assert_eq!(choose(&s, true).unwrap().source(), "npm");
    }

    #[test]
    fn what_cannot_be_installed_says_why() {
        let bundle = server(
            json!({"name": "a/b", "packages": [{"registryType": "mcpb", "identifier": "x"}]}),
        );
        assert_eq!(choose(&bundle, false), Err(PlanError::Bundle("a/b".into())));
        let nuget = server(
            json!({"name": "a/b", "packages": [{"registryType": "nuget", "identifier": "x"}]}),
        );
        assert!(
            choose(&nuget, false)
                .unwrap_err()
                .to_string()
                .contains("nuget")
        );
        assert_eq!(
            choose(&server(json!({"name": "a/b"})), false),
            Err(PlanError::Nothing("a/b".into()))
        );
        let http_package = server(json!({"name": "a/b", "packages": [{"registryType": "npm",
            "identifier": "x", "transport": {"type": "streamable-http", "url": "http://localhost:8080/mcp"}}]}));
        assert_eq!(
            choose(&http_package, false),
            Err(PlanError::LocalHttp("a/b".into()))
        );
        let secret_arg = server(
            json!({"name": "a/b", "packages": [{"registryType": "npm", "identifier": "x",
            "packageArguments": [{"type": "named", "name": "--token", "isSecret": true}]}]}),
        );
        let err = build(choose(&secret_arg, false).unwrap(), &Answers::new()).unwrap_err();
        assert_eq!(
            err,
            PlanError::SecretNotExpandable("argument --token".into())
        );
        let dashed = server(
            json!({"name": "a/b", "packages": [{"registryType": "npm", "identifier": "-rf"}]}),
        );
        let err = build(choose(&dashed, false).unwrap(), &Answers::new()).unwrap_err();
        assert_eq!(err, PlanError::BadIdentifier("-rf".into()));
    }

    #[test]
    fn config_names_are_the_short_name_cleaned() {
        assert_eq!(config_name("io.github.acme/Weather-MCP"), "weather-mcp");
        assert_eq!(config_name("a/b__c d!"), "b_c-d");
        assert_eq!(config_name("a/../"), "server");
        assert_eq!(env_var_name("X-Api-Key"), "X_API_KEY");
    }
}
