//! Calling a shell function: its own positional parameters and local scope, `FUNCNAME`, the
//! nesting limit (`COMPUTER_SH_MAX_CALL_DEPTH`) and the traps it sees: `ERR` only under
//! `set -E`, `DEBUG` only under `set -T`, and `RETURN` when it set one (every function's under
//! `set -T`).

use std::rc::Rc;

use brush_parser::ast::{self, Command};

use crate::state::Flow;

use crate::interp::{Interp, Outcome};

impl Interp<'_> {
    /// Calls a shell function with its own positional parameters and local scope.
    pub async fn call_function(
        &mut self,
        name: &str,
        body: Rc<ast::FunctionBody>,
        args: Vec<String>,
    ) -> Outcome {
        let limit = self.shell.limits.call_depth;
        if self.shell.call_depth >= limit {
            self.error(&format!(
                "{name}: maximum function nesting level exceeded ({limit}, COMPUTER_SH_MAX_CALL_DEPTH)"
            ))
            .await;
            self.shell.status = 1;
            return Err(Flow::Exit);
        }
        let saved_args = std::mem::replace(&mut self.shell.positional, args);
        self.shell.call_depth += 1;
        self.shell.push_locals();
        self.shell.funcname.push(name.to_string());
        self.shell.call_lines.push(self.line);
        let caller_line = self.line;
        // Its lines are counted as where it was defined (on from an `eval`'s line, or not).
        let base = self.shell.function_line_bases.get(name).copied();
        let caller_base = std::mem::replace(&mut self.line_base, base.unwrap_or(0));
        let traps_set = self.shell.return_traps_set;
        // What the function does not inherit is out of sight while it runs, and back after,
        // unless it set its own.
        let options = &self.shell.options;
        let hidden: Vec<(&str, String)> = [("ERR", options.errtrace), ("DEBUG", options.functrace)]
            .into_iter()
            .filter(|(_, inherited)| !inherited)
            .filter_map(|(name, _)| Some((name, self.shell.traps.remove(name)?)))
            .collect();
        let hides = !hidden.is_empty();
        self.shell.traps_hidden += u32::from(hides);
        // Under `set -T` bash runs `DEBUG` once more as the function starts.
        let mut result = Ok(());
        if self.shell.options.functrace {
            result = self.run_debug_trap().await;
        }
        if result.is_ok() {
            result = self
                .run_command(&Command::Compound(body.0.clone(), body.1.clone()))
                .await;
        }
        self.shell.traps_hidden -= u32::from(hides);
        for (name, action) in hidden {
            self.shell.traps.entry(name.to_string()).or_insert(action);
        }
        let mut result = match result {
            Err(Flow::Return) => Ok(()),
            other => other,
        };
        if (self.shell.return_traps_set != traps_set || self.shell.options.functrace)
            && result.is_ok()
            && let Err(f) = self.run_return_trap().await
        {
            result = Err(f);
        }
        // The caller's line again (an `ERR` trap for the call reports it).
        self.line_base = caller_base;
        self.line = caller_line;
        self.shell.funcname.pop();
        self.shell.call_lines.pop();
        self.shell.pop_locals();
        self.shell.call_depth -= 1;
        self.shell.positional = saved_args;
        result
    }
}
