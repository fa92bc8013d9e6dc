//! A stdio server as rmcp's client transport: the child process with piped stdin,
//! stdout and stderr, one JSON-RPC message per line each way (MCP spec,
//! basic/transports, "stdio"). rmcp's `TokioChildProcess` does the same, but decodes
//! each line before anyone else sees it; here every raw line the server writes is
//! shown to [`TaskSupport`] first (rmcp's types drop the 2025-11-25 task fields).
//!
//! `close` is the stdio shutdown of the MCP spec (basic/lifecycle, "Shutdown"), as
//! rmcp's: close the child's stdin, wait for it to exit, then SIGTERM, wait again,
//! then SIGKILL. `super::connect::close` may SIGTERM it sooner, once it idles.

use std::borrow::Cow;
use std::io;
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::Either;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use super::call_line::CallLine;
use super::fast_reply::Calls;
use super::relay::{Lines, Relay, Step};
use super::shared_stdin::{SharedStdin, Writer};
use super::task_support::TaskSupport;

/// How long each step of the shutdown waits for the child to exit.
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// Lines longer than this are not inspected (rmcp still reads them).
const MAX_INSPECTED_LINE: usize = 16 << 20;

/// A line buffer kept past this size is given back once its line is done.
const KEEP_BUFFER: usize = 1 << 20;

pub struct ChildTransport {
    child: Option<Child>,
    /// The child's stdout, each line shown to [`TaskSupport`] as it passes.
    lines: Lines<LineTap<ChildStdout>>,
    /// The answers to the calls sent, read here (`fast_reply.rs`).
    calls: Calls,
    /// rmcp's line transport: it writes every message but a call to the child's
    /// stdin and reads the lines handed on through `relay`.
    transport: AsyncRwTransport<RoleClient, Relay, Writer<ChildStdin>>,
    relay: Relay,
    /// The child's stdin, shared with `transport`; calls are written here
    /// (`call_line.rs`).
    stdin: SharedStdin<ChildStdin>,
    call_line: CallLine,
}

impl ChildTransport {
    /// Starts `command` (killed if this is dropped) and returns its stderr pipe.
    pub fn spawn(
        mut command: Command,
        support: TaskSupport,
    ) -> io::Result<(Self, Option<ChildStderr>)> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other(
                "the child's stdin or stdout is not a pipe",
            ));
        };
        let stderr = child.stderr.take();
        let relay = Relay::default();
        let stdin = SharedStdin::new(stdin);
        Ok((
            Self {
                child: Some(child),
                lines: Lines::new(LineTap::new(stdout, support)),
                calls: Calls::default(),
                transport: AsyncRwTransport::new_client(relay.clone(), stdin.writer()),
                relay,
                stdin,
                call_line: CallLine::default(),
            },
            stderr,
        ))
    }

    pub fn id(&self) -> Option<u32> {
        self.child.as_ref()?.id()
    }

    async fn shutdown(&mut self) -> io::Result<()> {
        self.transport.close().await?;
        self.stdin.close().await;
        let Some(child) = self.child.as_mut() else {
            return Ok(());
        };
        if exited(child).await? {
            self.child = None;
            return Ok(());
        }
        if let Some(pid) = child
            .id()
            .and_then(|p| i32::try_from(p).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            if exited(child).await? {
                self.child = None;
                return Ok(());
            }
        }
        let killed = child.kill().await;
        self.child = None;
        killed
    }
}

/// Whether `child` exited within [`EXIT_WAIT`].
async fn exited(child: &mut Child) -> io::Result<bool> {
    match tokio::time::timeout(EXIT_WAIT, child.wait()).await {
        Ok(status) => status.map(|_| true),
        Err(_) => Ok(false),
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = io::Error;

    fn name() -> Cow<'static, str> {
        "stdio".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.calls.sent(&item);
        match self.call_line.line(&item) {
            Some(line) => Either::Left(self.stdin.write_line(line)),
            None => Either::Right(self.transport.send(item)),
        }
    }

    /// Reads the next line: an answer to a call is read here, any other line is
    /// handed on to rmcp's reader, which is polled first each time round, so it has
    /// taken each line handed on (and answered it, or dropped it) before the next is
    /// read. Cancel-safe: the line being read waits in `lines`, a line handed on in
    /// the relay, and rmcp's reader is cancel-safe itself.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            tokio::select! {
                biased;
                message = self.transport.receive() => return message,
                step = self.lines.next(&self.relay), if !self.relay.is_closed() => match step {
                    Some(Step::Whole) => {
                        let line = &self.lines.line;
                        let text = line.strip_suffix(b"\n").unwrap_or(line);
                        let answer = self.calls.answer(text);
                        if answer.is_none() {
                            self.relay.push(line);
                        }
                        self.lines.line.clear();
                        if self.lines.line.capacity() > KEEP_BUFFER {
                            self.lines.line = Vec::new();
                        }
                        if answer.is_some() {
                            return answer;
                        }
                    }
                    Some(Step::HandedOn) => {}
                    None => self.relay.close(),
                },
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.shutdown()
    }
}

/// A reader that shows each whole line it passes on to [`TaskSupport::inspect`].
pub struct LineTap<R> {
    inner: R,
    line: Vec<u8>,
    /// The current line passed [`MAX_INSPECTED_LINE`]: skipped to its end.
    skipping: bool,
    support: TaskSupport,
}

impl<R> LineTap<R> {
    pub fn new(inner: R, support: TaskSupport) -> Self {
        Self {
            inner,
            line: Vec::new(),
            skipping: false,
            support,
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(end) = memchr::memchr(b'\n', bytes) {
            let line = &bytes[..end];
            if self.line.is_empty() && !self.skipping {
                // The whole line came in this read (most do): read it where it is.
                self.support.inspect(line);
            } else {
                self.push(line);
                if !self.skipping {
                    self.support.inspect(&self.line);
                }
                self.line.clear();
                if self.line.capacity() > KEEP_BUFFER {
                    self.line = Vec::new();
                }
            }
            self.skipping = false;
            bytes = &bytes[end + 1..];
        }
        self.push(bytes);
    }

    fn push(&mut self, part: &[u8]) {
        if self.skipping {
            return;
        }
        if self.line.len() + part.len() > MAX_INSPECTED_LINE {
            self.skipping = true;
            self.line = Vec::new();
        } else {
            self.line.extend_from_slice(part);
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineTap<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            this.feed(&buf.filled()[before..]);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::task_support::TaskMode;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn lines_split_across_reads_are_inspected_whole() {
        let init = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}"#;
        let list = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"r","inputSchema":{},"execution":{"taskSupport":"required"}}]}}"#;
        let mut wire = Vec::new();
        wire.extend_from_slice(init);
        wire.push(b'\n');
        wire.extend_from_slice(list);
        wire.push(b'\n');
        // A reader that hands out 7 bytes at a time.
        let (mut tx, rx) = tokio::io::duplex(7);
        let support = TaskSupport::default();
        let mut tap = LineTap::new(rx, support.clone());
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            tx.write_all(&wire).await.unwrap();
        });
        let mut out = Vec::new();
        tap.read_to_end(&mut out).await.unwrap();
        writer.await.unwrap();
        assert_eq!(
            out.len(),
            init.len() + list.len() + 2,
            "bytes pass unchanged"
        );
        assert!(support.declared());
        assert_eq!(support.mode("r"), Some(TaskMode::Required));
    }

    #[test]
    fn whole_lines_in_one_read_are_inspected_without_being_kept() {
        let support = TaskSupport::default();
        let mut tap = LineTap::new(tokio::io::empty(), support.clone());
        tap.feed(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"capabilities\":{\"tasks\":{}},\"serverInfo\":{}}}\n{\"par");
        assert!(support.declared());
        assert_eq!(tap.line, b"{\"par", "only the unfinished line is kept");
    }

    #[test]
    fn an_overlong_line_is_skipped_to_its_end() {
        let support = TaskSupport::default();
        let mut tap = LineTap::new(tokio::io::empty(), support.clone());
        tap.feed(b"{\"serverInfo\":");
        tap.feed(&vec![b' '; MAX_INSPECTED_LINE]);
        tap.feed(b"}\n");
        assert!(tap.line.is_empty() && !tap.skipping);
        tap.feed(
            br#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"tasks":{}},"serverInfo":{}}}"#,
        );
        tap.feed(b"\n");
        assert!(support.declared(), "the next line is read again");
    }
}
