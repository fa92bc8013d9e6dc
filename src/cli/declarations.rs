//! Tool declarations in each provider's shape; the JSON Schema passes through unchanged.

use clap::ValueEnum;
use serde_json::{Value, json};

use crate::llm::{DeclarationShape, ToolNames};
use crate::tools::ToolSpec;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DeclarationFormat {
    /// `[{type: function, function: {name, description, parameters}}]`
    Openai,
    /// `[{name, description, input_schema}]`
    Anthropic,
    /// `[{functionDeclarations: [{name, description, parametersJsonSchema}]}]`
    Gemini,
}

/// The declarations of `specs`, each under its provider-safe name (see
/// [`crate::llm::tool_names`]): the names an agent turn sends too.
pub fn declarations(format: DeclarationFormat, specs: &[ToolSpec]) -> Value {
    let names = ToolNames::new(specs.iter().map(|s| s.name.as_str()));
    let shape = match format {
        DeclarationFormat::Openai => DeclarationShape::Openai,
        DeclarationFormat::Anthropic => DeclarationShape::Anthropic,
        DeclarationFormat::Gemini => DeclarationShape::Gemini,
    };
    let each: Vec<Value> = specs
        .iter()
        .map(|s| shape.declare(&names.wire(&s.name), &s.description, &s.input_schema))
        .collect();
    match format {
        DeclarationFormat::Gemini => json!([{ "functionDeclarations": each }]),
        _ => Value::Array(each),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_pass_through() {
        let schema =
            json!({"type": "object", "properties": {"x": {"type": "integer", "minimum": 1}}});
        let spec = ToolSpec::builder("s__t")
            .description("d")
            .input_schema(schema.clone())
            .build();
        let specs = [spec];
        assert_eq!(
            declarations(DeclarationFormat::Openai, &specs)[0]["function"]["parameters"],
            schema
        );
        assert_eq!(
            declarations(DeclarationFormat::Anthropic, &specs)[0]["input_schema"],
            schema
        );
        assert_eq!(
            declarations(DeclarationFormat::Gemini, &specs)[0]["functionDeclarations"][0]["parametersJsonSchema"],
            schema
        );
    }
}
