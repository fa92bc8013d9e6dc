//! Tool declarations in each provider's shape; the JSON Schema passes through unchanged.

use clap::ValueEnum;
use serde_json::{Value, json};

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

pub fn declarations(format: DeclarationFormat, specs: &[ToolSpec]) -> Value {
    match format {
        DeclarationFormat::Openai => specs
            .iter()
            .map(|s| {
                json!({"type": "function", "function": {
                    "name": s.name, "description": s.description, "parameters": s.input_schema}})
            })
            .collect(),
        DeclarationFormat::Anthropic => specs
            .iter()
            .map(|s| json!({"name": s.name, "description": s.description, "input_schema": s.input_schema}))
            .collect(),
        DeclarationFormat::Gemini => {
            let functions: Vec<Value> = specs
                .iter()
                .map(|s| {
                    json!({"name": s.name, "description": s.description,
                        "parametersJsonSchema": s.input_schema})
                })
                .collect();
            json!([{ "functionDeclarations": functions }])
        }
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
