//! The Content-Security-Policy an MCP App runs under.
//!
//! Per the MCP Apps spec (https://github.com/modelcontextprotocol/ext-apps,
//! `specification/2026-01-26/apps.mdx`, "Content Security Policy"): without a
//! `_meta.ui.csp` the host applies a policy that allows the page's own inline
//! scripts and styles and nothing from the network; with one, `resourceDomains`
//! open scripts, styles, images, fonts and media to those origins, `connectDomains`
//! open `connect-src`, `frameDomains` open `frame-src` and `baseUriDomains`
//! `base-uri`; nothing undeclared is allowed. The host page sends it as an HTTP
//! header (which the app's document cannot change), never as a `<meta>` tag.

use serde_json::Value;

/// The policy for an app whose resource declared `csp` (`_meta.ui.csp`, or none).
/// `frame_ancestors` is the only origin allowed to embed it (the host page's).
pub fn policy(csp: Option<&Value>, frame_ancestors: &str) -> String {
    let domains = |key: &str| -> Vec<String> {
        csp.and_then(|c| c.get(key))
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .filter(|d| is_source(d))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let with = |base: &str, extra: &[String]| -> String {
        std::iter::once(base.to_owned())
            .chain(extra.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let resources = domains("resourceDomains");
    let connect = domains("connectDomains");
    let frames = domains("frameDomains");
    let base = domains("baseUriDomains");
    let or_none = |list: &[String], none: &str| {
        if list.is_empty() {
            none.to_owned()
        } else {
            list.join(" ")
        }
    };
    let mut directives = vec![
        "default-src 'none'".to_owned(),
        format!("script-src {}", with("'self' 'unsafe-inline'", &resources)),
        format!("style-src {}", with("'self' 'unsafe-inline'", &resources)),
        format!("img-src {}", with("'self' data:", &resources)),
        format!("media-src {}", with("'self' data:", &resources)),
    ];
    if !resources.is_empty() {
        // Fonts fall under `default-src 'none'` unless the server declared origins.
        directives.push(format!("font-src {}", resources.join(" ")));
    }
    directives.extend([
        format!("connect-src {}", or_none(&connect, "'none'")),
        format!("frame-src {}", or_none(&frames, "'none'")),
        "object-src 'none'".to_owned(),
        format!("base-uri {}", or_none(&base, "'self'")),
        format!("frame-ancestors {frame_ancestors}"),
    ]);
    directives.join("; ")
}

/// A declared origin is one source expression: no `;`, `,`, quote, whitespace or
/// control character that could end the directive or add a keyword
/// (`'unsafe-eval'`) the server did not get to declare.
fn is_source(domain: &str) -> bool {
    !domain.is_empty()
        && domain.len() <= 253
        && !domain
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, ';' | ',' | '\'' | '"'))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn without_csp_nothing_leaves_the_page() {
        let p = policy(None, "http://127.0.0.1:1");
        assert_eq!(
            p,
            "default-src 'none'; script-src 'self' 'unsafe-inline'; \
             style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; \
             connect-src 'none'; frame-src 'none'; \
             object-src 'none'; base-uri 'self'; frame-ancestors http://127.0.0.1:1"
        );
    }

    #[test]
    fn declared_domains_open_their_directives_only() {
        let csp = json!({
            "resourceDomains": ["https://cdn.example.com"],
            "connectDomains": ["https://api.example.com", "wss://live.example.com"],
            "frameDomains": ["https://www.youtube.com"],
        });
        let p = policy(Some(&csp), "http://127.0.0.1:1");
        assert!(p.contains("script-src 'self' 'unsafe-inline' https://cdn.example.com;"));
        assert!(p.contains("img-src 'self' data: https://cdn.example.com;"));
        assert!(p.contains("font-src https://cdn.example.com;"));
        assert!(p.contains("connect-src https://api.example.com wss://live.example.com;"));
        assert!(p.contains("frame-src https://www.youtube.com;"));
        assert!(p.contains("base-uri 'self';"));
    }

    #[test]
    fn an_entry_that_would_add_a_keyword_or_directive_is_dropped() {
        let csp = json!({"connectDomains": [
            "https://ok.example.com",
            "https://x.example.com; script-src *",
            "'unsafe-eval'",
            "https://a.example.com https://b.example.com",
            "https://nl.example.com\nscript-src *",
            7,
        ]});
        let p = policy(Some(&csp), "http://127.0.0.1:1");
        assert!(p.contains("connect-src https://ok.example.com;"), "{p}");
        assert!(!p.contains("unsafe-eval") && !p.contains('*'), "{p}");
    }
}
