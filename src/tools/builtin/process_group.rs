//! Running a program in its own process group with one output budget for stdout and
//! stderr, and killing the whole group on timeout, on exit (leftover background
//! processes) or when the caller goes away.

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

/// What a finished (or killed) run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// stdout and stderr interleaved as written, up to the budget.
    pub output: Vec<u8>,
    /// Bytes written past the budget and dropped.
    pub dropped: u64,
    /// Exit code, when the program exited by itself.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    pub timed_out: bool,
}

/// Kills the process group when dropped (unless already done).
struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            // ESRCH: everyone is gone already.
            let _ = kill_process_group(pgid, Signal::KILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Output gathered so far.
#[derive(Default)]
struct Collector {
    output: Vec<u8>,
    dropped: u64,
}

/// Runs `command` (stdin closed, stdout and stderr into one pipe) in a new process
/// group. The group is killed when the program exits, when `timeout` passes, or when
/// the returned future is dropped.
pub async fn run(mut command: Command, timeout: Duration, budget: usize) -> io::Result<RunOutcome> {
    let (reader, writer) = io::pipe()?;
    command
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0);
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let mut child = command.spawn()?;
    // Our copies of the write end must go, or the pipe never reaches end-of-file.
    drop(command);
    let mut guard = GroupGuard {
        pgid: child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw),
    };
    let mut rx = pipe::Receiver::from_owned_fd(OwnedFd::from(reader))?;
    let mut collected = Collector::default();
    let status = {
        let reading = read_into(&mut rx, &mut collected, budget);
        tokio::pin!(reading);
        let sleep = tokio::time::sleep(timeout);
        tokio::pin!(sleep);
        let mut eof = false;
        let status = loop {
            tokio::select! {
                status = child.wait() => break Some(status?),
                () = &mut reading, if !eof => eof = true,
                () = &mut sleep => break None,
            }
        };
        // Whatever is left in the group (background jobs, or everything on timeout).
        guard.kill();
        let timed_out = status.is_none();
        let status = match status {
            Some(s) => s,
            None => child.wait().await?,
        };
        if !eof {
            // Everyone in the group is dead; what is still in the pipe is read to EOF.
            // A process that left the group (setsid) could hold the pipe: bound the wait.
            let _ = tokio::time::timeout(Duration::from_secs(5), &mut reading).await;
        }
        (status, timed_out)
    };
    let (status, timed_out): (ExitStatus, bool) = status;
    Ok(RunOutcome {
        output: collected.output,
        dropped: collected.dropped,
        exit_code: if timed_out { None } else { status.code() },
        signal: status.signal(),
        timed_out,
    })
}

async fn read_into(rx: &mut pipe::Receiver, into: &mut Collector, budget: usize) {
    let mut chunk = vec![0u8; 8192];
    loop {
        match rx.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let room = budget.saturating_sub(into.output.len());
                let keep = n.min(room);
                into.output.extend_from_slice(&chunk[..keep]);
                into.dropped += (n - keep) as u64;
            }
        }
    }
}
