//! MCP tool annotations → `ToolEffect`. Hints come from the server and are only hints:
//! `[policy] effects` overrides win over them, and rules match whatever the effect is.

use crate::config::AnnotationTrust;
use crate::policy::ToolEffect;

/// The annotation fields that bear on the effect (MCP `ToolAnnotations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AnnotationHints {
    /// `readOnlyHint`; MCP default false.
    pub read_only: Option<bool>,
    /// `destructiveHint`; MCP default true.
    pub destructive: Option<bool>,
}

/// The effect of an MCP tool.
///
/// `override_effect` (from `[policy] effects`) wins; a server whose annotations are
/// ignored, or a tool without annotations, is `Unknown`; `readOnlyHint` → `Read`;
/// otherwise `destructiveHint` (default true) → `Delete`, false → `Write`.
pub fn effect_from_hints(
    hints: Option<&AnnotationHints>,
    trust: AnnotationTrust,
    override_effect: Option<ToolEffect>,
) -> ToolEffect {
    if let Some(effect) = override_effect {
        return effect;
    }
    match (trust, hints) {
        (AnnotationTrust::Ignore, _) | (AnnotationTrust::Trust, None) => ToolEffect::Unknown,
        (AnnotationTrust::Trust, Some(h)) if h.read_only == Some(true) => ToolEffect::Read,
        (AnnotationTrust::Trust, Some(h)) if h.destructive.unwrap_or(true) => ToolEffect::Delete,
        (AnnotationTrust::Trust, Some(_)) => ToolEffect::Write,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUST: AnnotationTrust = AnnotationTrust::Trust;

    fn hints(read_only: Option<bool>, destructive: Option<bool>) -> AnnotationHints {
        AnnotationHints {
            read_only,
            destructive,
        }
    }

    #[test]
    fn read_only_hint_is_read() {
        let h = hints(Some(true), Some(true));
        assert_eq!(effect_from_hints(Some(&h), TRUST, None), ToolEffect::Read);
    }

    #[test]
    fn destructive_defaults_to_true() {
        let h = hints(None, None);
        assert_eq!(effect_from_hints(Some(&h), TRUST, None), ToolEffect::Delete);
        let h = hints(Some(false), Some(false));
        assert_eq!(effect_from_hints(Some(&h), TRUST, None), ToolEffect::Write);
    }

    #[test]
    fn no_annotations_or_ignored_is_unknown() {
        assert_eq!(effect_from_hints(None, TRUST, None), ToolEffect::Unknown);
        let h = hints(Some(true), None);
        assert_eq!(
            effect_from_hints(Some(&h), AnnotationTrust::Ignore, None),
            ToolEffect::Unknown
        );
    }

    #[test]
    fn override_wins() {
        let h = hints(Some(true), None);
        assert_eq!(
            effect_from_hints(Some(&h), TRUST, Some(ToolEffect::Delete)),
            ToolEffect::Delete
        );
        assert_eq!(
            effect_from_hints(None, AnnotationTrust::Ignore, Some(ToolEffect::Read)),
            ToolEffect::Read
        );
    }
}
