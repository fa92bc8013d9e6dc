//! Building the provider a `[providers.NAME]` table describes.

use std::sync::Arc;
use std::time::Duration;

use super::anthropic::AnthropicProvider;
use super::endpoint::Endpoint;
use super::error::LlmError;
use super::gemini::GeminiProvider;
use super::openai::OpenAiProvider;
use super::provider::Provider;
use super::retry::RetryPolicy;
use super::scripted::ScriptedProvider;
use super::scripted_script::load_script;
use crate::config::{BUILTIN_PROVIDER, Config, ProviderConfig, ProviderKind};

/// Command-line choices that override the config.
#[derive(Debug, Clone, Default)]
pub struct ProviderChoice {
    /// `--provider NAME`; else `default_provider`; else `scripted`.
    pub name: Option<String>,
    /// `--model M`.
    pub model: Option<String>,
}

/// Default models when a table names none.
fn default_model(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Openai => "gpt-4o-mini",
        ProviderKind::Anthropic => "claude-sonnet-4-5",
        ProviderKind::Gemini => "gemini-2.5-flash",
        ProviderKind::Scripted => "offline",
    }
}

/// The provider `choice` names. API keys are read through `env` (the process
/// environment in the binary), never from the config file.
pub fn provider_from_config(
    config: &Config,
    choice: &ProviderChoice,
    env: &dyn Fn(&str) -> Option<String>,
    retry: RetryPolicy,
) -> Result<(String, Arc<dyn Provider>), LlmError> {
    let name = choice
        .name
        .clone()
        .or_else(|| config.default_provider.clone())
        .unwrap_or_else(|| BUILTIN_PROVIDER.to_owned());
    let Some(table) = config.providers.get(&name) else {
        if name == BUILTIN_PROVIDER {
            return Ok((name, Arc::new(ScriptedProvider::new())));
        }
        let mut known: Vec<&str> = config.providers.keys().map(String::as_str).collect();
        known.push(BUILTIN_PROVIDER);
        return Err(LlmError::config(
            &name,
            format!(
                "no provider named {name:?}; configured: {}",
                known.join(", ")
            ),
        ));
    };
    let provider = build(table, choice.model.as_deref(), env, retry)?;
    Ok((name, provider))
}

/// The provider of one table; `model` overrides the table's.
pub fn build(
    table: &ProviderConfig,
    model: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    retry: RetryPolicy,
) -> Result<Arc<dyn Provider>, LlmError> {
    let (kind_name, base, key_env) = match table.kind {
        ProviderKind::Scripted => {
            return Ok(match &table.script {
                Some(path) => Arc::new(ScriptedProvider::with_script(load_script(path)?)),
                None => Arc::new(ScriptedProvider::new()),
            });
        }
        ProviderKind::Openai => (
            "openai",
            OpenAiProvider::DEFAULT_BASE_URL,
            OpenAiProvider::DEFAULT_KEY_ENV,
        ),
        ProviderKind::Anthropic => (
            "anthropic",
            AnthropicProvider::DEFAULT_BASE_URL,
            AnthropicProvider::DEFAULT_KEY_ENV,
        ),
        ProviderKind::Gemini => (
            "gemini",
            GeminiProvider::DEFAULT_BASE_URL,
            GeminiProvider::DEFAULT_KEY_ENV,
        ),
    };
    let key_env = table.api_key_env.as_deref().unwrap_or(key_env);
    let api_key = env(key_env).filter(|k| !k.is_empty()).ok_or_else(|| {
        LlmError::config(
            kind_name,
            format!("no API key: set the environment variable {key_env}"),
        )
    })?;
    let model = model
        .map(str::to_owned)
        .or_else(|| table.model.clone())
        .unwrap_or_else(|| default_model(table.kind).to_owned());
    let timeout = table
        .timeout
        .filter(|t| t.is_finite() && *t > 0.0)
        .map(Duration::from_secs_f64);
    let base_url = table.base_url.as_deref().unwrap_or(base);
    let mut endpoint = Endpoint::new(kind_name, base_url, api_key, model, timeout)?
        .with_headers(kind_name, &table.headers)?
        .with_retry(retry);
    endpoint.max_tokens = table.max_tokens;
    endpoint.temperature = table.temperature;
    Ok(match table.kind {
        ProviderKind::Openai => Arc::new(OpenAiProvider::new(endpoint)),
        ProviderKind::Anthropic => Arc::new(AnthropicProvider::new(endpoint)),
        ProviderKind::Gemini | ProviderKind::Scripted => Arc::new(GeminiProvider::new(endpoint)),
    })
}
