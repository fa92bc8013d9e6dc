//! The process-wide TLS crypto provider.
//!
//! reqwest and rmcp are built with rustls but without a bundled provider
//! (`rustls-no-provider`, `reqwest-tls-no-provider`): rustls' default, aws-lc-rs, adds
//! several MB to the binary for post-quantum key exchange and FIPS that a client does
//! not need. `ring` is installed instead, before any HTTP client is built — reqwest
//! panics when it builds a client and no provider is installed
//! (<https://docs.rs/rustls/0.23/rustls/crypto/struct.CryptoProvider.html>).

use std::sync::Once;

/// Installs rustls' `ring` provider as the process default, once. A provider an
/// embedding program installed first is kept.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err only means a provider is already installed: keep it.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest client builder with the crypto provider installed: every HTTP client
/// in switchboard starts here.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
}

/// An error and its sources, joined with `: ` — reqwest's own message ("error
/// sending request") leaves out the cause a person needs (refused, DNS, TLS).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_build_and_the_provider_is_ring() {
        let client = client_builder().build();
        assert!(client.is_ok(), "{client:?}");
        let provider = rustls::crypto::CryptoProvider::get_default();
        let suites = provider.map_or(0, |p| p.cipher_suites.len());
        assert!(suites > 0, "no process-level CryptoProvider installed");
    }

    /// A client built anywhere else could run before the provider is installed and
    /// panic (rmcp's Streamable HTTP client is built in `mcp::http_client`).
    #[test]
    fn http_clients_are_only_built_here() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut offenders = Vec::new();
        let mut dirs = vec![src];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && !path.ends_with("tls.rs")
                    && !path.ends_with("http_client.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let builds = [
                        "Client::builder()",
                        "Client::new()",
                        "StreamableHttpClientTransport::from_",
                        "AuthorizationManager::new",
                        "OAuthState::new",
                    ];
                    if builds.iter().any(|b| text.contains(b)) {
                        offenders.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "build clients via tls::client_builder: {offenders:?}"
        );
    }
}
