//! A login to a server that asks for OAuth, as the overlay shows it.

/// Where a login is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginPhase {
    /// Discovery and registration: no URL yet.
    Starting,
    /// The page is out; waiting for the browser's redirect or a paste.
    Waiting {
        url: String,
        port: u16,
        /// The program that took the page, or why none did.
        opened: Result<String, String>,
    },
    /// The pasted text went to the login; waiting for the token exchange.
    Exchanging,
    /// The login failed (the overlay stays so the reason can be read).
    Failed(String),
}

/// The login overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginView {
    pub server: String,
    pub phase: LoginPhase,
    /// The paste field.
    pub pasted: String,
}

/// What the login task reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginMsg {
    /// The authorization URL is ready and the listener waits on `port`.
    Waiting {
        server: String,
        url: String,
        port: u16,
        opened: Result<String, String>,
    },
    /// Tokens stored (what was granted), or why not.
    Finished {
        server: String,
        result: Result<String, String>,
    },
}
