//! Whether a stdio server that was asked to exit (its stdin closed) is still working.
//!
//! The MCP spec's stdio shutdown (basic/lifecycle, "Shutdown": close the server's
//! input, wait for it to exit, SIGTERM it if it does not within a reasonable time,
//! then SIGKILL) leaves "reasonable" to the client. A server that flushes state on
//! exit is busy: it gets up to [`BUSY_GRACE`]. A server that ignores the end of its
//! input (a Node server kept up by a timer, or waiting on an answer it will never
//! get) sits idle, and waiting longer only delays the person: once it has used no
//! CPU for [`IDLE_WINDOW`] and every process of it sleeps, it is sent SIGTERM.
//!
//! Linux reads this from `/proc/PID/stat` (proc(5): the state and the `utime`,
//! `stime` fields) for the server and its descendants (`/proc/PID/task/TID/children`,
//! so a server started through `npx` or a shell is seen whole). Elsewhere nothing is
//! known and the server gets [`UNKNOWN_GRACE`].

use std::time::Duration;

use tokio::time::Instant;

/// How long a server that keeps working after its stdin closed may take to exit.
pub const BUSY_GRACE: Duration = Duration::from_secs(2);
/// How long a server whose work cannot be observed gets.
pub const UNKNOWN_GRACE: Duration = Duration::from_millis(500);
/// No CPU used over this long, every process asleep: the server is idle.
pub const IDLE_WINDOW: Duration = Duration::from_millis(100);
/// How often the server is looked at while it is given time to exit. It decides only
/// how soon an idle server is noticed, not whether it is idle: an idle server is sent
/// SIGTERM at the first look after [`IDLE_WINDOW`], and one that handles the end of
/// its input on the CPU starts that window at the look after. A look reads a few
/// small `/proc` files per process.
pub const POLL: Duration = Duration::from_millis(10);

/// What one look at a process tree found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// CPU time used by every process of the tree, in clock ticks.
    pub ticks: u64,
    /// Every process of the tree is in interruptible sleep (`S`).
    pub asleep: bool,
}

/// Watches one server's processes for idleness.
#[derive(Debug)]
pub struct ExitWatch {
    pid: Option<u32>,
    /// The last sample that differed from the one before, and when it was taken.
    steady: Option<(Sample, Instant)>,
    started: Instant,
}

impl ExitWatch {
    pub fn new(pid: Option<u32>) -> Self {
        let mut watch = Self {
            pid,
            steady: None,
            started: Instant::now(),
        };
        watch.look(watch.started);
        watch
    }

    /// Whether to stop waiting and send SIGTERM, looking at the processes now.
    pub fn give_up(&mut self) -> bool {
        let now = Instant::now();
        let waited = now.duration_since(self.started);
        match self.look(now) {
            Seen::Unknown => waited >= UNKNOWN_GRACE,
            Seen::Busy => waited >= BUSY_GRACE,
            Seen::IdleSince(since) => waited >= BUSY_GRACE || now - since >= IDLE_WINDOW,
        }
    }

    /// Takes a sample and compares it with the steady one.
    fn look(&mut self, now: Instant) -> Seen {
        let Some(sample) = self.pid.and_then(tree_sample) else {
            return Seen::Unknown;
        };
        match self.steady {
            Some((last, since)) if last == sample && sample.asleep => Seen::IdleSince(since),
            Some((last, _)) if last == sample => Seen::Busy,
            _ => {
                self.steady = Some((sample, now));
                Seen::Busy
            }
        }
    }
}

/// What a look at the server found.
enum Seen {
    /// No process to look at (not Linux, or already gone).
    Unknown,
    /// Using the CPU, or a thread is running or waiting for a CPU.
    Busy,
    /// No CPU used and every process asleep, since then.
    IdleSince(Instant),
}

/// The CPU ticks and sleep state of `pid` and its descendants (at most 64 processes).
pub fn tree_sample(pid: u32) -> Option<Sample> {
    let mut total = stat(pid)?;
    let mut pending = children(pid);
    let mut seen = 1;
    while let Some(child) = pending.pop() {
        if seen >= 64 {
            break;
        }
        seen += 1;
        if let Some(sample) = stat(child) {
            total.ticks += sample.ticks;
            total.asleep &= sample.asleep;
            pending.extend(children(child));
        }
    }
    Some(total)
}

/// One process's sample: its CPU time from `/proc/PID/stat` (every thread's), asleep
/// only when every thread is. The process line shows the main thread's state alone;
/// a worker thread that is running or waiting for a CPU (`R`) is work going on,
/// however long a loaded machine keeps it waiting — its ticks may not move, but it is
/// not idle.
fn stat(pid: u32) -> Option<Sample> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut sample = parse_stat(&text)?;
    sample.asleep &= threads_asleep(pid);
    Some(sample)
}

/// Whether every thread of `pid` is in interruptible sleep (a thread gone meanwhile
/// counts as asleep).
fn threads_asleep(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return true;
    };
    tasks.flatten().all(|task| {
        std::fs::read_to_string(task.path().join("stat"))
            .ok()
            .and_then(|text| parse_stat(&text))
            .is_none_or(|thread| thread.asleep)
    })
}

/// The fields after the command name (which may hold spaces and parentheses): the
/// state is the first, `utime` and `stime` the 12th and 13th.
pub fn parse_stat(text: &str) -> Option<Sample> {
    let (_, rest) = text.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?;
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    Some(Sample {
        ticks: ticks(11)? + ticks(12)?,
        asleep: *state == "S",
    })
}

/// The children of every thread of `pid`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_with_a_running_thread_is_not_asleep() {
        // This thread is running the test: the process is not idle, whatever its
        // main thread is doing.
        assert!(!threads_asleep(std::process::id()));
        assert!(!stat(std::process::id()).unwrap().asleep);
    }

    #[test]
    fn a_stat_line_is_read_past_a_command_with_spaces_and_parentheses() {
        let line = "4242 (node (mcp) x) S 1 4242 4242 0 -1 4194560 2012 0 0 0 37 5 0 0 20 0 11 0 \
                    123 1234567 890 18446744073709551615";
        assert_eq!(
            parse_stat(line),
            Some(Sample {
                ticks: 42,
                asleep: true
            })
        );
        let running = line.replace(") S ", ") R ");
        assert_eq!(parse_stat(&running).map(|s| s.asleep), Some(false));
        assert_eq!(parse_stat("4242 (cut"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_is_seen() {
        let sample = tree_sample(std::process::id());
        assert!(sample.is_some());
    }

    /// Gives up (or not) after looking for a while, as `close` does.
    #[cfg(target_os = "linux")]
    fn verdict_after(program: &str, args: &[&str], wait: Duration) -> bool {
        use std::os::unix::process::CommandExt as _;
        let mut child = std::process::Command::new(program)
            .args(args)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        std::thread::sleep(Duration::from_millis(50));
        let mut watch = ExitWatch::new(Some(child.id()));
        let until = std::time::Instant::now() + wait;
        let mut gave_up = false;
        while std::time::Instant::now() < until && !gave_up {
            std::thread::sleep(POLL);
            gave_up = watch.give_up();
        }
        // The whole group: a nested shell's loop must not outlive the test.
        if let Some(group) = i32::try_from(child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        let _ = child.wait();
        gave_up
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_idle_process_is_given_up_on_before_the_fixed_grace() {
        assert!(verdict_after("sleep", &["30"], IDLE_WINDOW * 3));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_using_the_cpu_is_waited_for() {
        // A shell busy in a loop, its work seen through its child as well.
        let busy = "while :; do :; done";
        assert!(!verdict_after("sh", &["-c", busy], IDLE_WINDOW * 3));
        let nested = format!("sh -c '{busy}'; :");
        assert!(!verdict_after("sh", &["-c", &nested], IDLE_WINDOW * 3));
    }

    #[test]
    fn no_process_to_look_at_gets_the_fixed_grace() {
        let mut watch = ExitWatch::new(None);
        assert!(!watch.give_up());
    }
}
