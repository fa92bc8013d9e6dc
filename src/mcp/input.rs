//! Answering what a server asks of the client — roots, elicitation, sampling — the
//! same way for server→client requests (2025-11-25) and for the `inputRequests` of an
//! `input_required` result (2026-07-28, multi round-trip requests).

#![allow(deprecated)] // sampling and roots: deprecated in 2026-07-28, still widely used

use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    InputRequest, InputRequests, InputResponses, ListRootsResult, Root,
};
use serde_json::{Value, json};

use super::ask::{ElicitationAnswer, ElicitationKind, ElicitationRequest, SamplingRequest};
use super::client::ClientSide;
use super::error::{McpError, untrusted};
use super::snapshot::McpEvent;
use crate::config::SamplingPolicy;

impl ClientSide {
    pub fn roots_result(&self) -> ListRootsResult {
        ListRootsResult::new(self.roots.iter().map(Root::new).collect())
    }

    /// Asks the person (through the asker) and turns the answer into the result.
    pub async fn elicit(&self, params: ElicitRequestParams) -> ElicitResult {
        let (message, kind) = match params {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                message,
                ElicitationKind::Form {
                    schema: serde_json::to_value(requested_schema).unwrap_or(Value::Null),
                },
            ),
            ElicitRequestParams::UrlElicitationParams {
                message,
                url,
                elicitation_id,
                ..
            } => (
                message,
                ElicitationKind::Url {
                    url,
                    elicitation_id,
                },
            ),
            // A kind this client does not know: declined unseen.
            _ => return ElicitResult::new(rmcp::model::ElicitationAction::Decline),
        };
        let request = ElicitationRequest {
            server: self.server.to_string(),
            message,
            kind,
        };
        let open = self.asking.open();
        let answer = self.asker.elicit(request).await;
        drop(open);
        let outcome = match &answer {
            ElicitationAnswer::Accept(_) => "accept",
            ElicitationAnswer::Decline => "decline",
            ElicitationAnswer::Cancel => "cancel",
        };
        self.asked("elicitation", outcome, None);
        let wire = match answer {
            ElicitationAnswer::Accept(content) => json!({"action": "accept", "content": content}),
            ElicitationAnswer::Decline => json!({"action": "decline"}),
            ElicitationAnswer::Cancel => json!({"action": "cancel"}),
        };
        serde_json::from_value(wire)
            .unwrap_or_else(|_| ElicitResult::new(rmcp::model::ElicitationAction::Decline))
    }

    /// Sampling: refused by policy, refused when `[policy] max_calls.sampling` is
    /// spent, or handed to the asker (the person approves, edits or rejects; the
    /// result names the model that answered). Every sampling request of every front
    /// end passes here once, so this is where it is counted — before the person is
    /// asked, and never again for the same request (trying the provider again is
    /// the asker's business).
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ErrorData> {
        if self.sampling == SamplingPolicy::Deny {
            self.asked("sampling", "deny (policy)", None);
            return Err(ErrorData::invalid_request(
                "sampling is denied for this server (sampling = \"deny\")",
                None,
            ));
        }
        if let Some(budget) = &self.budget
            && let Err(spent) = budget.consume(crate::policy::SAMPLING_BUDGET)
        {
            self.asked("sampling", "deny (budget)", None);
            return Err(ErrorData::invalid_request(spent.to_string(), None));
        }
        let mut wire = serde_json::to_value(&params).unwrap_or(Value::Null);
        if let Some(object) = wire.as_object_mut() {
            object.remove("_meta");
        }
        let request = SamplingRequest {
            server: self.server.to_string(),
            params: wire,
        };
        let open = self.asking.open();
        let reply = self.asker.sample(request).await;
        drop(open);
        match reply {
            Ok(reply) => {
                self.asked("sampling", "approve", Some(untrusted(&reply.model, 200)));
                let result = json!({
                    "model": reply.model,
                    "role": reply.role,
                    "content": reply.content,
                    "stopReason": reply.stop_reason,
                });
                serde_json::from_value(result)
                    .map_err(|e| ErrorData::internal_error(format!("sampling reply: {e}"), None))
            }
            Err(reason) => {
                self.asked("sampling", "reject", None);
                Err(ErrorData::invalid_request(reason.to_string(), None))
            }
        }
    }

    /// The answer to every input request of an `input_required` result, by key.
    /// A refused sampling request fails the whole request (it is not retried).
    pub async fn fulfil(&self, requests: InputRequests) -> Result<InputResponses, McpError> {
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let value = match request {
                InputRequest::Elicitation(request) => {
                    serde_json::to_value(self.elicit(request.params).await)
                }
                InputRequest::CreateMessage(request) => {
                    let result =
                        self.sample(request.params)
                            .await
                            .map_err(|e| McpError::CallFailed {
                                server: self.server.to_string(),
                                reason: format!(
                                    "the server needs a sampling answer that was refused: {}",
                                    untrusted(&e.message, 200)
                                ),
                            })?;
                    serde_json::to_value(result)
                }
                InputRequest::ListRoots(_) => serde_json::to_value(self.roots_result()),
                _ => {
                    return Err(McpError::CallFailed {
                        server: self.server.to_string(),
                        reason: "the server asked for input of a kind this client does not know"
                            .into(),
                    });
                }
            };
            responses.insert(key, value.unwrap_or(Value::Null));
        }
        Ok(responses)
    }

    /// Tells listeners (the audit trail, the UI) that the server asked, how it was
    /// answered and, for an approved sampling request, which model answered it.
    fn asked(&self, kind: &'static str, outcome: &'static str, model: Option<String>) {
        tracing::info!(server = %self.server, kind, outcome, ?model, "server request answered");
        if self.events.receiver_count() > 0 {
            let _ = self.events.send(McpEvent::Asked {
                server: self.server.to_string(),
                kind,
                outcome,
                model,
            });
        }
    }
}
