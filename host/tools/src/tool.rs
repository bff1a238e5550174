//! The [`Tool`] trait and the one list of tools: each tool's name, description, argument
//! type (the schema a model sees), whether it writes, and its call live together in the
//! tool's own module; [`TOOLS`] lists them in the order they are offered.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{CallContext, Content, DeleteArgs, EditArgs, ExecArgs, FindArgs, GrepArgs};
use crate::{JobArgs, LsArgs, ReadArgs, ToolError, Toolkit, WriteArgs};

/// One agent tool, implemented by its argument type.
pub trait Tool: JsonSchema + DeserializeOwned {
    /// The name a model calls it by.
    const NAME: &'static str;
    /// What it does and when to use it, for the model.
    const DESCRIPTION: &'static str;
    /// Whether it changes the workspace (so a read-only toolkit neither offers nor runs it).
    const WRITES: bool;

    /// Runs the call on `kit`.
    fn call(self, kit: &Toolkit, context: CallContext) -> Result<Vec<Content>, ToolError>;
}

/// A tool in the list, with its type erased.
pub(crate) struct Entry {
    pub name: &'static str,
    pub description: &'static str,
    pub writes: bool,
    pub schema: fn() -> Value,
    pub call: fn(&Toolkit, Value, CallContext) -> Result<Vec<Content>, ToolError>,
}

const fn entry<T: Tool>() -> Entry {
    Entry {
        name: T::NAME,
        description: T::DESCRIPTION,
        writes: T::WRITES,
        schema: schema::<T>,
        call: call::<T>,
    }
}

fn schema<T: Tool>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null)
}

fn call<T: Tool>(
    kit: &Toolkit,
    args: Value,
    context: CallContext,
) -> Result<Vec<Content>, ToolError> {
    // A call without arguments is an empty object.
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    let args: T = serde_json::from_value(args).map_err(|e| ToolError::InvalidArgs {
        tool: T::NAME.to_string(),
        reason: e.to_string(),
    })?;
    args.call(kit, context)
}

/// Every tool, in the order they are offered.
pub(crate) const TOOLS: &[Entry] = &[
    entry::<ReadArgs>(),
    entry::<WriteArgs>(),
    entry::<EditArgs>(),
    entry::<LsArgs>(),
    entry::<FindArgs>(),
    entry::<GrepArgs>(),
    entry::<DeleteArgs>(),
    entry::<ExecArgs>(),
    entry::<JobArgs>(),
];

/// A tool's text result.
pub(crate) fn text(result: Result<String, ToolError>) -> Result<Vec<Content>, ToolError> {
    Ok(vec![Content::Text(result?)])
}
