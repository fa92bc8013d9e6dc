//! Servers that ask: elicitation, sampling and roots, as server→client requests
//! (2025-11-25) and as `input_required` rounds (2026-07-28), answered by an asker;
//! request state echoed; the round limit.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use switchboard::config::{McpConfig, ProtocolChoice, SamplingPolicy, ServerConfig};
use switchboard::mcp::{
    Answer, Ask, Asker, CallContext, ChannelAsker, ElicitMode, ElicitationAnswer, ElicitationKind,
    HeadlessAsker, HubOptions, McpEvent, McpHub, SamplingReply,
};
use switchboard::policy::CallBudget;

use crate::support::mcp::{HttpServer, assert_ready, settled, stdio_config, url_config};

const ERAS: [ProtocolChoice; 2] = [ProtocolChoice::V2025, ProtocolChoice::V2026];

fn asking(protocol: ProtocolChoice) -> ServerConfig {
    let mut config = stdio_config(&["--asking"]);
    config.protocol = Some(protocol);
    config
}

fn hub(config: ServerConfig, asker: Arc<dyn Asker>, mcp: McpConfig) -> McpHub {
    let servers = BTreeMap::from([("t".to_owned(), config)]);
    McpHub::start_with(
        &servers,
        HubOptions {
            roots: vec![std::path::PathBuf::from("/tmp/the-root")],
            asker: Some(asker),
            mcp,
            ..HubOptions::default()
        },
    )
}

async fn call(hub: &McpHub, tool: &str, args: Value) -> Result<String, String> {
    let Value::Object(args) = args else {
        panic!("not an object")
    };
    hub.call_tool("t", tool, args, None, CallContext::default())
        .await
        .map(|r| r.text_content())
        .map_err(|e| e.to_string())
}

fn headless(mode: ElicitMode) -> Arc<dyn Asker> {
    Arc::new(HeadlessAsker { mode, notice: None })
}

#[tokio::test]
async fn headless_answers_in_both_eras() {
    for protocol in ERAS {
        let era = protocol.as_str();
        let accept = hub(
            asking(protocol),
            headless(ElicitMode::AcceptDefaults),
            McpConfig::default(),
        );
        assert_ready(&settled(&accept).await, "t");
        assert_eq!(
            call(&accept, "ask_name", json!({})).await.unwrap(),
            "Hello, World",
            "{era}"
        );
        assert_eq!(
            call(&accept, "ask_name", json!({"no_default": true}))
                .await
                .unwrap(),
            "decline",
            "{era}: a required field without a default is declined"
        );
        assert_eq!(
            call(&accept, "ask_roots", json!({})).await.unwrap(),
            "file:///tmp/the-root",
            "{era}"
        );
        // Sampling without a person: refused, the server hears why.
        let sampled = call(&accept, "sample", json!({})).await;
        match protocol {
            ProtocolChoice::V2026 => {
                let err = sampled.unwrap_err();
                assert!(
                    err.contains("mcp_call_failed") && err.contains("sampling"),
                    "{err}"
                );
            }
            _ => assert!(sampled.unwrap().contains("sampling failed"), "{era}"),
        }
        accept.shutdown().await;

        let cancel = hub(
            asking(protocol),
            headless(ElicitMode::Cancel),
            McpConfig::default(),
        );
        assert_ready(&settled(&cancel).await, "t");
        assert_eq!(
            call(&cancel, "ask_name", json!({})).await.unwrap(),
            "cancel",
            "{era}"
        );
        cancel.shutdown().await;
    }
}

/// Answers through the channel API, as a front end would: sampling approved with a
/// reply, forms filled in.
fn answer_everything(mut rx: tokio::sync::mpsc::UnboundedReceiver<switchboard::mcp::AskRequest>) {
    tokio::spawn(async move {
        while let Some(request) = rx.recv().await {
            let answer = match &request.ask {
                Ask::Elicit(e) => {
                    assert_eq!(e.server, "t");
                    assert!(matches!(e.kind, ElicitationKind::Form { .. }));
                    let mut content = Map::new();
                    content.insert("name".into(), json!("Ada"));
                    Answer::Elicit(ElicitationAnswer::Accept(content))
                }
                Ask::Sample(s) => {
                    assert_eq!(s.params["systemPrompt"], "Answer briefly.");
                    assert_eq!(s.params["maxTokens"], 50);
                    Answer::Sample(Ok(SamplingReply {
                        model: "test-model".into(),
                        role: "assistant".into(),
                        content: json!({"type": "text", "text": "4"}),
                        stop_reason: Some("endTurn".into()),
                    }))
                }
            };
            request.answer(answer);
        }
    });
}

#[tokio::test]
async fn a_front_end_answers_through_the_channel_in_both_eras() {
    for protocol in ERAS {
        let era = protocol.as_str();
        let (asker, rx) = ChannelAsker::new();
        answer_everything(rx);
        let hub = hub(asking(protocol), Arc::new(asker), McpConfig::default());
        assert_ready(&settled(&hub).await, "t");
        let mut events = hub.events();
        assert_eq!(
            call(&hub, "ask_name", json!({})).await.unwrap(),
            "Hello, Ada",
            "{era}"
        );
        assert_eq!(
            call(&hub, "sample", json!({})).await.unwrap(),
            "model test-model said: 4",
            "{era}"
        );
        let mut asked = Vec::new();
        while let Ok(event) = events.try_recv() {
            if let McpEvent::Asked { kind, outcome, .. } = event {
                asked.push(format!("{kind}:{outcome}"));
            }
        }
        assert_eq!(asked, ["elicitation:accept", "sampling:approve"], "{era}");
        hub.shutdown().await;
    }
}

#[tokio::test]
async fn sampling_deny_refuses_without_asking() {
    let (asker, mut rx) = ChannelAsker::new();
    let mut config = asking(ProtocolChoice::V2026);
    config.sampling = Some(SamplingPolicy::Deny);
    let hub = hub(config, Arc::new(asker), McpConfig::default());
    assert_ready(&settled(&hub).await, "t");
    let err = call(&hub, "sample", json!({})).await.unwrap_err();
    assert!(err.contains("sampling = \"deny\""), "{err}");
    assert!(rx.try_recv().is_err(), "the person was not asked");
    hub.shutdown().await;
}

#[tokio::test]
async fn rounds_echo_request_state_and_stop_at_the_limit() {
    let server = HttpServer::start_with(&["--asking"]);
    for config in [asking(ProtocolChoice::V2026), {
        let mut c = url_config(&server.url);
        c.protocol = Some(ProtocolChoice::V2026);
        c
    }] {
        let mcp = McpConfig {
            max_input_rounds: 4,
            ..McpConfig::default()
        };
        let hub = hub(config, headless(ElicitMode::AcceptDefaults), mcp);
        assert_ready(&settled(&hub).await, "t");
        assert_eq!(
            call(&hub, "multi_round", json!({"rounds": 3}))
                .await
                .unwrap(),
            "rounds: 3"
        );
        assert_eq!(call(&hub, "state_wait", json!({})).await.unwrap(), "waited");
        assert_eq!(call(&hub, "ask_url", json!({})).await.unwrap(), "decline");
        let err = call(&hub, "endless", json!({})).await.unwrap_err();
        assert!(
            err.contains("mcp_call_failed") && err.contains("max_input_rounds = 4"),
            "{err}"
        );
        let err = call(&hub, "multi_round", json!({"rounds": 5}))
            .await
            .unwrap_err();
        assert!(err.contains("max_input_rounds"), "{err}");
        hub.shutdown().await;
    }
}

#[tokio::test]
async fn the_sampling_budget_is_counted_in_core_once_per_request() {
    for protocol in ERAS {
        let era = protocol.as_str();
        let (asker, rx) = ChannelAsker::new();
        answer_everything(rx);
        let budget = Arc::new(CallBudget::new([("sampling".to_owned(), 1)]));
        let servers = BTreeMap::from([("t".to_owned(), asking(protocol))]);
        let hub = McpHub::start_with(
            &servers,
            HubOptions {
                asker: Some(Arc::new(asker)),
                budget: Some(Arc::clone(&budget)),
                ..HubOptions::default()
            },
        );
        assert_ready(&settled(&hub).await, "t");
        let mut events = hub.events();
        assert_eq!(
            call(&hub, "sample", json!({})).await.unwrap(),
            "model test-model said: 4",
            "{era}"
        );
        assert_eq!(budget.used("sampling"), 1, "{era}");
        let refused = match call(&hub, "sample", json!({})).await {
            Ok(text) | Err(text) => text,
        };
        assert!(
            refused.contains("sampling has used its budget of 1 call"),
            "{era}: {refused}"
        );
        let mut asked = Vec::new();
        while let Ok(event) = events.try_recv() {
            if let McpEvent::Asked { outcome, model, .. } = event {
                asked.push((outcome, model));
            }
        }
        assert_eq!(
            asked,
            [
                ("approve", Some("test-model".to_owned())),
                ("deny (budget)", None)
            ],
            "{era}"
        );
        hub.shutdown().await;
    }
}

#[tokio::test]
async fn a_declined_question_is_not_put_to_the_person_again() {
    // Accepted, the tool answers: it is only a declined question that ends the call.
    let accept = hub(
        asking(ProtocolChoice::V2026),
        headless(ElicitMode::AcceptDefaults),
        McpConfig::default(),
    );
    assert_ready(&settled(&accept).await, "t");
    assert_eq!(
        call(&accept, "insist", json!({})).await.unwrap(),
        "Hello, World"
    );
    accept.shutdown().await;
    for (answer, said, new_key) in [
        (ElicitationAnswer::Decline, "declined", false),
        (ElicitationAnswer::Cancel, "cancelled", true),
    ] {
        let (asker, mut rx) = ChannelAsker::new();
        let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&asked);
        tokio::spawn(async move {
            while let Some(request) = rx.recv().await {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                request.answer(Answer::Elicit(answer.clone()));
            }
        });
        let hub = hub(
            asking(ProtocolChoice::V2026),
            Arc::new(asker),
            McpConfig::default(),
        );
        assert_ready(&settled(&hub).await, "t");
        let err = call(&hub, "insist", json!({"new_key": new_key}))
            .await
            .unwrap_err();
        assert!(
            err.starts_with("mcp_call_failed")
                && err.contains(&format!("the person {said} the server's question"))
                && err.contains("Who are you?"),
            "{err}"
        );
        assert_eq!(
            asked.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "asked once ({said}, new key: {new_key})"
        );
        hub.shutdown().await;
    }
}

/// A person who takes `delay` to answer: accepts the form's defaults, refuses sampling.
#[derive(Debug)]
struct Slow {
    delay: std::time::Duration,
}

#[async_trait::async_trait]
impl Asker for Slow {
    async fn elicit(&self, request: switchboard::mcp::ElicitationRequest) -> ElicitationAnswer {
        tokio::time::sleep(self.delay).await;
        HeadlessAsker {
            mode: ElicitMode::AcceptDefaults,
            notice: None,
        }
        .elicit(request)
        .await
    }

    async fn sample(
        &self,
        _request: switchboard::mcp::SamplingRequest,
    ) -> Result<SamplingReply, switchboard::mcp::SampleRefusal> {
        tokio::time::sleep(self.delay).await;
        Err(switchboard::mcp::SampleRefusal::Unanswered)
    }
}

/// `tool_timeout` counts the server's silence, not the person's: a question answered
/// after three timeouts still ends the call well (2025-11-25: the server asks while
/// the call is in flight), and the server's own answer time is timed again after it.
#[tokio::test]
async fn the_persons_time_is_not_the_servers_timeout() {
    let mut config = asking(ProtocolChoice::V2025);
    config.tool_timeout = Some(0.3);
    let slow = Arc::new(Slow {
        delay: std::time::Duration::from_millis(900),
    });
    let hub = hub(config, slow, McpConfig::default());
    assert_ready(&settled(&hub).await, "t");
    let answered = call(&hub, "ask_name", json!({})).await;
    assert_eq!(answered.as_deref(), Ok("Hello, World"));
    // The refusal reaches the server, which reports it: no timeout on the way.
    let refused = call(&hub, "sample", json!({})).await;
    let text = refused.unwrap_or_else(|e| e);
    assert!(text.contains("not answered"), "{text}");
    hub.shutdown().await;
}

/// A question asked during a call leaves with the call: cancelled from here, the
/// call's question is abandoned (the front end drops it, nothing is recorded as
/// answered), though the server never cancels its own request.
#[tokio::test]
async fn a_question_is_abandoned_when_the_call_that_asked_it_ends() {
    let (asker, mut rx) = ChannelAsker::new();
    let hub = hub(
        asking(ProtocolChoice::V2025),
        Arc::new(asker),
        McpConfig::default(),
    );
    assert_ready(&settled(&hub).await, "t");
    let cancel = tokio_util::sync::CancellationToken::new();
    let context = CallContext {
        cancel: Some(cancel.clone()),
        ..CallContext::default()
    };
    let Value::Object(args) = json!({}) else {
        unreachable!()
    };
    let calling = {
        let hub = hub.clone();
        tokio::spawn(async move { hub.call_tool("t", "ask_name", args, None, context).await })
    };
    let question = crate::support::within(rx.recv()).await.unwrap();
    assert!(!question.is_abandoned());
    cancel.cancel();
    let ended = crate::support::within(calling).await.unwrap();
    assert!(ended.is_err_and(|e| e.to_string().contains("cancelled")));
    let deadline = tokio::time::Instant::now() + crate::support::EVENT_DEADLINE;
    while !question.is_abandoned() {
        assert!(tokio::time::Instant::now() < deadline, "still waiting");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    hub.shutdown().await;
}
