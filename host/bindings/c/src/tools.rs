//! The agent tools: their definitions as JSON in a model API's shape, and a call.

use std::ffi::c_char;

use computer_tools::Toolkit;

use crate::buffers::{arg, give_string};
use crate::error::{guard, set};
use crate::workspace::{ComputerWorkspace, handle};

/// The tools as a JSON array in `shape`: "openai", "anthropic" or "mcp". Freed with
/// `computer_string_free`; NULL on error.
///
/// # Safety
/// `ws` is a live handle, `shape` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_tools_json(
    ws: *const ComputerWorkspace,
    shape: *const c_char,
) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(shape)) = (unsafe { handle(ws) }, unsafe { arg(shape, "shape") })
        else {
            return std::ptr::null_mut();
        };
        let form = match computer_tools::ToolDef::shape(shape) {
            Ok(form) => form,
            Err(message) => {
                set(message, libc::EINVAL);
                return std::ptr::null_mut();
            }
        };
        let tools = Toolkit::new(ws.clone()).tools();
        let list: Vec<serde_json::Value> = tools.iter().map(form).collect();
        give_string(serde_json::Value::Array(list).to_string())
    })
}

/// Runs tool `name` with `args_json` (a JSON object): the text for the model, freed with
/// `computer_string_free`. NULL on error, with the text for the model as the last error
/// (errno `ENOENT` for a missing path, `EINVAL` for bad arguments).
///
/// # Safety
/// `ws` is a live handle, `name` and `args_json` NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_tool_call(
    ws: *const ComputerWorkspace,
    name: *const c_char,
    args_json: *const c_char,
) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(name), Some(args)) = (
            unsafe { handle(ws) },
            unsafe { arg(name, "name") },
            unsafe { arg(args_json, "args_json") },
        ) else {
            return std::ptr::null_mut();
        };
        let args = match serde_json::from_str(args) {
            Ok(v) => v,
            Err(e) => {
                set(format!("args_json is not JSON: {e}"), libc::EINVAL);
                return std::ptr::null_mut();
            }
        };
        match Toolkit::new(ws.clone()).with_origin("c").call(name, args) {
            Ok(text) => give_string(text),
            Err(e) => {
                set(e.to_string(), e.errno().unwrap_or(0));
                std::ptr::null_mut()
            }
        }
    })
}
