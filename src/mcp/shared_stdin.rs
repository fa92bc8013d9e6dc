//! A stdio server's stdin, written from two places: rmcp's line transport (every
//! message it writes, and the error answers its reader sends) and the `tools/call`
//! lines written out in `call_line.rs`. Each message is written whole under one
//! lock, so lines never interleave, and the input closes when [`SharedStdin::close`]
//! drops the pipe, whoever else still holds a handle.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncWrite, AsyncWriteExt as _};
use tokio::sync::{Mutex, OwnedMutexGuard};

type Guard<W> = OwnedMutexGuard<Option<W>>;

/// The pipe, `None` once closed.
#[derive(Debug)]
pub struct SharedStdin<W>(Arc<Mutex<Option<W>>>);

impl<W> Clone for SharedStdin<W> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "Transport is closed")
}

impl<W: AsyncWrite + Unpin + Send + 'static> SharedStdin<W> {
    pub fn new(pipe: W) -> Self {
        Self(Arc::new(Mutex::new(Some(pipe))))
    }

    /// Writes `line` whole.
    pub fn write_line(
        &self,
        line: Vec<u8>,
    ) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let pipe = Arc::clone(&self.0);
        async move {
            let mut pipe = pipe.lock().await;
            let pipe = pipe.as_mut().ok_or_else(closed)?;
            pipe.write_all(&line).await?;
            pipe.flush().await
        }
    }

    /// Closes the pipe once the write under way (if any) is done.
    pub async fn close(&self) {
        drop(self.0.lock().await.take());
    }

    /// A writer for rmcp's line transport: each flush writes what it was given
    /// since the last one, whole.
    pub fn writer(&self) -> Writer<W> {
        Writer {
            pipe: Arc::clone(&self.0),
            pending: Vec::new(),
            written: 0,
            lock: Lock::Idle,
        }
    }
}

enum Lock<W> {
    Idle,
    Locking(Pin<Box<dyn Future<Output = Guard<W>> + Send>>),
    Held(Guard<W>),
}

/// See [`SharedStdin::writer`].
pub struct Writer<W> {
    pipe: Arc<Mutex<Option<W>>>,
    pending: Vec<u8>,
    /// How much of `pending` is written.
    written: usize,
    lock: Lock<W>,
}

impl<W: AsyncWrite + Unpin + Send + 'static> AsyncWrite for Writer<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().pending.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            match &mut this.lock {
                Lock::Idle if this.pending.is_empty() => return Poll::Ready(Ok(())),
                Lock::Idle => {
                    this.lock = Lock::Locking(Box::pin(Arc::clone(&this.pipe).lock_owned()));
                }
                Lock::Locking(locking) => {
                    let guard = ready!(locking.as_mut().poll(cx));
                    this.lock = Lock::Held(guard);
                }
                Lock::Held(guard) => {
                    let done = ready!(write_pending(guard, &this.pending, &mut this.written, cx));
                    this.lock = Lock::Idle;
                    this.pending.clear();
                    this.written = 0;
                    return Poll::Ready(done);
                }
            }
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}

/// Writes the rest of `pending` to the pipe and flushes it.
fn write_pending<W: AsyncWrite + Unpin>(
    guard: &mut Guard<W>,
    pending: &[u8],
    written: &mut usize,
    cx: &mut Context<'_>,
) -> Poll<io::Result<()>> {
    let Some(pipe) = guard.as_mut() else {
        return Poll::Ready(Err(closed()));
    };
    while *written < pending.len() {
        let n = ready!(Pin::new(&mut *pipe).poll_write(cx, &pending[*written..]))?;
        if n == 0 {
            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
        }
        *written += n;
    }
    Pin::new(pipe).poll_flush(cx)
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt as _;

    use super::*;

    /// Everything the other end of the pipe receives until it closes.
    fn read_all(mut rx: tokio::io::DuplexStream) -> tokio::task::JoinHandle<String> {
        tokio::spawn(async move {
            let mut all = String::new();
            rx.read_to_string(&mut all).await.unwrap();
            all
        })
    }

    /// Lines from both ways arrive whole and in the order written, through a pipe
    /// far smaller than they are; after `close` the reader sees the end and
    /// writes fail.
    #[tokio::test]
    async fn both_ways_write_whole_lines_then_close() {
        let (tx, rx) = tokio::io::duplex(5);
        let stdin = SharedStdin::new(tx);
        let reader = read_all(rx);
        let mut writer = stdin.writer();
        let mut expected = String::new();
        for i in 0..20 {
            let line = format!("{{\"n\":{i},\"pad\":\"{}\"}}\n", "x".repeat(i * 3));
            if i % 2 == 0 {
                stdin.write_line(line.clone().into_bytes()).await.unwrap();
            } else {
                let (head, tail) = line.split_at(4);
                writer.write_all(head.as_bytes()).await.unwrap();
                writer.write_all(tail.as_bytes()).await.unwrap();
                writer.flush().await.unwrap();
            }
            expected.push_str(&line);
        }
        stdin.close().await;
        assert_eq!(reader.await.unwrap(), expected);
        let after = stdin.write_line(b"{}\n".to_vec()).await;
        assert_eq!(after.unwrap_err().kind(), io::ErrorKind::NotConnected);
        writer.write_all(b"{}\n").await.unwrap();
        assert_eq!(
            writer.flush().await.unwrap_err().kind(),
            io::ErrorKind::NotConnected
        );
    }

    /// Writes racing from many tasks never interleave within a line.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writes_keep_lines_whole() {
        let (tx, rx) = tokio::io::duplex(7);
        let stdin = SharedStdin::new(tx);
        let reader = read_all(rx);
        let mut tasks = Vec::new();
        for t in 0..8 {
            let stdin = stdin.clone();
            tasks.push(tokio::spawn(async move {
                let mut writer = stdin.writer();
                for i in 0..25 {
                    let line = format!("{t}:{i}:{}\n", "y".repeat(40));
                    if (t + i) % 2 == 0 {
                        stdin.write_line(line.into_bytes()).await.unwrap();
                    } else {
                        writer.write_all(line.as_bytes()).await.unwrap();
                        writer.flush().await.unwrap();
                    }
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        stdin.close().await;
        let all = reader.await.unwrap();
        let lines: Vec<&str> = all.lines().collect();
        assert_eq!(lines.len(), 200);
        for line in lines {
            assert!(
                line.ends_with(&"y".repeat(40)) && line.matches(':').count() == 2,
                "{line}"
            );
        }
    }
}
