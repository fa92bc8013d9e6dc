//! AWS credentials and Signature Version 4 request signing (via `aws-sigv4`).
//!
//! Credentials come from the standard environment variables (`AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), else from the static keys of a
//! profile in the shared credentials or config file
//! (<https://docs.aws.amazon.com/sdkref/latest/guide/file-format.html>). SigV4:
//! <https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html>.

use std::fmt;
use std::path::PathBuf;
use std::time::SystemTime;

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::llm::error::LlmError;
use crate::llm::transport::RequestSigner;

/// An access key pair (and session token). `Debug` shows only the key id.
#[derive(Clone, PartialEq, Eq)]
pub struct AwsCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl fmt::Debug for AwsCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AwsCredentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

/// Why AWS credentials were not found, or a request could not be signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AwsAuthError {
    #[error(
        "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, put static keys in profile `{profile}` of ~/.aws/credentials, or set AWS_BEARER_TOKEN_BEDROCK"
    )]
    NoCredentials { profile: String },
    #[error("bad URL {url}: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("URL without a host: {0}")]
    NoHost(String),
    /// What aws-sigv4 said.
    #[error("{0}")]
    Signing(String),
}

impl AwsCredentials {
    /// The environment's keys, else profile `profile` (or `AWS_PROFILE`, or
    /// `default`) of `AWS_SHARED_CREDENTIALS_FILE` (`~/.aws/credentials`), then of
    /// `AWS_CONFIG_FILE` (`~/.aws/config`). The error says where it looked.
    pub fn resolve(
        env: &dyn Fn(&str) -> Option<String>,
        profile: Option<&str>,
    ) -> Result<Self, AwsAuthError> {
        let var = |name: &str| env(name).filter(|v| !v.is_empty());
        if let (Some(id), Some(secret)) = (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
            return Ok(Self {
                access_key_id: id,
                secret_access_key: secret,
                session_token: var("AWS_SESSION_TOKEN"),
            });
        }
        let profile = profile
            .map(str::to_owned)
            .or_else(|| var("AWS_PROFILE"))
            .unwrap_or_else(|| "default".to_owned());
        let home = var("HOME").map(PathBuf::from);
        let file = |var_name: &str, default: &str| {
            var(var_name)
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".aws").join(default)))
        };
        let files = [
            (file("AWS_SHARED_CREDENTIALS_FILE", "credentials"), false),
            (file("AWS_CONFIG_FILE", "config"), true),
        ];
        for (path, is_config) in files {
            let Some(path) = path else { continue };
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if let Some(found) = from_profile(&text, &profile, is_config) {
                return Ok(found);
            }
        }
        Err(AwsAuthError::NoCredentials { profile })
    }
}

/// The static keys of `profile` in an AWS shared credentials file (sections `[NAME]`)
/// or config file (sections `[profile NAME]`, and `[default]`).
pub fn from_profile(text: &str, profile: &str, is_config: bool) -> Option<AwsCredentials> {
    let wanted = if is_config && profile != "default" {
        format!("profile {profile}")
    } else {
        profile.to_owned()
    };
    let mut inside = false;
    let (mut id, mut secret, mut token) = (None, None, None);
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let section = section.split_whitespace().collect::<Vec<_>>().join(" ");
            inside = section == wanted;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !inside {
            continue;
        }
        let value = Some(value.trim().to_owned()).filter(|v| !v.is_empty());
        match key.trim().to_ascii_lowercase().as_str() {
            "aws_access_key_id" => id = value,
            "aws_secret_access_key" => secret = value,
            "aws_session_token" => token = value,
            _ => {}
        }
    }
    Some(AwsCredentials {
        access_key_id: id?,
        secret_access_key: secret?,
        session_token: token,
    })
}

/// Signs each attempt of a request with SigV4 at the current time.
#[derive(Debug)]
pub struct SigV4Signer {
    pub credentials: AwsCredentials,
    pub region: String,
    /// The signing name (`bedrock`).
    pub service: &'static str,
}

impl RequestSigner for SigV4Signer {
    fn sign(&self, url: &str, headers: &HeaderMap, body: &[u8]) -> Result<HeaderMap, LlmError> {
        let signed = sign_request(
            "POST",
            url,
            headers,
            body,
            &self.credentials,
            &self.region,
            self.service,
            SystemTime::now(),
        )
        .map_err(|e| LlmError::config(self.service, format!("cannot sign the request: {e}")))?;
        let mut out = HeaderMap::new();
        for (name, value, sensitive) in signed {
            let (Ok(name), Ok(mut value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) else {
                continue;
            };
            value.set_sensitive(
                sensitive || name == "authorization" || name == "x-amz-security-token",
            );
            out.insert(name, value);
        }
        Ok(out)
    }
}

/// The headers SigV4 adds to a request (`x-amz-date`, `authorization`, and
/// `x-amz-security-token` with a session token): `(name, value, sensitive)`.
#[allow(clippy::too_many_arguments)]
pub fn sign_request(
    method: &str,
    url: &str,
    headers: &HeaderMap,
    body: &[u8],
    credentials: &AwsCredentials,
    region: &str,
    service: &str,
    time: SystemTime,
) -> Result<Vec<(String, String, bool)>, AwsAuthError> {
    // aws-sigv4 needs a host to sign; check here rather than let it fail.
    let parsed = reqwest::Url::parse(url).map_err(|e| AwsAuthError::BadUrl {
        url: url.to_owned(),
        reason: e.to_string(),
    })?;
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(AwsAuthError::NoHost(url.to_owned()));
    }
    let identity = Credentials::new(
        credentials.access_key_id.clone(),
        credentials.secret_access_key.clone(),
        credentials.session_token.clone(),
        None,
        "switchboard",
    )
    .into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(service)
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| AwsAuthError::Signing(e.to_string()))?
        .into();
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .filter_map(|(n, v)| Some((n.as_str(), v.to_str().ok()?)))
        .collect();
    let request = SignableRequest::new(method, url, pairs.into_iter(), SignableBody::Bytes(body))
        .map_err(|e| AwsAuthError::Signing(e.to_string()))?;
    let (instructions, _signature) = sign(request, &params)
        .map_err(|e| AwsAuthError::Signing(e.to_string()))?
        .into_parts();
    let (added, _params) = instructions.into_parts();
    Ok(added
        .into_iter()
        .map(|h| (h.name().to_owned(), h.value().to_owned(), h.sensitive()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_from_both_file_shapes() {
        let credentials = "[default]\naws_access_key_id = AK1\naws_secret_access_key = S1\n\n[work]\n# c\naws_access_key_id=AK2\naws_secret_access_key=S2\naws_session_token=T2\n";
        let c = from_profile(credentials, "work", false).unwrap();
        assert_eq!(
            (c.access_key_id.as_str(), c.session_token.as_deref()),
            ("AK2", Some("T2"))
        );
        assert_eq!(
            from_profile(credentials, "default", false)
                .unwrap()
                .access_key_id,
            "AK1"
        );
        assert!(from_profile(credentials, "nope", false).is_none());
        let config = "[profile work]\nregion = eu-west-1\naws_access_key_id = AK3\naws_secret_access_key = S3\n";
        assert_eq!(
            from_profile(config, "work", true).unwrap().access_key_id,
            "AK3"
        );
        assert!(from_profile(config, "work", false).is_none());
    }

    #[test]
    fn environment_wins_and_debug_hides_the_secret() {
        let env = |k: &str| match k {
            "AWS_ACCESS_KEY_ID" => Some("AKENV".to_owned()),
            "AWS_SECRET_ACCESS_KEY" => Some("very-secret".to_owned()),
            _ => None,
        };
        let c = AwsCredentials::resolve(&env, None).unwrap();
        assert_eq!(c.access_key_id, "AKENV");
        assert!(!format!("{c:?}").contains("very-secret"));
        let none = AwsCredentials::resolve(&|_| None, Some("x"))
            .unwrap_err()
            .to_string();
        assert!(none.contains("profile `x`"), "{none}");
    }
}
