//! How long a listed catalog may be used without listing again: MCP 2026-07-28 list
//! results carry `ttlMs` (milliseconds the result may be treated as fresh) and
//! `cacheScope` (`public` / `private`; SEP-2549,
//! <https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination>).
//! A reconnect after a crash keeps each list still fresh instead of listing it again;
//! `list_changed` and the person's reconnect (`r`) always list again.

use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::Value;

use super::catalog::{CatalogSnapshot, ListKind};

/// When one list was fetched and for how long the server said it stays fresh.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListFreshness {
    pub kind: ListKind,
    pub listed_at: SystemTime,
    /// `ttlMs` of the first page; none from servers that do not send it.
    pub ttl_ms: Option<u64>,
    /// `cacheScope` as sent (`public`, `private`).
    pub scope: Option<String>,
    /// Kept from the previous connection instead of listed on this one.
    pub from_cache: bool,
}

impl ListFreshness {
    /// From the first page of a list result (wire JSON).
    pub fn from_page(kind: ListKind, page: &Value, listed_at: SystemTime) -> Self {
        Self {
            kind,
            listed_at,
            ttl_ms: page.get("ttlMs").and_then(Value::as_u64),
            scope: page
                .get("cacheScope")
                .and_then(Value::as_str)
                .map(|s| crate::sanitize::sanitize_line(s).chars().take(20).collect()),
            from_cache: false,
        }
    }

    /// Still fresh at `now` (a ttl of 0, or none, is never fresh).
    pub fn fresh_at(&self, now: SystemTime) -> bool {
        match self.ttl_ms {
            Some(ttl) if ttl > 0 => now
                .duration_since(self.listed_at)
                .is_ok_and(|age| age < Duration::from_millis(ttl)),
            _ => false,
        }
    }
}

impl CatalogSnapshot {
    pub fn freshness(&self, kind: ListKind) -> Option<&ListFreshness> {
        self.fresh.iter().find(|f| f.kind == kind)
    }

    pub(super) fn set_freshness(&mut self, freshness: ListFreshness) {
        self.fresh.retain(|f| f.kind != freshness.kind);
        self.fresh.push(freshness);
    }

    /// Copies list `kind` from `previous` if it is still fresh at `now` and was listed
    /// without error; true when it did.
    pub(super) fn reuse(
        &mut self,
        previous: &CatalogSnapshot,
        kind: ListKind,
        now: SystemTime,
    ) -> bool {
        let Some(old) = previous.freshness(kind).filter(|f| f.fresh_at(now)) else {
            return false;
        };
        if previous.errors.iter().any(|(k, _)| *k == kind) {
            return false;
        }
        match kind {
            ListKind::Tools => {
                self.tools.clone_from(&previous.tools);
                self.refused.clone_from(&previous.refused);
            }
            ListKind::Resources => self.resources.clone_from(&previous.resources),
            ListKind::Templates => self.templates.clone_from(&previous.templates),
            ListKind::Prompts => self.prompts.clone_from(&previous.prompts),
        }
        self.set_freshness(ListFreshness {
            from_cache: true,
            ..old.clone()
        });
        true
    }

    /// `tools, prompts 12s ago (ttl 60s, private)` for the lists kept from cache.
    pub fn cached_summary(&self, now: SystemTime) -> Option<String> {
        let cached: Vec<&ListFreshness> = self.fresh.iter().filter(|f| f.from_cache).collect();
        let first = cached.first()?;
        let kinds: Vec<&str> = cached.iter().map(|f| f.kind.as_str()).collect();
        let age = now.duration_since(first.listed_at).unwrap_or_default();
        let mut terms = Vec::new();
        if let Some(ttl) = first.ttl_ms {
            terms.push(format!("ttl {}s", ttl / 1000));
        }
        if let Some(scope) = &first.scope {
            terms.push(scope.clone());
        }
        Some(format!(
            "{} {}s ago ({})",
            kinds.join(", "),
            age.as_secs(),
            terms.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fresh_only_within_a_positive_ttl() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let f = ListFreshness::from_page(
            ListKind::Tools,
            &json!({"ttlMs": 60_000, "cacheScope": "private"}),
            t0,
        );
        assert!(f.fresh_at(t0 + Duration::from_secs(59)));
        assert!(!f.fresh_at(t0 + Duration::from_secs(60)));
        assert_eq!(f.scope.as_deref(), Some("private"));
        let zero = ListFreshness::from_page(ListKind::Tools, &json!({"ttlMs": 0}), t0);
        assert!(!zero.fresh_at(t0));
        let none = ListFreshness::from_page(ListKind::Tools, &json!({}), t0);
        assert!(!none.fresh_at(t0));
    }
}
