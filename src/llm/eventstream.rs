//! AWS event-stream framing (`application/vnd.amazon.eventstream`): length-prefixed,
//! CRC-checked binary messages with typed headers, decoded by `aws-smithy-eventstream`.
//! Format: <https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html>.

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use serde_json::json;

use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
use aws_smithy_types::event_stream::Message;

/// The frames of `bytes` as `(event name, payload)`: the name is `:event-type` for an
/// event and `exception:TYPE` for an exception (its payload is the exception's JSON).
/// A bad frame or a body that ends inside a frame is an error.
pub fn events<S, E>(bytes: S) -> impl Stream<Item = Result<(String, String), FrameError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
    E: std::fmt::Display,
{
    let state = Reader {
        bytes,
        buffer: BytesMut::new(),
        decoder: MessageFrameDecoder::new(),
        partial: false,
        failed: false,
    };
    futures::stream::unfold(state, |mut state| async move {
        let item = state.next_event().await?;
        state.failed = item.is_err();
        Some((item, state))
    })
}

/// Why the frames of a body could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("bad event-stream frame: {0}")]
    Frame(String),
    /// The body's own error (the connection).
    #[error("{0}")]
    Body(String),
    #[error("the body ended inside an event-stream frame")]
    EndedInFrame,
}

struct Reader<S> {
    bytes: S,
    buffer: BytesMut,
    decoder: MessageFrameDecoder,
    /// Bytes of an unfinished frame were read.
    partial: bool,
    failed: bool,
}

impl<S, E> Reader<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    async fn next_event(&mut self) -> Option<Result<(String, String), FrameError>> {
        if self.failed {
            return None;
        }
        loop {
            match self.decoder.decode_frame(&mut self.buffer) {
                Ok(DecodedFrame::Complete(message)) => {
                    self.partial = !self.buffer.is_empty();
                    return Some(Ok(named(&message)));
                }
                Ok(DecodedFrame::Incomplete) => {}
                Err(e) => return Some(Err(FrameError::Frame(e.to_string()))),
            }
            match self.bytes.next().await {
                Some(Ok(chunk)) => {
                    self.partial = true;
                    self.buffer.extend_from_slice(&chunk);
                }
                Some(Err(e)) => return Some(Err(FrameError::Body(e.to_string()))),
                None if self.partial => {
                    return Some(Err(FrameError::EndedInFrame));
                }
                None => return None,
            }
        }
    }
}

/// A message's name and payload text.
fn named(message: &Message) -> (String, String) {
    let header = |name: &str| {
        message
            .headers()
            .iter()
            .find(|h| h.name().as_str() == name)
            .and_then(|h| h.value().as_string().ok())
            .map(|v| v.as_str().to_owned())
    };
    let payload = String::from_utf8_lossy(message.payload()).into_owned();
    match header(":message-type").as_deref() {
        Some("exception") => {
            let kind = header(":exception-type").unwrap_or_else(|| "exception".into());
            (format!("exception:{kind}"), payload)
        }
        Some("error") => {
            let code = header(":error-code").unwrap_or_else(|| "error".into());
            let text = header(":error-message").unwrap_or_default();
            (
                format!("exception:{code}"),
                json!({"message": text}).to_string(),
            )
        }
        _ => (header(":event-type").unwrap_or_default(), payload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_smithy_eventstream::frame::write_message_to;
    use aws_smithy_types::event_stream::{Header, HeaderValue};

    fn frame(kind: &str, name_header: &str, name: &str, payload: &str) -> Vec<u8> {
        let message = Message::new(payload.as_bytes().to_vec())
            .add_header(Header::new(
                ":message-type",
                HeaderValue::String(kind.to_owned().into()),
            ))
            .add_header(Header::new(
                name_header.to_owned(),
                HeaderValue::String(name.to_owned().into()),
            ));
        let mut out = Vec::new();
        write_message_to(&message, &mut out).unwrap();
        out
    }

    async fn read(chunks: Vec<Vec<u8>>) -> Vec<Result<(String, String), FrameError>> {
        let stream = futures::stream::iter(
            chunks
                .into_iter()
                .map(|c| Ok::<_, std::io::Error>(Bytes::from(c))),
        );
        events(stream).collect().await
    }

    #[tokio::test]
    async fn frames_split_anywhere_decode_in_order() {
        let mut all = frame(
            "event",
            ":event-type",
            "messageStart",
            r#"{"role":"assistant"}"#,
        );
        all.extend(frame(
            "exception",
            ":exception-type",
            "throttlingException",
            "{}",
        ));
        let pieces: Vec<Vec<u8>> = all.chunks(7).map(<[u8]>::to_vec).collect();
        let out = read(pieces).await;
        assert_eq!(
            out,
            vec![
                Ok(("messageStart".into(), r#"{"role":"assistant"}"#.into())),
                Ok(("exception:throttlingException".into(), "{}".into())),
            ]
        );
    }

    #[tokio::test]
    async fn a_cut_or_corrupt_frame_is_an_error() {
        let whole = frame("event", ":event-type", "messageStop", "{}");
        let cut = read(vec![whole[..whole.len() - 3].to_vec()]).await;
        assert_eq!(cut.len(), 1);
        assert_eq!(cut[0], Err(FrameError::EndedInFrame));
        let mut bad = whole.clone();
        let last = bad.len() - 1;
        bad[last] ^= 0xff; // message CRC
        let out = read(vec![bad]).await;
        assert_eq!(out.len(), 1);
        assert!(
            out[0]
                .as_ref()
                .unwrap_err()
                .to_string()
                .contains("bad event-stream frame")
        );
    }
}
