//! A Server-Sent Events parser over network-sized byte pieces, per the WHATWG
//! "event stream interpretation" rules
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>).
//!
//! Lines are found with `memchr` in one buffer that is compacted once per piece; the
//! event name and data buffers are reused, so a steady stream allocates nothing per
//! event. Events borrow from the parser ([`SseParser::next_event`]).
//! `id` and `retry` are not used by switchboard's clients and are ignored.

use futures::{Stream, StreamExt};

/// One dispatched event. `name` is `message` when the server gave none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    pub name: &'a str,
    pub data: &'a str,
}

/// The stream broke the format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("an event is not valid UTF-8")]
    Utf8,
}

/// Feed pieces with [`push`](Self::push), then drain [`next_event`](Self::next_event)
/// until it returns `None`.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    /// Start of the unparsed bytes in `buf`.
    pos: usize,
    /// The last line ended with CR at the end of a piece: a leading LF is its CRLF.
    skip_lf: bool,
    /// The BOM check at the very start is done.
    started: bool,
    name: Vec<u8>,
    /// Every `data` value followed by LF, as the spec builds it.
    data: Vec<u8>,
    /// `name` and `data` belong to the event returned last.
    dispatched: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a piece of the stream.
    pub fn push(&mut self, piece: &[u8]) {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(piece);
    }

    /// The next complete event, or `None` until more bytes are pushed. Events with no
    /// `data` line are not dispatched (the spec's empty data buffer).
    pub fn next_event(&mut self) -> Result<Option<SseEvent<'_>>, SseError> {
        if self.dispatched {
            self.dispatched = false;
            self.data.clear();
            self.name.clear();
        }
        if !self.started {
            if self.buf.len() < BOM.len() && BOM.starts_with(&self.buf) {
                return Ok(None);
            }
            self.started = true;
            if self.buf.starts_with(BOM) {
                self.pos = BOM.len();
            }
        }
        loop {
            if self.skip_lf && self.pos < self.buf.len() {
                self.skip_lf = false;
                if self.buf[self.pos] == b'\n' {
                    self.pos += 1;
                }
            }
            let rest = &self.buf[self.pos..];
            let Some(len) = memchr::memchr2(b'\n', b'\r', rest) else {
                return Ok(None);
            };
            let start = self.pos;
            let mut next = start + len + 1;
            if rest[len] == b'\r' {
                match self.buf.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            self.pos = next;
            if len == 0 {
                if self.data.is_empty() {
                    self.name.clear();
                    continue;
                }
                return self.dispatch().map(Some);
            }
            self.field(start, start + len);
        }
    }

    /// Applies one non-empty line `buf[start..end]`.
    fn field(&mut self, start: usize, end: usize) {
        let line = &self.buf[start..end];
        let (field, value) = match memchr::memchr(b':', line) {
            Some(0) => return, // a comment
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => {
                self.name.clear();
                self.name.extend_from_slice(value);
            }
            _ => {}
        }
    }

    /// Ends the current event; its buffers are cleared on the next call (the event
    /// borrows them until then).
    fn dispatch(&mut self) -> Result<SseEvent<'_>, SseError> {
        self.data.pop(); // the LF after the last value
        self.dispatched = true;
        let data = std::str::from_utf8(&self.data).map_err(|_| SseError::Utf8)?;
        let name = std::str::from_utf8(&self.name).map_err(|_| SseError::Utf8)?;
        Ok(SseEvent {
            name: if name.is_empty() { "message" } else { name },
            data,
        })
    }
}

/// An owned event, for readers that keep it past the next read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedEvent {
    pub name: String,
    pub data: String,
}

/// What ended an event stream early: the transport (`E`, the body's error) or the
/// format.
#[derive(Debug, thiserror::Error)]
pub enum StreamError<E> {
    #[error("{0}")]
    Transport(E),
    #[error(transparent)]
    Format(#[from] SseError),
}

/// The events of a byte stream, owned; the first error (the transport's or the
/// format's) ends it.
pub fn events<S, B, E>(body: S) -> impl Stream<Item = Result<OwnedEvent, StreamError<E>>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    let state = (Box::pin(body), SseParser::new(), false);
    futures::stream::unfold(state, |(mut body, mut parser, done)| async move {
        if done {
            return None;
        }
        loop {
            let failed = match parser.next_event() {
                Ok(Some(e)) => {
                    let event = OwnedEvent {
                        name: e.name.to_owned(),
                        data: e.data.to_owned(),
                    };
                    return Some((Ok(event), (body, parser, false)));
                }
                Ok(None) => None,
                Err(e) => Some(StreamError::Format(e)),
            };
            let failed = match failed {
                Some(e) => Some(e),
                None => match body.next().await {
                    Some(Ok(piece)) => {
                        parser.push(piece.as_ref());
                        None
                    }
                    Some(Err(e)) => Some(StreamError::Transport(e)),
                    None => return None,
                },
            };
            if let Some(e) = failed {
                return Some((Err(e), (body, parser, true)));
            }
        }
    })
}

#[cfg(test)]
mod tests;
