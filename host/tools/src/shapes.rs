//! The tool definitions in the shapes model APIs take, so that an embedder (the Python,
//! Node.js and C bindings, or Rust code calling a model itself) hands them over as they are.

use serde_json::{Value, json};

use crate::ToolDef;

/// The shapes by the names the bindings take: `openai`, `anthropic`, `mcp`.
pub type Shape = fn(&ToolDef) -> Value;

impl ToolDef {
    /// The shape named `name` (`openai`, `anthropic` or `mcp`); the error names them.
    pub fn shape(name: &str) -> Result<Shape, String> {
        match name {
            "openai" => Ok(ToolDef::openai),
            "anthropic" => Ok(ToolDef::anthropic),
            "mcp" => Ok(ToolDef::mcp),
            other => Err(format!(
                "shape {other:?}: expected openai, anthropic or mcp"
            )),
        }
    }

    /// OpenAI's function tool (Chat Completions `tools`):
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    pub fn openai(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.input_schema,
            },
        })
    }

    /// Anthropic's Messages API tool: `{"name", "description", "input_schema"}`.
    pub fn anthropic(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        })
    }

    /// MCP's `Tool` (as `tools/list` returns it): `{"name", "description", "inputSchema"}`,
    /// with the hint that the tool only reads when it does.
    pub fn mcp(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {"readOnlyHint": !self.writes},
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::tool_defs;

    #[test]
    fn every_shape_carries_the_name_description_and_schema() {
        for t in tool_defs(false) {
            let openai = t.openai();
            assert_eq!(openai["type"], "function");
            assert_eq!(openai["function"]["name"], t.name);
            assert_eq!(openai["function"]["parameters"], t.input_schema);
            let anthropic = t.anthropic();
            assert_eq!(anthropic["input_schema"], t.input_schema);
            assert_eq!(anthropic["description"], t.description);
            let mcp = t.mcp();
            assert_eq!(mcp["inputSchema"], t.input_schema);
            assert_eq!(mcp["annotations"]["readOnlyHint"], !t.writes);
        }
    }
}
