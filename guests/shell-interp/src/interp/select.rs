//! `select NAME in WORDS; do ...; done`, as bash 5.2 runs it (execute_cmd.c): the numbered
//! menu on stderr in columns that fit `$COLUMNS` (80 when unset), then `$PS3` (`#? `), then
//! a line read as `read` with no name reads it into `$REPLY`. An empty line shows the menu
//! again; a number in range binds NAME to its word, anything else binds it to empty; the
//! body runs, and the menu is not shown again before the next prompt. End of input ends the
//! loop with status 1 (and a newline on stdout); `break` ends it too.

use brush_parser::ast;

use crate::interp::{Interp, Outcome};
use crate::state::Flow;

/// bash's width of a menu number and the `) ` after it.
const SEPARATOR: &str = ") ";
const TAB: usize = 8;

impl Interp<'_> {
    pub(crate) async fn run_select(
        &mut self,
        name: &str,
        words: Vec<String>,
        body: &ast::DoGroupCommand,
    ) -> Outcome {
        if words.is_empty() {
            self.shell.status = 0;
            return Ok(());
        }
        self.shell.loop_depth += 1;
        let mut menu = true;
        let mut iterations = 0;
        let mut status = 0;
        let result = loop {
            if let Err(f) = self.loop_tick(&mut iterations).await {
                break Err(f);
            }
            let Some(choice) = self.select_query(&words, menu).await else {
                status = 1;
                break Ok(());
            };
            menu = false;
            self.shell.set(name, choice);
            match self.run_list(&body.list).await {
                Ok(()) => status = self.shell.status,
                Err(Flow::Break(n)) if n > 1 => break Err(Flow::Break(n - 1)),
                Err(Flow::Break(_)) => {
                    status = 0;
                    break Ok(());
                }
                Err(Flow::Continue(n)) if n > 1 => break Err(Flow::Continue(n - 1)),
                Err(Flow::Continue(_)) => status = 0,
                Err(f) => break Err(f),
            }
        };
        self.shell.loop_depth -= 1;
        if !matches!(result, Err(Flow::Exit | Flow::Return | Flow::Discard)) {
            self.shell.status = status;
        }
        result
    }

    /// Prompts until a line is read: the chosen word (empty for a line that names none), or
    /// `None` at the end of input.
    async fn select_query(&mut self, words: &[String], mut menu: bool) -> Option<String> {
        loop {
            let prompt = self.shell.get("PS3").unwrap_or("#? ").to_string();
            let mut text = if menu {
                self.select_menu(words)
            } else {
                String::new()
            };
            text.push_str(&prompt);
            let _ = self.io.stderr.write_all(text.as_bytes()).await;
            // The `read` builtin itself (a function of that name is not asked).
            let argv = ["read".to_string()];
            let read_ok = match self.builtins.get("read") {
                Some(read) => {
                    let _ = self.run_builtin(read, &argv).await;
                    self.shell.status == 0
                }
                None => false,
            };
            if !read_ok {
                let _ = self.io.stdout.write_all(b"\n").await;
                return None;
            }
            let reply = self.shell.get("REPLY").unwrap_or("").to_string();
            if reply.is_empty() {
                menu = true;
                continue;
            }
            return Some(
                number(&reply)
                    .and_then(|n| usize::try_from(n).ok()?.checked_sub(1))
                    .and_then(|i| words.get(i).cloned())
                    .unwrap_or_default(),
            );
        }
    }

    /// The menu as bash's print_select_list lays it out.
    fn select_menu(&self, words: &[String]) -> String {
        let columns = self
            .shell
            .get("COLUMNS")
            .and_then(number)
            .filter(|&c| c > 0)
            .unwrap_or(80) as usize;
        let index_width = digits(words.len());
        let widest = words.iter().map(|w| w.chars().count()).max().unwrap_or(0)
            + index_width
            + SEPARATOR.len()
            + 2;
        let n = words.len();
        let mut cols = (columns / widest).max(1);
        let mut rows = n.div_ceil(cols);
        cols = n.div_ceil(rows);
        if rows == 1 {
            rows = cols;
        }
        let first_width = digits(rows);
        let mut out = String::new();
        for row in 0..rows {
            let mut i = row;
            let mut pos = 0;
            loop {
                let width = if pos == 0 { first_width } else { index_width };
                out.push_str(&format!("{:>width$}{SEPARATOR}{}", i + 1, words[i]));
                let end = pos + words[i].chars().count() + width + SEPARATOR.len();
                i += rows;
                if i >= n {
                    break;
                }
                indent(&mut out, end, pos + widest);
                pos += widest;
            }
            out.push('\n');
        }
        out
    }
}

/// bash's `indent`: tabs while a tab stop lies before `to`, then spaces.
fn indent(out: &mut String, mut from: usize, to: usize) {
    while from < to {
        if to / TAB > from / TAB {
            out.push('\t');
            from += TAB - from % TAB;
        } else {
            out.push(' ');
            from += 1;
        }
    }
}

/// bash's NUMBER_LEN: the digits of a menu number (at most 6 counted).
fn digits(n: usize) -> usize {
    match n {
        0..10 => 1,
        10..100 => 2,
        100..1000 => 3,
        1000..10000 => 4,
        10000..100000 => 5,
        _ => 6,
    }
}

/// bash's legal_number: a decimal integer, with a sign and blanks around it.
fn number(text: &str) -> Option<i64> {
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}
