//! A script read from stdin runs as bash runs it: command by command, with the shell's
//! stdin just past the lines read so far, so that a command reading stdin (`read`, `cat`,
//! `head`) reads the script's next lines, and the script goes on after what it read.

use std::cell::RefCell;
use std::io::Cursor;
use std::rc::Rc;

use brush_parser::ast::{self, SourceLocation};
use shell_base::io::Input;

use super::Interp;
use crate::state::Flow;

/// How many lines of a script on stdin are parsed at first (see `parse_window`).
const WINDOW_LINES: usize = 256;

impl Interp<'_> {
    /// Runs `src`, the script the shell read from its stdin; the shell's stdin becomes the
    /// script's text, read to the end of each complete command before it runs.
    pub async fn run_stdin_source(&mut self, src: &str) -> Option<Flow> {
        let script = Rc::new(RefCell::new(Cursor::new(src.as_bytes().to_vec())));
        self.io.stdin = Input::Bytes(script.clone());
        self.shell.script_input = Some(script.clone());
        let base = self.line_base;
        let mut start = 0;
        let flow = loop {
            let text = &src[start..];
            // Before a syntax error, the complete commands that precede it run (and may
            // read past it); the error is reported when they have run.
            let (program, error, whole) = match self.parse_window(text) {
                Ok((program, whole)) => (program, None, whole),
                Err(error) => {
                    let prefix = crate::syntax::closed_here_document(text, &error)
                        .is_none()
                        .then(|| {
                            crate::syntax::complete_prefix(text, &error, |t| self.parse_text(t))
                        })
                        .flatten();
                    let Some(program) = prefix else {
                        script.borrow_mut().set_position(src.len() as u64);
                        break self.run_source(text).await;
                    };
                    (program, Some(error), true)
                }
            };
            let ends = command_ends(text, &program);
            // Of a window, the last command may be cut short: it is parsed again with the
            // next window.
            let count = program.complete_commands.len() - usize::from(!whole);
            let held_back = (!whole).then(|| ends[count - 1]);
            self.shell.sources += 1;
            let outer = std::mem::replace(&mut self.shell.source, self.shell.sources);
            let mut read_on = None;
            let mut flow = None;
            for (list, end) in program.complete_commands.iter().zip(ends).take(count) {
                let at = (start + end) as u64;
                script.borrow_mut().set_position(at);
                match self.run_list(list).await {
                    Ok(()) | Err(Flow::Discard) => {}
                    Err(f) => {
                        flow = Some(f);
                        break;
                    }
                }
                let now = script.borrow().position();
                if now != at {
                    read_on = Some((at as usize, now as usize));
                    break;
                }
            }
            self.shell.source = outer;
            let parsed_on = held_back.map(|end| (start + end, start + end));
            match read_on.or(parsed_on) {
                // A command read some of the script, or the window's last command was held
                // back: parse again from there (at a character's start). Lines count on
                // from what the parser read (as bash's `$LINENO`: the lines a command read
                // are not counted).
                Some((parsed, now)) if flow.is_none() => {
                    let mut now = now.min(src.len());
                    while !src.is_char_boundary(now) {
                        now += 1;
                    }
                    if now <= start {
                        break None;
                    }
                    self.line_base += src[start..parsed].matches('\n').count();
                    start = now;
                }
                _ if flow.is_some() => break flow,
                _ => match error {
                    Some(error) => {
                        self.report_syntax_error(text, &error, None).await;
                        break Some(Flow::Exit);
                    }
                    None => break None,
                },
            }
        };
        self.line_base = base;
        flow
    }

    /// Parses the first commands of `text`: a window of its first lines, doubled until it
    /// holds two complete commands or the whole text (whether it does), so that parsing
    /// again after each command that reads the script costs about what it read, not the
    /// whole rest.
    fn parse_window(&self, text: &str) -> Result<(ast::Program, bool), brush_parser::ParseError> {
        let mut lines = WINDOW_LINES;
        loop {
            let end = text
                .match_indices('\n')
                .nth(lines - 1)
                .map_or(text.len(), |(i, _)| i + 1);
            let parsed = self.parse_text(&text[..end]);
            if end == text.len() {
                return parsed.map(|program| (program, true));
            }
            if let Ok(program) = parsed
                && program.complete_commands.len() >= 2
            {
                return Ok((program, false));
            }
            lines = lines.saturating_mul(2);
        }
    }

    /// Whether `input` is the script the shell is reading from its stdin.
    pub(crate) fn is_script_input(&self, input: &Input) -> bool {
        match (input, &self.shell.script_input) {
            (Input::Bytes(b), Some(script)) => Rc::ptr_eq(b, script),
            _ => false,
        }
    }
}

/// The byte offset in `text` where bash's reading stands after each complete command of
/// `program`: the start of the line the next one starts on, less the blank and comment
/// lines before it (bash reads those only when it looks for the next command); for the
/// last, the end of the text. (Where the next command starts is known; where one ends is
/// not, for brush-parser's spans stop short of a compound command's end and of a
/// here-document's body.)
fn command_ends(text: &str, program: &ast::Program) -> Vec<usize> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let commands = &program.complete_commands;
    (0..commands.len())
        .map(|i| {
            let Some(next) = commands.get(i + 1) else {
                return text.len();
            };
            let Some(span) = next.location() else {
                return text.len();
            };
            let mut line = span.start.line.saturating_sub(1).min(line_starts.len() - 1);
            while line > 0 {
                let previous = &text[line_starts[line - 1]..line_starts[line]];
                let previous = previous.trim_start();
                if !(previous.trim_end().is_empty() || previous.starts_with('#')) {
                    break;
                }
                line -= 1;
            }
            line_starts[line]
        })
        .collect()
}
