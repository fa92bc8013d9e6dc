//! `switchboard test [FILE…]`: runs saved calls as tests. Every tool call goes through
//! the registry's gate (origin `cli`, non-interactive, `--approve` as for `call`);
//! the cases of one server run in order, servers in parallel. Exit 0 when every case
//! passes, 1 when one fails (or cannot run), 3 when a server could not start.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use super::Cli;
use super::call_cmd::BUILTIN;
use super::mcp_session::{exit, open_servers, readiness, render_blocks, run_to_exit, safe};
use crate::cases::{self, Case, CaseReport, Observed, Outcome, Target};
use crate::mcp::qualified_name;
use crate::policy::Mode;
use crate::tools::{CallOutcome, Origin, ToolContext};
use crate::workbench::Workbench;

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Collections of cases (default: ./switchboard.calls.toml).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Decide in this mode instead of the configured one (as for `call`).
    #[arg(long, value_name = "MODE")]
    pub approve: Option<Mode>,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Only the cases whose `server › name` contains TEXT (any case).
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
}

pub fn run(cli: &Cli, args: &TestArgs) -> color_eyre::Result<()> {
    run_to_exit(test(cli, args))
}

async fn test(cli: &Cli, args: &TestArgs) -> i32 {
    let cases = match chosen_cases(args) {
        Ok(cases) => cases,
        Err(code) => return code,
    };
    let mut servers: Vec<&str> = Vec::new();
    for case in &cases {
        if !servers.contains(&case.server.as_str()) {
            servers.push(&case.server);
        }
    }
    let started = Instant::now();
    let workbench = match open_servers(cli, args.approve, &servers).await {
        Ok(w) => w,
        Err(code) => return code,
    };
    let runs = servers.iter().map(|server| {
        let mine: Vec<(usize, &Case)> = cases
            .iter()
            .enumerate()
            .filter(|(_, c)| c.server == *server)
            .collect();
        run_server(&workbench, server, mine)
    });
    let results = futures::future::join_all(runs).await;
    workbench.shutdown().await;
    let total = started.elapsed();
    let unreachable = results
        .iter()
        .any(|(_, code)| *code == Some(exit::UNREACHABLE));
    let mut reports: Vec<(usize, CaseReport)> = results.into_iter().flat_map(|(r, _)| r).collect();
    reports.sort_by_key(|(i, _)| *i);
    let reports: Vec<CaseReport> = reports.into_iter().map(|(_, r)| r).collect();
    eprintln!("{}", summary(&reports, total));
    if let Some(path) = &args.junit {
        if let Err(e) = std::fs::write(path, cases::junit_xml(&reports, total)) {
            eprintln!("{}: {e}", path.display());
            return exit::USAGE;
        }
        eprintln!("JUnit report: {}", path.display());
    }
    if unreachable {
        exit::UNREACHABLE
    } else if reports.iter().all(|r| r.outcome == Outcome::Pass) {
        exit::OK
    } else {
        exit::USAGE
    }
}

/// The cases of every file that `--filter` keeps; problems are printed (exit 1).
fn chosen_cases(args: &TestArgs) -> Result<Vec<Case>, i32> {
    let files = if args.files.is_empty() {
        vec![PathBuf::from(cases::DEFAULT_FILE)]
    } else {
        args.files.clone()
    };
    let mut all = Vec::new();
    for file in &files {
        match cases::load(file) {
            Ok(cases) => all.extend(cases),
            Err(e) => {
                eprintln!("{e}");
                return Err(exit::USAGE);
            }
        }
    }
    if let Some(filter) = &args.filter {
        let filter = filter.to_lowercase();
        all.retain(|c| {
            format!("{} › {}", c.server, c.name)
                .to_lowercase()
                .contains(&filter)
        });
    }
    if all.is_empty() {
        let what = if args.filter.is_some() {
            "no case matches --filter"
        } else {
            "no cases to run ([[case]] tables; see `switchboard call --save-case`)"
        };
        eprintln!("{what}");
        return Err(exit::USAGE);
    }
    Ok(all)
}

/// Runs one server's cases in order, printing each as it ends. The second value is the
/// exit status of a server that could not be used (every case then is an error).
async fn run_server(
    workbench: &Workbench,
    server: &str,
    cases: Vec<(usize, &Case)>,
) -> (Vec<(usize, CaseReport)>, Option<i32>) {
    let ready = if server == BUILTIN {
        workbench.sync_now().await;
        Ok(())
    } else {
        readiness(workbench, server).await
    };
    let mut reports = Vec::with_capacity(cases.len());
    for (index, case) in cases {
        let report = match &ready {
            Ok(()) => run_case(workbench, case).await,
            Err((_, why)) => CaseReport {
                case: case.clone(),
                outcome: Outcome::Error(format!("server {} cannot be used: {why}", safe(server))),
                elapsed: Duration::ZERO,
            },
        };
        super::mcp_session::print(&report_text(&report));
        reports.push((index, report));
    }
    (reports, ready.err().map(|(code, _)| code))
}

async fn run_case(workbench: &Workbench, case: &Case) -> CaseReport {
    let started = Instant::now();
    let observed = match &case.target {
        Target::Tool { name, args } => call_tool(workbench, &case.server, name, args.clone()).await,
        Target::Read { uri } => Ok(read(workbench, &case.server, uri).await),
        Target::Prompt { name, args } => {
            Ok(prompt(workbench, &case.server, name, args.clone()).await)
        }
    };
    let elapsed = started.elapsed();
    let outcome = match observed {
        Ok(mut observed) => {
            observed.elapsed = elapsed;
            let failures = cases::check(&case.expect, &observed);
            if failures.is_empty() {
                Outcome::Pass
            } else {
                Outcome::Fail(failures)
            }
        }
        Err(why) => Outcome::Error(why),
    };
    CaseReport {
        case: case.clone(),
        outcome,
        elapsed,
    }
}

/// One tool call through the gate. `Err`: the case cannot run (no such tool).
async fn call_tool(
    workbench: &Workbench,
    server: &str,
    tool: &str,
    args: serde_json::Map<String, serde_json::Value>,
) -> Result<Observed, String> {
    let name = if server == BUILTIN {
        tool.to_owned()
    } else {
        qualified_name(server, tool)
    };
    let Some(spec) = workbench
        .registry
        .specs()
        .into_iter()
        .find(|s| s.name == name)
    else {
        return Err(format!(
            "no tool {} on server {} (or it is turned off)",
            safe(tool),
            safe(server)
        ));
    };
    let ctx = ToolContext::new(format!("test-{}", std::process::id()), Origin::Cli);
    Ok(match workbench.registry.invoke(&name, args, &ctx).await {
        CallOutcome::Ran(result) => {
            Observed::from_tool_result(&result, spec.output_schema.is_some())
        }
        CallOutcome::Denied { message, .. } => Observed {
            ok: false,
            text: format!("denied: {message} (see --approve)"),
            ..Observed::default()
        },
        other => Observed {
            ok: false,
            text: other.into_result().text_content(),
            ..Observed::default()
        },
    })
}

async fn read(workbench: &Workbench, server: &str, uri: &str) -> Observed {
    match workbench.hub.read_resource(server, uri).await {
        Ok(read) => Observed::from_text(true, &render_blocks(&read.contents)),
        Err(e) => Observed::from_text(false, &e.to_string()),
    }
}

async fn prompt(
    workbench: &Workbench,
    server: &str,
    name: &str,
    args: serde_json::Map<String, serde_json::Value>,
) -> Observed {
    match workbench.hub.get_prompt(server, name, args).await {
        Ok(prompt) => Observed::from_text(true, &prompt.to_text()),
        Err(e) => Observed::from_text(false, &e.to_string()),
    }
}

/// `PASS  server › name  (12 ms)`, and for a failure what was expected and what came
/// back, indented; untrusted text made safe line by line.
fn report_text(report: &CaseReport) -> String {
    let case = &report.case;
    let (word, lines) = match &report.outcome {
        Outcome::Pass => ("PASS ", Vec::new()),
        Outcome::Fail(failures) => (
            "FAIL ",
            failures.iter().flat_map(cases::Failure::lines).collect(),
        ),
        Outcome::Error(why) => ("ERROR", vec![why.clone()]),
    };
    let mut text = format!(
        "{word} {} › {}  ({} ms)\n",
        safe(&case.server),
        safe(&case.name),
        report.elapsed.as_millis()
    );
    if report.outcome != Outcome::Pass {
        for line in lines {
            let _ = writeln!(text, "      {}", safe(&line));
        }
        let _ = writeln!(
            text,
            "      at {}:{} ({})",
            case.file.display(),
            case.line,
            safe(&case.target.label())
        );
    }
    text
}

fn summary(reports: &[CaseReport], total: Duration) -> String {
    let passed = reports
        .iter()
        .filter(|r| r.outcome == Outcome::Pass)
        .count();
    let failed = reports
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Fail(_)))
        .count();
    let errors = reports.len() - passed - failed;
    let noun = if reports.len() == 1 { "case" } else { "cases" };
    format!(
        "{} {noun}: {passed} passed, {failed} failed, {errors} could not run ({:.1} s)",
        reports.len(),
        total.as_secs_f64()
    )
}

/// Saves what came back as a case in `file` (`--save-case`) and says so on stderr.
pub(super) fn save_case(
    file: &std::path::Path,
    server: &str,
    target: &Target,
    observed: &Observed,
) -> i32 {
    match cases::append(file, cases::case_for(server, target, observed)) {
        Ok(name) => {
            eprintln!("saved case {:?} to {}", safe(&name), file.display());
            exit::OK
        }
        Err(e) => {
            eprintln!("{}", safe(&e.to_string()));
            exit::USAGE
        }
    }
}
