//! HTTPS end to end with the `ring` crypto provider: `switchboard call` reaches the
//! test MCP server through a loopback TLS front whose certificate is trusted through
//! `SSL_CERT_FILE`; an untrusted certificate, or an empty trust store, is a clean
//! failure (exit 3), not a panic.
#![allow(clippy::unwrap_used)]

use crate::support;

use std::sync::Arc;

use crate::support::trust_folder;
use assert_cmd::Command;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

struct TlsFront {
    port: u16,
    cert_pem: String,
    _runtime: tokio::runtime::Runtime,
}

/// Terminates TLS on 127.0.0.1 and forwards the plaintext to `upstream` (host:port).
fn tls_front(upstream: String) -> TlsFront {
    let key = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let cert_pem = key.cert.pem();
    let private = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.signing_key.serialize_der()));
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![key.cert.der().clone()], private)
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    runtime.spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(socket).await else {
                    return;
                };
                if let Ok(mut plain) = TcpStream::connect(upstream).await {
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                }
            });
        }
    });
    TlsFront {
        port,
        cert_pem,
        _runtime: runtime,
    }
}

/// What the client trusts.
enum Trust {
    /// The front's certificate.
    Front,
    /// Another certificate only.
    Other,
    /// Nothing at all (an empty store).
    Nothing,
}

fn call_over_https(trust: &Trust) -> std::process::Output {
    let server = support::mcp::HttpServer::start("http");
    let url = reqwest::Url::parse(&server.url).unwrap();
    let upstream = format!("127.0.0.1:{}", url.port().unwrap());
    let front = tls_front(upstream);
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    let https = format!("https://127.0.0.1:{}{}", front.port, url.path());
    let config = format!("[servers.web]\nurl = {https:?}\n");
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    trust_folder(dir.path(), &dir.path().join(".local/state"));
    let mut cmd = Command::cargo_bin("switchboard").unwrap();
    cmd.current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("SSL_CERT_DIR")
        .args(["call", "web", "echo", "-a", "text=over tls"])
        .timeout(std::time::Duration::from_secs(120));
    let store = match trust {
        Trust::Front => front.cert_pem.clone(),
        Trust::Other => rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()])
            .unwrap()
            .cert
            .pem(),
        Trust::Nothing => String::new(),
    };
    std::fs::write(&ca, store).unwrap();
    cmd.env("SSL_CERT_FILE", &ca);
    cmd.output().unwrap()
}

#[test]
fn a_call_over_https_succeeds_with_the_ring_provider() {
    let out = call_over_https(&Trust::Front);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "over tls\n");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn an_untrusted_certificate_or_no_trust_store_is_an_error_not_a_panic() {
    for trust in [Trust::Other, Trust::Nothing] {
        let out = call_over_https(&trust);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!stderr.contains("CryptoProvider"), "{stderr}");
    }
}
