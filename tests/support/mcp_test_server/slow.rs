//! `slow`: sleeps in 50 ms steps, reporting progress, until done or cancelled. With
//! `SWITCHBOARD_TEST_CANCELLED=FILE` it writes `running` to FILE as it starts and
//! `cancelled` when cancelled, so tests wait for events instead of moments.

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

fn arg<'a>(request: &'a CallToolRequestParams, name: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|a| a.get(name))
}

pub async fn slow(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ErrorData> {
    let millis = arg(request, "millis")
        .and_then(Value::as_u64)
        .unwrap_or(1000);
    let progress = arg(request, "progress")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let token = context.meta.get_progress_token();
    let steps = millis / 50;
    if let Ok(path) = std::env::var("SWITCHBOARD_TEST_CANCELLED") {
        let _ = std::fs::write(path, "running");
    }
    for step in 0..steps {
        tokio::select! {
            () = context.ct.cancelled() => {
                // Tests that a caller's going away reaches the server read this file.
                if let Ok(path) = std::env::var("SWITCHBOARD_TEST_CANCELLED") {
                    let _ = std::fs::write(path, "cancelled");
                }
                return Ok(json!({"content": [{"type": "text", "text": "cancelled"}], "isError": true}));
            }
            () = tokio::time::sleep(Duration::from_millis(50)) => {}
        }
        if progress && let Some(token) = &token {
            #[allow(clippy::cast_precision_loss)]
            let param = ProgressNotificationParam::new(token.clone(), (step + 1) as f64)
                .with_total(steps as f64)
                .with_message(format!("step {}", step + 1));
            let _ = context.peer.notify_progress(param).await;
        }
    }
    Ok(json!({"content": [{"type": "text", "text": format!("slept {millis} ms")}]}))
}
