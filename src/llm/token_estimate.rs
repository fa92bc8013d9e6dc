//! What tool declarations cost: their size in the shape each provider sends them, as
//! an estimate of tokens, and the context window they are weighed against.
//!
//! The estimator is the compact JSON of each declaration, in the provider's shape,
//! divided by [`BYTES_PER_TOKEN`] and rounded up. OpenAI's tokenizers (`o200k_base`,
//! `cl100k_base`, from the `tiktoken` BPE tables) count 4.4–4.6 bytes per token on the
//! declarations of the MCP reference servers, so the estimate reads about 10 % high,
//! which is the safe side for a budget. No tokenizer ships with switchboard: exact
//! counts would cost megabytes of tables per provider.

use serde_json::{Value, json};

use super::ToolDeclaration;

/// Bytes of compact JSON per estimated token.
pub const BYTES_PER_TOKEN: usize = 4;

/// The JSON shape a provider declares a tool in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclarationShape {
    /// `{type: function, function: {name, description, parameters}}` (OpenAI Chat
    /// Completions; Cohere v2 and the scripted provider too).
    Openai,
    /// `{name, description, input_schema}`
    Anthropic,
    /// `{name, description, parametersJsonSchema}`, inside `functionDeclarations`.
    Gemini,
    /// `{toolSpec: {name, description, inputSchema: {json}}}` (Bedrock Converse).
    Bedrock,
}

impl DeclarationShape {
    /// The shape of a provider kind (`openai`, `anthropic`, …); unknown kinds are
    /// weighed as OpenAI's.
    pub fn of_kind(kind: &str) -> Self {
        match kind {
            "anthropic" => Self::Anthropic,
            "gemini" => Self::Gemini,
            "bedrock" => Self::Bedrock,
            _ => Self::Openai,
        }
    }

    /// One declaration in this shape.
    pub fn declare(self, name: &str, description: &str, schema: &Value) -> Value {
        match self {
            Self::Openai => json!({"type": "function", "function": {
                "name": name, "description": description, "parameters": schema}}),
            Self::Anthropic => {
                json!({"name": name, "description": description, "input_schema": schema})
            }
            Self::Gemini => {
                json!({"name": name, "description": description, "parametersJsonSchema": schema})
            }
            Self::Bedrock => json!({"toolSpec": {
                "name": name, "description": description, "inputSchema": {"json": schema}}}),
        }
    }

    /// Bytes the shape adds around a tool's name, description and schema.
    fn wrapper_bytes(self) -> usize {
        let empty = self.declare("", "", &Value::Null).to_string().len();
        // The two empty strings and `null` stand for the parts counted by `content`.
        empty.saturating_sub("\"\"".len() * 2 + "null".len())
    }
}

/// The parts of some declarations that do not depend on the provider: how many tools
/// and the bytes of their names, descriptions and schemas as JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeclarationSize {
    pub tools: usize,
    pub bytes: usize,
}

impl DeclarationSize {
    /// The size of one tool.
    pub fn of(name: &str, description: &str, schema: &Value) -> Self {
        Self {
            tools: 1,
            bytes: crate::tools::json_len(&Value::from(name))
                + crate::tools::json_len(&Value::from(description))
                + crate::tools::json_len(schema),
        }
    }

    /// The size of these declarations.
    pub fn of_all(declarations: &[ToolDeclaration]) -> Self {
        declarations
            .iter()
            .map(|d| Self::of(&d.name, &d.description, &d.parameters))
            .sum()
    }

    /// Estimated tokens when declared in `shape`.
    pub fn tokens(self, shape: DeclarationShape) -> usize {
        (self.bytes + self.tools * shape.wrapper_bytes()).div_ceil(BYTES_PER_TOKEN)
    }
}

impl std::ops::Add for DeclarationSize {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self {
            tools: self.tools + other.tools,
            bytes: self.bytes + other.bytes,
        }
    }
}

impl std::iter::Sum for DeclarationSize {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |a, b| a + b)
    }
}

/// Estimated tokens of `declarations` as a provider of `kind` would receive them.
pub fn declaration_tokens(kind: &str, declarations: &[ToolDeclaration]) -> usize {
    DeclarationSize::of_all(declarations).tokens(DeclarationShape::of_kind(kind))
}

/// The context window assumed for a model when the provider config gives none
/// (`[providers.NAME] context_window`): the window the vendor documents for that
/// model family, else 128,000 tokens.
pub fn context_window(kind: &str, model: &str) -> u64 {
    let model = model.to_ascii_lowercase();
    let has = |prefix: &str| model.contains(prefix);
    match kind {
        // docs.anthropic.com/en/docs/about-claude/models: 200k for every current model.
        "anthropic" => 200_000,
        "bedrock" if has("anthropic.") || has("claude") => 200_000,
        // ai.google.dev/gemini-api/docs/models: 1,048,576 input tokens.
        "gemini" => 1_048_576,
        // docs.cohere.com/docs/models: Command A 256k, Command R 128k.
        "cohere" if has("command-a") => 256_000,
        // platform.openai.com/docs/models: GPT-4.1 1,047,576; GPT-5 400k.
        "openai" if has("gpt-4.1") => 1_047_576,
        "openai" if has("gpt-5") => 400_000,
        _ => 128_000,
    }
}

/// Tokens the short way: `950`, `3.1k`, `41k`, `1.2M`.
pub fn short(tokens: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // Shown to one decimal.
    let f = tokens as f64;
    match tokens {
        0..1_000 => tokens.to_string(),
        1_000..10_000 => format!("{:.1}k", f / 1e3),
        10_000..1_000_000 => format!("{}k", tokens / 1_000),
        _ => format!("{:.1}M", f / 1e6),
    }
}

/// `tokens` as a share of `window`: `32 %`, `<1 %`.
pub fn percent(tokens: usize, window: u64) -> String {
    let tokens = u64::try_from(tokens).unwrap_or(u64::MAX);
    match tokens.saturating_mul(100).checked_div(window) {
        Some(0) if tokens > 0 => "<1 %".to_owned(),
        Some(p) => format!("{p} %"),
        None => "? %".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(name: &str, description: &str, schema: Value) -> ToolDeclaration {
        ToolDeclaration {
            name: name.into(),
            description: description.into(),
            parameters: schema,
        }
    }

    #[test]
    fn the_estimate_is_the_shaped_json_over_four() {
        let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        let d = decl("weather__get", "The weather \"now\".", schema.clone());
        for shape in [
            DeclarationShape::Openai,
            DeclarationShape::Anthropic,
            DeclarationShape::Gemini,
            DeclarationShape::Bedrock,
        ] {
            let exact = shape.declare(&d.name, &d.description, &schema).to_string();
            assert_eq!(
                DeclarationSize::of_all(std::slice::from_ref(&d)).tokens(shape),
                exact.len().div_ceil(BYTES_PER_TOKEN),
                "{shape:?}"
            );
        }
    }

    #[test]
    fn sizes_add_up_and_shapes_differ() {
        let a = decl("a", "x", json!({"type": "object"}));
        let b = decl("b", "y", json!({"type": "object"}));
        let both = DeclarationSize::of_all(&[a.clone(), b.clone()]);
        assert_eq!(
            both,
            DeclarationSize::of_all(&[a]) + DeclarationSize::of_all(&[b])
        );
        assert_eq!(both.tools, 2);
        assert!(both.tokens(DeclarationShape::Bedrock) > both.tokens(DeclarationShape::Anthropic));
        assert_eq!(
            DeclarationSize::default().tokens(DeclarationShape::Openai),
            0
        );
    }

    #[test]
    fn short_forms() {
        assert_eq!(short(950), "950");
        assert_eq!(short(3_140), "3.1k");
        assert_eq!(short(41_200), "41k");
        assert_eq!(short(1_048_576), "1.0M");
        assert_eq!(percent(41_000, 128_000), "32 %");
        assert_eq!(percent(10, 128_000), "<1 %");
        assert_eq!(percent(0, 128_000), "0 %");
    }

    #[test]
    fn windows_follow_the_model_family() {
        assert_eq!(context_window("anthropic", "claude-sonnet-4-5"), 200_000);
        assert_eq!(context_window("openai", "gpt-4.1-mini"), 1_047_576);
        assert_eq!(context_window("openai", "gpt-4o"), 128_000);
        assert_eq!(context_window("gemini", "gemini-2.5-pro"), 1_048_576);
        assert_eq!(
            context_window("bedrock", "anthropic.claude-3-5-sonnet"),
            200_000
        );
        assert_eq!(context_window("scripted", ""), 128_000);
    }
}
