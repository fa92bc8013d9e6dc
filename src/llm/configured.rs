//! Building the provider a `[providers.NAME]` table describes.

use std::sync::Arc;
use std::time::Duration;

use super::anthropic::AnthropicProvider;
use super::bedrock::aws_auth::{AwsCredentials, SigV4Signer};
use super::bedrock::{BedrockAuth, BedrockProvider};
use super::cohere::CohereProvider;
use super::endpoint::Endpoint;
use super::error::LlmError;
use super::gemini::GeminiProvider;
use super::openai::OpenAiProvider;
use super::provider::Provider;
use super::retry::RetryPolicy;
use super::scripted::ScriptedProvider;
use super::scripted_script::load_script;
use crate::config::{BUILTIN_PROVIDER, Config, ProviderConfig, ProviderKind, is_aws_region};

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
        ProviderKind::Cohere => "command-a-03-2025",
        ProviderKind::Bedrock => "amazon.nova-lite-v1:0",
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
        ProviderKind::Bedrock => return build_bedrock(table, model, env, retry),
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
        ProviderKind::Cohere => (
            "cohere",
            CohereProvider::DEFAULT_BASE_URL,
            CohereProvider::DEFAULT_KEY_ENV,
        ),
    };
    let key_env = table.api_key_env.as_deref().unwrap_or(key_env);
    let api_key = env(key_env).filter(|k| !k.is_empty()).ok_or_else(|| {
        LlmError::config(
            kind_name,
            format!("no API key: set the environment variable {key_env}"),
        )
    })?;
    let base_url = table.base_url.as_deref().unwrap_or(base);
    let endpoint = endpoint(kind_name, base_url, api_key, table, model, retry)?;
    Ok(match table.kind {
        ProviderKind::Openai => Arc::new(OpenAiProvider::new(endpoint)),
        ProviderKind::Anthropic => Arc::new(AnthropicProvider::new(endpoint)),
        ProviderKind::Cohere => Arc::new(CohereProvider::new(endpoint)),
        ProviderKind::Gemini | ProviderKind::Scripted | ProviderKind::Bedrock => {
            Arc::new(GeminiProvider::new(endpoint))
        }
    })
}

/// The endpoint of one table: model (`model` overrides the table's), timeout, headers,
/// knobs.
fn endpoint(
    kind_name: &str,
    base_url: &str,
    api_key: String,
    table: &ProviderConfig,
    model: Option<&str>,
    retry: RetryPolicy,
) -> Result<Endpoint, LlmError> {
    let model = model
        .map(str::to_owned)
        .or_else(|| table.model.clone())
        .unwrap_or_else(|| default_model(table.kind).to_owned());
    let timeout = table
        .timeout
        .filter(|t| t.is_finite() && *t > 0.0)
        .map(Duration::from_secs_f64);
    let mut endpoint = Endpoint::new(kind_name, base_url, api_key, model, timeout)?
        .with_headers(kind_name, &table.headers)?
        .with_retry(retry);
    endpoint.max_tokens = table.max_tokens;
    endpoint.temperature = table.temperature;
    Ok(endpoint)
}

/// Bedrock: region from the table or `AWS_REGION` / `AWS_DEFAULT_REGION`; a Bedrock
/// API key when one is set, else SigV4 with the environment's or a profile's keys.
fn build_bedrock(
    table: &ProviderConfig,
    model: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    retry: RetryPolicy,
) -> Result<Arc<dyn Provider>, LlmError> {
    let var = |name: &str| env(name).filter(|v| !v.is_empty());
    let region = table
        .region
        .as_ref()
        .map(|r| r.get_ref().clone())
        .or_else(|| var("AWS_REGION"))
        .or_else(|| var("AWS_DEFAULT_REGION"))
        .ok_or_else(|| {
            LlmError::config(
                "bedrock",
                "no region: set `region` in the provider table, or AWS_REGION",
            )
        })?;
    if !is_aws_region(&region) {
        return Err(LlmError::config(
            "bedrock",
            format!("`{region}` is not an AWS region name"),
        ));
    }
    let key_env = table
        .api_key_env
        .as_deref()
        .unwrap_or(BedrockProvider::DEFAULT_KEY_ENV);
    let bearer = var(key_env);
    let auth = if bearer.is_some() {
        BedrockAuth::Bearer
    } else {
        let profile = table.profile.as_ref().map(|p| p.get_ref().as_str());
        let credentials = AwsCredentials::resolve(env, profile)
            .map_err(|e| LlmError::config("bedrock", e.to_string()))?;
        BedrockAuth::SigV4(Arc::new(SigV4Signer {
            credentials,
            region: region.clone(),
            service: BedrockProvider::SIGNING_NAME,
        }))
    };
    let base_url = table
        .base_url
        .clone()
        .unwrap_or_else(|| BedrockProvider::default_base_url(&region));
    let endpoint = endpoint(
        "bedrock",
        &base_url,
        bearer.unwrap_or_default(),
        table,
        model,
        retry,
    )?;
    Ok(Arc::new(BedrockProvider::new(endpoint, auth)))
}
