//! Keeping secrets out of the config files `config import` writes: an
//! `Authorization: Bearer ${VAR}` header becomes `bearer_token_env_var = "VAR"`, other
//! references stay `${VAR}` (expanded when the server starts), and a literal secret
//! already in the source file is imported with a warning naming its key.

use super::Imported;
use crate::config::ServerConfig;

/// Header and variable names that hold credentials.
const SECRET_WORDS: &[&str] = &[
    "authorization",
    "token",
    "secret",
    "password",
    "passwd",
    "api-key",
    "api_key",
    "apikey",
    "cookie",
    "credential",
    "private",
];

fn looks_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| key.contains(w)) || key.ends_with("key")
}

/// `Bearer ${VAR}` → `VAR`.
fn bearer_reference(value: &str) -> Option<&str> {
    let var = value
        .strip_prefix("Bearer ${")
        .or_else(|| value.strip_prefix("bearer ${"))?
        .strip_suffix('}')?;
    let plain = !var.is_empty() && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    plain.then_some(var)
}

/// Rewrites bearer references and warns about literal secrets, in place.
pub fn keep_out_of_file(imported: &mut Imported) {
    for (name, server) in &mut imported.servers {
        let auth = server
            .headers
            .keys()
            .find(|k| k.eq_ignore_ascii_case("authorization"))
            .cloned();
        if let Some(header) = auth
            && server.bearer_token_env_var.is_none()
            && let Some(var) = server
                .headers
                .get(&header)
                .and_then(|v| bearer_reference(v))
        {
            server.bearer_token_env_var = Some(var.to_owned());
            server.headers.remove(&header);
        }
        let warnings = literal_secrets(name, server).into_iter().map(|key| {
            format!(
                "{key}: a literal secret from the source file is written to the config as it is; replace it with ${{VAR}} (expanded from the environment when the server starts)"
            )
        });
        imported.warnings.extend(warnings);
    }
}

/// The keys (`servers.NAME.headers.Authorization`) of the header and `env` values of
/// `server` whose key names a credential and whose value is written out rather than a
/// `${VAR}` reference.
pub fn literal_secrets(name: &str, server: &ServerConfig) -> Vec<String> {
    let literal = |table: &str, key: &str, value: &str| {
        (looks_secret(key) && !value.is_empty() && !value.contains("${"))
            .then(|| format!("servers.{name}.{table}.{key}"))
    };
    let mut warnings: Vec<String> = server
        .headers
        .iter()
        .filter_map(|(k, v)| literal("headers", k, v))
        .collect();
    warnings.extend(server.env.iter().filter_map(|(k, v)| literal("env", k, v)));
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_references_and_secret_names() {
        assert_eq!(bearer_reference("Bearer ${GH_TOKEN}"), Some("GH_TOKEN"));
        assert_eq!(bearer_reference("Bearer ${A:-b}"), None);
        assert_eq!(bearer_reference("Bearer abc"), None);
        assert!(looks_secret("X-Api-Key") && looks_secret("GITHUB_TOKEN"));
        assert!(!looks_secret("DEBUG") && !looks_secret("X-Team"));
    }
}
