//! LLM providers behind one message model and one event stream.
//!
//! - [`Message`] / [`ToolCall`] / [`ToolDeclaration`]: the internal, OpenAI-like model.
//! - [`Provider::stream`] returns an [`LlmStream`] of [`LlmEvent`]s; dropping it
//!   cancels the request.
//! - One folder per HTTP provider (`openai`, `anthropic`, `gemini`, `cohere`,
//!   `bedrock`): its request body and `wire::Wire` in `mod.rs`, its stream decoder in
//!   `stream.rs`. [`HttpProvider`] is the one `Provider` over any of them; `decode`
//!   holds what the decoders share. `transport` sends with retries (`retry`) and reads
//!   SSE or AWS event-stream frames (`eventstream`); `bedrock::aws_auth` signs with
//!   SigV4. `scripted` answers offline.

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
mod configured;
pub mod decode;
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
pub mod token_estimate;
pub mod tool_names;
mod transport;
mod wire;

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
pub use token_estimate::{DeclarationShape, DeclarationSize, context_window, declaration_tokens};
pub use tool_names::{ToolNames, provider_name};
pub use transport::{Framing, RequestSigner, StreamDecoder};
pub use wire::HttpProvider;
