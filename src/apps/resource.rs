//! An app's HTML: its `ui://` resource, read from its server (`resources/read`; the
//! resource may be missing from `resources/list`), with what its `_meta.ui` asks of
//! the host.

use base64::Engine as _;
use serde_json::Value;

use crate::mcp::ResourceRead;
use crate::tools::ContentBlock;

/// The page an app runs and what its resource declared.
#[derive(Debug, Clone, PartialEq)]
pub struct AppResource {
    pub uri: String,
    pub html: String,
    /// `_meta.ui.csp`: the origins it may load from or connect to.
    pub csp: Option<Value>,
    /// `_meta.ui.permissions`: camera, microphone, geolocation, clipboardWrite.
    pub permissions: Option<Value>,
}

/// Why a `ui://` resource cannot be run as an app.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceError {
    #[error("{uri}: the server returned no contents")]
    Empty { uri: String },
    #[error("{uri}: its mime type is {mime}, not {}", crate::mcp::apps::MIME_TYPE)]
    NotAnApp { uri: String, mime: String },
    #[error("{uri}: its blob is not base64-encoded UTF-8")]
    Undecodable { uri: String },
}

impl AppResource {
    /// The first item of `read` as an app. Its mime type must be HTML (the spec's
    /// `text/html;profile=mcp-app`; plain `text/html` is accepted too).
    pub fn from_read(uri: &str, read: &ResourceRead) -> Result<Self, ResourceError> {
        let Some(ContentBlock::EmbeddedResource {
            mime, text, blob, ..
        }) = read.contents.first()
        else {
            return Err(ResourceError::Empty {
                uri: uri.to_owned(),
            });
        };
        let mime = mime.clone().unwrap_or_default();
        let essence = mime.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("text/html") {
            return Err(ResourceError::NotAnApp {
                uri: uri.to_owned(),
                mime: if mime.is_empty() {
                    "not given".into()
                } else {
                    mime
                },
            });
        }
        let html = match (text, blob) {
            (Some(text), _) => text.clone(),
            (None, Some(blob)) => base64::engine::general_purpose::STANDARD
                .decode(blob.trim())
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .ok_or_else(|| ResourceError::Undecodable {
                    uri: uri.to_owned(),
                })?,
            (None, None) => {
                return Err(ResourceError::Empty {
                    uri: uri.to_owned(),
                });
            }
        };
        let ui = read.ui_meta.as_ref();
        Ok(Self {
            uri: uri.to_owned(),
            html,
            csp: ui
                .and_then(|u| u.get("csp"))
                .filter(|c| c.is_object())
                .cloned(),
            permissions: ui
                .and_then(|u| u.get("permissions"))
                .filter(|p| p.is_object())
                .cloned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(mime: Option<&str>, text: Option<&str>, blob: Option<&str>) -> ResourceRead {
        ResourceRead {
            contents: vec![ContentBlock::EmbeddedResource {
                uri: "ui://a/b".into(),
                mime: mime.map(str::to_owned),
                text: text.map(str::to_owned),
                blob: blob.map(str::to_owned),
            }],
            ui_meta: Some(json!({"csp": {"connectDomains": ["https://x"]}, "permissions": 3})),
        }
    }

    #[test]
    fn text_or_blob_html_with_its_csp() {
        let app = AppResource::from_read(
            "ui://a/b",
            &read(Some("text/html;profile=mcp-app"), Some("<p>hi"), None),
        )
        .unwrap();
        assert_eq!(app.html, "<p>hi");
        assert_eq!(app.csp, Some(json!({"connectDomains": ["https://x"]})));
        assert_eq!(app.permissions, None, "not an object: ignored");
        let blob = base64::engine::general_purpose::STANDARD.encode("<b>x</b>");
        let app = AppResource::from_read("ui://a/b", &read(Some("text/html"), None, Some(&blob)))
            .unwrap();
        assert_eq!(app.html, "<b>x</b>");
    }

    #[test]
    fn what_is_not_html_is_refused_by_name() {
        let e = AppResource::from_read("ui://a/b", &read(Some("text/plain"), Some("x"), None))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "ui://a/b: its mime type is text/plain, not text/html;profile=mcp-app"
        );
        let empty = ResourceRead {
            contents: vec![],
            ui_meta: None,
        };
        assert!(matches!(
            AppResource::from_read("ui://a/b", &empty),
            Err(ResourceError::Empty { .. })
        ));
        assert!(matches!(
            AppResource::from_read("ui://a/b", &read(Some("text/html"), None, Some("%%"))),
            Err(ResourceError::Undecodable { .. })
        ));
    }
}
