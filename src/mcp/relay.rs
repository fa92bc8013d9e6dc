//! A stdio server's lines, read here first: an answer to a call is read straight
//! into its type (`fast_reply.rs`), every other line goes on to rmcp's own line
//! transport, through a [`Relay`], to be read the general way (its limits, its
//! error answers, the notifications it ignores).
//!
//! Order is kept: after each line handed on, rmcp's reader is polled until it has
//! taken it, before the next line is read (see `ChildTransport::receive`).

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader, ReadBuf};

/// The longest line read here whole; a longer one is handed on as it comes, so
/// rmcp's line limit holds and nothing is buffered twice.
const WHOLE_LINE: usize = 64 * 1024;

/// An in-memory pipe from our reader to rmcp's: writing never waits, reading waits
/// for bytes or the end.
#[derive(Debug, Clone, Default)]
pub struct Relay(Arc<Mutex<Piped>>);

#[derive(Debug, Default)]
struct Piped {
    bytes: VecDeque<u8>,
    closed: bool,
    reader: Option<Waker>,
}

impl Relay {
    fn lock(&self) -> std::sync::MutexGuard<'_, Piped> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn push(&self, bytes: &[u8]) {
        let mut piped = self.lock();
        piped.bytes.extend(bytes);
        if let Some(reader) = piped.reader.take() {
            reader.wake();
        }
    }

    /// No more bytes: the reader sees the end once it has read what is there.
    pub fn close(&self) {
        let mut piped = self.lock();
        piped.closed = true;
        if let Some(reader) = piped.reader.take() {
            reader.wake();
        }
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }
}

impl AsyncRead for Relay {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut piped = self.lock();
        if piped.bytes.is_empty() {
            if piped.closed {
                return Poll::Ready(Ok(()));
            }
            piped.reader = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let n = piped.bytes.len().min(buf.remaining());
        let (front, back) = piped.bytes.as_slices();
        let from_front = n.min(front.len());
        buf.put_slice(&front[..from_front]);
        buf.put_slice(&back[..n - from_front]);
        piped.bytes.drain(..n);
        Poll::Ready(Ok(()))
    }
}

/// What [`Lines::next`] read.
pub enum Step {
    /// A whole line is in [`Lines::line`] (with its newline).
    Whole,
    /// Part of a long line went on through the relay.
    HandedOn,
}

/// The lines of a reader, each read whole when it is short enough; kept here
/// between calls, so a `next` dropped at its await loses nothing.
pub struct Lines<R> {
    read: BufReader<R>,
    pub line: Vec<u8>,
    /// Handing the rest of a long line on as it comes.
    handing_on: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub fn new(read: R) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            handing_on: false,
        }
    }

    /// The next whole line, or the next part of a long one handed on to `relay`;
    /// `None` at the end of the input (a last line without its newline is dropped,
    /// as rmcp drops it) or when it cannot be read. Only `fill_buf` awaits.
    pub async fn next(&mut self, relay: &Relay) -> Option<Step> {
        loop {
            let buf = self.read.fill_buf().await.ok()?;
            if buf.is_empty() {
                return None;
            }
            let newline = memchr::memchr(b'\n', buf);
            let used = newline.map_or(buf.len(), |i| i + 1);
            let step = if self.handing_on {
                relay.push(&buf[..used]);
                self.handing_on = newline.is_none();
                Some(Step::HandedOn)
            } else if self.line.len() + used > WHOLE_LINE {
                relay.push(&self.line);
                relay.push(&buf[..used]);
                self.line.clear();
                self.handing_on = newline.is_none();
                Some(Step::HandedOn)
            } else {
                self.line.extend_from_slice(&buf[..used]);
                newline.map(|_| Step::Whole)
            };
            self.read.consume(used);
            if step.is_some() {
                return step;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::FutureExt as _;
    use tokio::io::AsyncReadExt as _;

    use super::*;

    #[tokio::test]
    async fn the_relay_passes_bytes_in_order_then_the_end() {
        let mut relay = Relay::default();
        let mut out = [0u8; 8];
        assert!(relay.read(&mut out).now_or_never().is_none(), "nothing yet");
        relay.push(b"abc");
        relay.push(b"defghij");
        assert_eq!(relay.read(&mut out).await.unwrap(), 8);
        assert_eq!(&out, b"abcdefgh");
        relay.close();
        let mut rest = Vec::new();
        relay.read_to_end(&mut rest).await.unwrap();
        assert_eq!(rest, b"ij");
    }

    /// Short lines come whole; a long one goes on through the relay in parts, and
    /// the line after it is whole again; a read dropped mid-line loses nothing.
    #[tokio::test]
    async fn short_lines_come_whole_and_long_ones_are_handed_on() {
        use tokio::io::AsyncWriteExt as _;
        let (mut tx, rx) = tokio::io::duplex(1024);
        let mut lines = Lines::new(rx);
        let relay = Relay::default();
        tx.write_all(b"{\"a\":").await.unwrap();
        assert!(lines.next(&relay).now_or_never().is_none(), "half a line");
        tx.write_all(b"1}\n").await.unwrap();
        assert!(matches!(lines.next(&relay).await, Some(Step::Whole)));
        assert_eq!(lines.line, b"{\"a\":1}\n");
        lines.line.clear();
        let long = vec![b'x'; 3 * WHOLE_LINE];
        let writer = tokio::spawn(async move {
            tx.write_all(&long).await.unwrap();
            tx.write_all(b"\n{}\n").await.unwrap();
        });
        let mut parts = 0;
        while let Some(Step::HandedOn) = lines.next(&relay).await {
            parts += 1;
        }
        writer.await.unwrap();
        assert!(parts > 1, "handed on as it came: {parts}");
        assert_eq!(lines.line, b"{}\n");
        relay.close();
        let mut handed = Vec::new();
        relay.clone().read_to_end(&mut handed).await.unwrap();
        assert_eq!(handed.len(), 3 * WHOLE_LINE + 1);
        assert_eq!(handed.last(), Some(&b'\n'));
    }
}
