//! `Workspace.tools()`: the agent tools (read, write, edit, ls, find, grep, delete, exec,
//! job) with their JSON schemas in the shapes model APIs take, and the dispatcher that runs
//! a model's tool call.

use std::sync::Arc;

use computer_tools::{CallContext, Toolkit};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::tool_err;
use crate::exec::aio;
use crate::jobs::Cancel;

/// The tools over one workspace.
#[pyclass(module = "computer", frozen)]
pub struct Tools(pub Arc<Toolkit>);

/// A JSON value as Python objects (through the `json` module: the tools' values are small).
fn to_py(py: Python<'_>, value: &serde_json::Value) -> PyResult<Py<PyAny>> {
    let json = py.import("json")?;
    Ok(json.call_method1("loads", (value.to_string(),))?.unbind())
}

/// Python arguments (a dict, or a JSON string as models send them) as a JSON value.
fn from_py(args: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let text = match args.cast::<PyString>() {
        Ok(s) => s.to_string(),
        Err(_) => args
            .py()
            .import("json")?
            .call_method1("dumps", (args,))?
            .extract::<String>()?,
    };
    serde_json::from_str(&text)
        .map_err(|e| PyValueError::new_err(format!("tool arguments are not JSON: {e}")))
}

impl Tools {
    fn shaped(
        &self,
        py: Python<'_>,
        shape: fn(&computer_tools::ToolDef) -> serde_json::Value,
    ) -> PyResult<Py<PyAny>> {
        let list: Vec<serde_json::Value> = self.0.tools().iter().map(shape).collect();
        to_py(py, &serde_json::Value::Array(list))
    }
}

#[pymethods]
impl Tools {
    /// Every tool as `{"name", "description", "input_schema", "writes"}`.
    fn definitions(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.shaped(py, |t| {
            serde_json::json!({
                "name": t.name,
                "description": t.description,
                "input_schema": t.input_schema,
                "writes": t.writes,
            })
        })
    }

    /// The tools for OpenAI's Chat Completions `tools` parameter.
    fn openai(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.shaped(py, computer_tools::ToolDef::openai)
    }

    /// The tools for Anthropic's Messages API `tools` parameter.
    fn anthropic(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.shaped(py, computer_tools::ToolDef::anthropic)
    }

    /// The tools as MCP's `tools/list` gives them.
    fn mcp(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.shaped(py, computer_tools::ToolDef::mcp)
    }

    /// Runs tool `name` with `args` (a dict or a JSON string): the text for the model.
    /// Errors are exceptions whose text is what the model should be told.
    #[pyo3(signature = (name, args, cancel = None))]
    fn call(
        &self,
        py: Python<'_>,
        name: String,
        args: &Bound<'_, PyAny>,
        cancel: Option<Cancel>,
    ) -> PyResult<String> {
        let args = from_py(args)?;
        let cancel = cancel.unwrap_or_default().0;
        let kit = Arc::clone(&self.0);
        let context = CallContext {
            on_output: None,
            cancel: Some(cancel.clone()),
        };
        crate::interrupt::run(py, &cancel, move || kit.call_text(&name, args, context))?
            .map_err(tool_err)
    }

    /// As `call`, to await: runs in the loop's executor; cancelling the task stops `exec`.
    fn call_async<'py>(
        slf: &Bound<'py, Self>,
        name: String,
        args: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        aio(
            slf.py(),
            "in_thread",
            (slf.getattr("call")?, name, args),
            None,
        )
    }

    /// The tools' names.
    fn names(&self) -> Vec<&'static str> {
        self.0.tools().iter().map(|t| t.name).collect()
    }
}
