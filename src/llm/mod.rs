//! LLM providers behind one message model and one event stream.
//!
//! - [`Message`] / [`ToolCall`] / [`ToolDeclaration`]: the internal, OpenAI-like model.
//! - [`Provider::stream`] returns an [`LlmStream`] of [`LlmEvent`]s; dropping it
//!   cancels the request.
//! - One module per provider (`openai`, `anthropic`, `gemini`, `cohere`, `bedrock`,
//!   `scripted`), each HTTP one a folder with its stream decoder (`stream.rs`); `transport` sends with retries (`retry`) and
//!   reads SSE or AWS event-stream frames (`eventstream`); `bedrock::aws_auth` signs with SigV4.

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
mod configured;
mod endpoint;
mod error;
mod event;
mod eventstream;
mod failure;
pub mod gemini;
mod message;
pub mod openai;
mod provider;
mod retry;
pub mod scripted;
mod scripted_input;
pub mod scripted_script;
pub mod tool_names;
mod transport;

pub use anthropic::AnthropicProvider;
pub use bedrock::aws_auth::{AwsCredentials, SigV4Signer, sign_request};
pub use bedrock::{BedrockAuth, BedrockProvider};
pub use cohere::CohereProvider;
pub use configured::{ProviderChoice, build, provider_from_config};
pub use endpoint::Endpoint;
pub use error::{LlmError, LlmErrorKind};
pub use event::{FinishReason, LlmEvent, Usage};
pub use gemini::GeminiProvider;
pub use message::{
    ChatRequest, Message, RequestOptions, SYNTHETIC_ID_PREFIX, ToolCall, ToolDeclaration,
    synthetic_call_id,
};
pub use openai::OpenAiProvider;
pub use provider::{LlmStream, Provider, TaskStream};
pub use retry::{RetryPolicy, SleepFn};
pub use scripted::ScriptedProvider;
pub use scripted_input::{RequestedCall, parse_line, requested_calls};
pub use tool_names::{ToolNames, provider_name};
pub use transport::{Framing, RequestSigner, StreamDecoder};

/// Decoders, exposed for benchmarks and fixture tests.
pub mod decode {
    pub use super::anthropic::stream::AnthropicDecoder;
    pub use super::bedrock::stream::BedrockDecoder;
    pub use super::cohere::stream::CohereDecoder;
    pub use super::eventstream::events as event_stream_frames;
    pub use super::gemini::stream::GeminiDecoder;
    pub use super::openai::stream::OpenAiDecoder;
}
