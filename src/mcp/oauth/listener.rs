//! The loopback redirect listener of a native app (RFC 8252 §7.3): `127.0.0.1` on a
//! port the OS picks, waiting for the browser to arrive at `/callback?code=…`.
//!
//! rmcp leaves receiving the redirect to the application; this is that part, kept
//! to reading one request line and answering with a short page.

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

/// The path the redirect URI names.
pub const CALLBACK_PATH: &str = "/callback";

/// Largest request head read from the browser.
const MAX_HEAD: usize = 16 * 1024;

/// A bound listener.
pub struct RedirectListener {
    listener: TcpListener,
    port: u16,
}

impl RedirectListener {
    /// Binds `127.0.0.1:0`.
    pub async fn bind() -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self { listener, port })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// Waits for a request to the callback path carrying `code` or `error`, and
    /// returns its full URL. Other requests (a favicon, a probe) get a 404.
    pub async fn next_callback(&self) -> std::io::Result<String> {
        loop {
            let (mut stream, _) = self.listener.accept().await?;
            let Some(target) = read_target(&mut stream).await else {
                continue;
            };
            let url = format!("http://127.0.0.1:{}{target}", self.port);
            let is_callback = reqwest::Url::parse(&url).is_ok_and(|u| {
                u.path() == CALLBACK_PATH
                    && u.query_pairs().any(|(k, _)| k == "code" || k == "error")
            });
            let (status, body) = if is_callback {
                (
                    "200 OK",
                    "switchboard received the authorization response. You can close this tab.",
                )
            } else {
                ("404 Not Found", "not the switchboard login callback")
            };
            let response = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
            let _ = stream.shutdown().await;
            if is_callback {
                return Ok(url);
            }
        }
    }
}

/// The request target of a `GET` request (`/callback?…`), if the head is one.
async fn read_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
        let read = tokio::time::timeout(std::time::Duration::from_secs(10), stream.read(&mut buf))
            .await
            .ok()?
            .ok()?;
        if read == 0 {
            break;
        }
        head.extend_from_slice(&buf[..read]);
    }
    let text = String::from_utf8_lossy(&head);
    let mut words = text.lines().next()?.split_whitespace();
    let (method, target) = (words.next()?, words.next()?);
    (method == "GET" && target.starts_with('/')).then(|| target.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(port: u16, target: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let request = format!("GET {target} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut out = String::new();
        stream.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn returns_the_callback_and_ignores_other_requests() {
        let listener = RedirectListener::bind().await.unwrap();
        let port = listener.port();
        assert!(listener.redirect_uri().starts_with("http://127.0.0.1:"));
        let client = tokio::spawn(async move {
            let other = get(port, "/favicon.ico").await;
            let done = get(port, "/callback?code=abc&state=xyz").await;
            (other, done)
        });
        let url = listener.next_callback().await.unwrap();
        assert_eq!(
            url,
            format!("http://127.0.0.1:{port}/callback?code=abc&state=xyz")
        );
        let (other, done) = client.await.unwrap();
        assert!(other.starts_with("HTTP/1.1 404"), "{other}");
        assert!(done.starts_with("HTTP/1.1 200"), "{done}");
    }
}
