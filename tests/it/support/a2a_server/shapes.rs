//! The test agent's JSON in each protocol version.

use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Version {
    #[default]
    V1,
    V03,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Submitted,
    Working,
    InputRequired,
    Completed,
    Failed,
    Canceled,
}

impl State {
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Canceled)
    }

    /// The status message the agent sends with this state.
    pub fn text(self) -> &'static str {
        match self {
            Self::Failed => "could not do it",
            Self::InputRequired => "which city?",
            _ => "",
        }
    }

    fn dashed(self) -> &'static str {
        match self {
            Self::Submitted => "submitted",
            Self::Working => "working",
            Self::InputRequired => "input-required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
        }
    }
}

pub struct Shapes(pub Version);

impl Shapes {
    fn v1(&self) -> bool {
        self.0 == Version::V1
    }

    pub fn operation(&self, method: &str) -> Option<&'static str> {
        let names = if self.v1() {
            [
                "SendMessage",
                "SendStreamingMessage",
                "GetTask",
                "CancelTask",
            ]
        } else {
            [
                "message/send",
                "message/stream",
                "tasks/get",
                "tasks/cancel",
            ]
        };
        let ops = ["send", "stream", "get", "cancel"];
        names.iter().position(|n| *n == method).map(|i| ops[i])
    }

    pub fn card(&self, base: &str, streaming: bool) -> Value {
        let mut card = json!({"name": "Echo agent", "description": "Repeats tasks",
            "version": "1.0.0", "capabilities": {"streaming": streaming},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "echo", "name": "Echo", "description": "Repeats the task",
                "tags": ["test"]}]});
        if self.v1() {
            card["supportedInterfaces"] = json!([{"url": format!("{base}/"),
                "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]);
        } else {
            card["url"] = json!(format!("{base}/"));
            card["preferredTransport"] = json!("JSONRPC");
            card["protocolVersion"] = json!("0.3.0");
        }
        card
    }

    fn state(&self, state: State) -> String {
        if self.v1() {
            format!(
                "TASK_STATE_{}",
                state.dashed().to_ascii_uppercase().replace('-', "_")
            )
        } else {
            state.dashed().to_owned()
        }
    }

    fn parts(&self, text: &str) -> Value {
        if self.v1() {
            json!([{"text": text}])
        } else {
            json!([{"kind": "text", "text": text}])
        }
    }

    fn message(&self, text: &str) -> Value {
        let mut m = json!({"messageId": "m-1", "parts": self.parts(text)});
        if self.v1() {
            m["role"] = json!("ROLE_AGENT");
        } else {
            m["role"] = json!("agent");
            m["kind"] = json!("message");
        }
        m
    }

    fn status_json(&self, state: State, text: &str) -> Value {
        let mut status = json!({"state": self.state(state)});
        if !text.is_empty() {
            status["message"] = self.message(text);
        }
        status
    }

    pub fn task(&self, id: &str, state: State, text: &str) -> Value {
        let mut task = json!({"id": id, "contextId": "ctx-1",
            "status": self.status_json(state, state.text())});
        if state == State::Completed {
            task["artifacts"] = json!([{"artifactId": "a-1",
                "parts": self.parts(&format!("echo: {text}"))}]);
        }
        if !self.v1() {
            task["kind"] = json!("task");
        }
        task
    }

    pub fn wrap_task(&self, task: Value) -> Value {
        if self.v1() {
            json!({"task": task})
        } else {
            task
        }
    }

    pub fn reply(&self, text: &str) -> Value {
        let message = self.message(text);
        if self.v1() {
            json!({"message": message})
        } else {
            message
        }
    }

    pub fn status(&self, id: &str, state: State, text: &str) -> Value {
        let event = json!({"taskId": id, "contextId": "ctx-1",
            "status": self.status_json(state, text)});
        if self.v1() {
            json!({"statusUpdate": event})
        } else {
            let mut e = event;
            e["kind"] = json!("status-update");
            e["final"] = json!(state.is_terminal());
            e
        }
    }

    pub fn artifact(&self, id: &str, text: &str) -> Value {
        let event = json!({"taskId": id, "contextId": "ctx-1", "append": false,
            "lastChunk": true, "artifact": {"artifactId": "a-1", "parts": self.parts(text)}});
        if self.v1() {
            json!({"artifactUpdate": event})
        } else {
            let mut e = event;
            e["kind"] = json!("artifact-update");
            e
        }
    }
}
