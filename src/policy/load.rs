//! `Policy::from_config`: validating `[policy]` with spans for precise errors.

use std::ops::Range;

use toml::Spanned;

use super::effect::ToolEffect;
use super::{AlwaysAsk, ConfirmDelete, Mode, Policy, Rule, RuleList};
use crate::config::PolicyConfig;

/// One invalid value in `[policy]`, with its place in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct PolicyConfigError {
    /// Byte range of the value in the config text.
    pub span: Range<usize>,
    /// Dotted key, e.g. `policy.allow[2]`.
    pub key: String,
    pub message: String,
}

impl PolicyConfigError {
    fn at<T>(value: &Spanned<T>, key: String, message: &impl ToString) -> Self {
        Self {
            span: value.span(),
            key,
            message: message.to_string(),
        }
    }
}

impl Policy {
    /// Builds the policy, collecting every invalid rule, mode or effect.
    pub fn from_config(config: &PolicyConfig) -> Result<Self, Vec<PolicyConfigError>> {
        let mut errors = Vec::new();
        let mut policy = Self {
            audit_arguments: config.audit_arguments,
            audit_log: config.audit_log.clone(),
            max_calls: config.max_calls.clone(),
            ..Self::default()
        };
        if let Some(mode) = &config.mode {
            match mode.get_ref().parse::<Mode>() {
                Ok(m) => policy.mode = m,
                Err(e) => errors.push(PolicyConfigError::at(mode, "policy.mode".into(), &e)),
            }
        }
        for (list, texts) in [
            (RuleList::Allow, &config.allow),
            (RuleList::Ask, &config.ask),
            (RuleList::Deny, &config.deny),
        ] {
            for (i, text) in texts.iter().enumerate() {
                match Rule::parse(text.get_ref()) {
                    Ok(rule) => policy.list_mut(list).push(rule),
                    Err(e) => {
                        let key = format!("policy.{list}[{i}]");
                        errors.push(PolicyConfigError::at(text, key, &e));
                    }
                }
            }
        }
        for (i, pattern) in config.always_ask.iter().enumerate() {
            match AlwaysAsk::parse(pattern.get_ref()) {
                Ok(p) => policy.always_ask.push(p),
                Err(e) => {
                    let key = format!("policy.always_ask[{i}]");
                    errors.push(PolicyConfigError::at(pattern, key, &e));
                }
            }
        }
        for (tool, effect) in &config.effects {
            match effect.get_ref().parse::<ToolEffect>() {
                Ok(e) => {
                    policy.effects.insert(tool.clone(), e);
                }
                Err(e) => {
                    let key = format!("policy.effects.{tool}");
                    errors.push(PolicyConfigError::at(effect, key, &e));
                }
            }
        }
        if let Some(confirm) = &config.confirm_delete {
            match confirm.get_ref().as_str() {
                "single" => policy.confirm_delete = ConfirmDelete::Single,
                "double" => policy.confirm_delete = ConfirmDelete::Double,
                other => errors.push(PolicyConfigError::at(
                    confirm,
                    "policy.confirm_delete".into(),
                    &format!("unknown value {other:?}: expected single or double"),
                )),
            }
        }
        if errors.is_empty() {
            Ok(policy)
        } else {
            Err(errors)
        }
    }
}
