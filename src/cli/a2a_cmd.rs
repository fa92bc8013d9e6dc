//! `switchboard a2a URL [TASK]`: a remote agent's card, or one task run to its end
//! (Ctrl+C cancels it on the server).

use std::fmt::Write as _;

use reqwest::header::HeaderMap;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::mcp_session::{exit, json, print, run_to_exit, safe};
use crate::a2a::{A2aAuth, A2aClient, A2aError, AgentCard, TaskState, Update};

#[derive(Debug, clap::Args)]
pub struct A2aArgs {
    /// The agent's base URL (its card is read from URL/.well-known/agent-card.json).
    pub url: String,
    /// The task to send; without it the agent card is printed.
    pub task: Option<String>,
    /// Environment variable holding a bearer token.
    #[arg(long, value_name = "VAR")]
    pub bearer_token_env_var: Option<String>,
    /// Environment variable holding an API key (sent as X-API-Key).
    #[arg(long, value_name = "VAR")]
    pub api_key_env_var: Option<String>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &A2aArgs) -> color_eyre::Result<()> {
    run_to_exit(async {
        let auth = A2aAuth {
            bearer_token_env_var: args.bearer_token_env_var.clone(),
            api_key_env_var: args.api_key_env_var.clone(),
            ..A2aAuth::default()
        };
        let headers = match auth.header_map(&|k| std::env::var(k).ok()) {
            Ok(h) => h,
            Err(e) => return fail(&e, exit::USAGE),
        };
        match &args.task {
            None => card(&args.url, headers, args.json).await,
            Some(task) => send(&args.url, headers, task, args.json).await,
        }
    })
}

fn fail(error: &A2aError, code: i32) -> i32 {
    eprintln!("switchboard: {}", safe(&error.to_string()));
    code
}

/// The exit status for `error`: a credentials problem (HTTP 401 / 403) or an agent
/// that cannot be reached is 3, as an MCP server that needs a login; the rest 4. A
/// credentials problem also says how to give them (and what the card asks for).
fn failed(error: &A2aError, security: &[String]) -> i32 {
    let code = match error {
        A2aError::Status {
            status: 401 | 403, ..
        } => {
            fail(error, exit::UNREACHABLE);
            let asks = if security.is_empty() {
                String::new()
            } else {
                format!(" (its card asks for: {})", safe(&security.join(", ")))
            };
            eprintln!(
                "the agent wants credentials{asks}: pass --bearer-token-env-var VAR or \
                 --api-key-env-var VAR naming the variable that holds them"
            );
            return exit::UNREACHABLE;
        }
        A2aError::Transport { .. } | A2aError::Status { .. } => exit::UNREACHABLE,
        _ => exit::REMOTE,
    };
    fail(error, code)
}

async fn connect(url: &str, headers: HeaderMap) -> Result<A2aClient, i32> {
    A2aClient::connect(url, headers)
        .await
        .map_err(|e| failed(&e, &[]))
}

async fn card(url: &str, headers: HeaderMap, as_json: bool) -> i32 {
    let client = match connect(url, headers).await {
        Ok(c) => c,
        Err(code) => return code,
    };
    print(&card_text(client.card(), as_json));
    exit::OK
}

fn card_text(card: &AgentCard, as_json: bool) -> String {
    if as_json {
        let skills: Vec<_> = card
            .skills
            .iter()
            .map(|s| json!({"id": s.id, "name": s.name, "description": s.description, "tags": s.tags}))
            .collect();
        return json(&json!({"name": card.name, "description": card.description,
            "version": card.version, "protocol_version": card.interface.version.as_str(),
            "url": card.interface.url, "streaming": card.streaming, "skills": skills,
            "security": card.security}));
    }
    let mut out = format!(
        "{} {} — A2A {} at {}{}\n",
        safe(&card.name),
        safe(&card.version),
        card.interface.version.as_str(),
        safe(&card.interface.url),
        if card.streaming { ", streaming" } else { "" }
    );
    if !card.description.is_empty() {
        let _ = writeln!(out, "{}", safe(&card.description));
    }
    if !card.security.is_empty() {
        let _ = writeln!(out, "credentials: {}", safe(&card.security.join(", ")));
    }
    for s in &card.skills {
        let _ = writeln!(out, "  {:<16} {}", safe(&s.id), safe(&s.description));
    }
    out
}

async fn send(url: &str, headers: HeaderMap, task: &str, as_json: bool) -> i32 {
    let client = match connect(url, headers).await {
        Ok(c) => c,
        Err(code) => return code,
    };
    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });
    let (tx, mut rx) = mpsc::unbounded_channel();
    let progress = tokio::spawn(async move {
        while let Some(update) = rx.recv().await {
            if let Update::Task(t) = &update {
                eprintln!("task {}: {}", safe(&t.id), t.state.as_str());
            } else if let Update::Status { state, .. } = &update {
                eprintln!("{}", state.as_str());
            }
        }
    });
    let result = client.run(task, Some(&tx), &cancel).await;
    drop(tx);
    let _ = progress.await;
    let outcome = match result {
        Ok(o) => o,
        Err(e) => return failed(&e, &client.card().security),
    };
    if as_json {
        print(&json(
            &json!({"task_id": outcome.task_id, "state": outcome.state.as_str(),
            "text": outcome.text, "status": outcome.status_text}),
        ));
    } else {
        print(&format!("{}\n", crate::sanitize::sanitize(&outcome.text)));
    }
    if outcome.state == TaskState::Completed {
        exit::OK
    } else {
        eprintln!("the task ended {}", outcome.state.as_str());
        exit::REMOTE
    }
}
