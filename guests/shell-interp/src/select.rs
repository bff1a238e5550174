//! `select NAME [in WORDS]; do ...; done`, which brush-parser does not parse. Where the parser
//! stopped just after a `select` keyword, the keyword becomes `for` padded to its length
//! (lines and columns stay); once the text parses, the `for` loops that were `select`s are
//! marked on the tree (their variable name starts with [`MARK`], which no parsed name can
//! hold), and run as bash runs `select` (`interp/select.rs`).

use brush_parser::ast;

/// Prefix of a marked loop's variable name: a NUL never reaches a parsed name.
pub const MARK: &str = "\0select:";

/// The name a `for` loop binds, and whether it is a `select`.
pub fn loop_name(f: &ast::ForClauseCommand) -> (&str, bool) {
    match f.variable_name.strip_prefix(MARK) {
        Some(name) => (name, true),
        None => (&f.variable_name, false),
    }
}

/// `src` with the `select` keyword that ends just before byte `error` written as `for   `,
/// and the keyword's offset; `None` when the parser did not stop after such a keyword.
pub fn as_for(src: &str, error: usize) -> Option<(String, usize)> {
    let head = src.get(..error)?.trim_end();
    let at = head.strip_suffix("select")?.len();
    let before = src[..at].chars().next_back();
    if before.is_some_and(|c| !c.is_whitespace() && !";&|({}!".contains(c)) {
        return None;
    }
    Some((format!("{}for   {}", &src[..at], &src[at + 6..]), at))
}

/// `offsets` (of `select` keywords in `old`) moved to where they are in `new`, which another
/// repair made from `old` by one change: offsets after the change shift by its length.
pub fn shift(offsets: &mut [usize], old: &str, new: &str) {
    let same = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    for o in offsets.iter_mut().filter(|o| **o >= same) {
        *o = (*o + new.len()).saturating_sub(old.len());
    }
}

/// Marks the `for` loops of `program` that start at one of `offsets` (bytes of `text`, the
/// text it was parsed from) as `select`s.
pub fn mark(program: &mut ast::Program, text: &str, offsets: &[usize]) {
    if offsets.is_empty() {
        return;
    }
    // Only where the repair's `for   ` stands: an offset another repair moved wrongly marks
    // nothing rather than a loop the script wrote as `for`.
    let spots: Vec<(usize, usize)> = offsets
        .iter()
        .filter(|&&o| text.get(o..o + 6) == Some("for   "))
        .map(|&o| line_column(text, o))
        .collect();
    for c in &mut program.complete_commands {
        list(c, &spots);
    }
}

/// The line and column (both from 1, the column in chars) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let head = &text[..offset.min(text.len())];
    let line_start = head.rfind('\n').map_or(0, |i| i + 1);
    (
        head.matches('\n').count() + 1,
        head[line_start..].chars().count() + 1,
    )
}

fn list(l: &mut ast::CompoundList, spots: &[(usize, usize)]) {
    for item in &mut l.0 {
        pipeline(&mut item.0.first, spots);
        for next in &mut item.0.additional {
            match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => pipeline(p, spots),
            }
        }
    }
}

fn pipeline(p: &mut ast::Pipeline, spots: &[(usize, usize)]) {
    for c in &mut p.seq {
        command(c, spots);
    }
}

fn command(c: &mut ast::Command, spots: &[(usize, usize)]) {
    match c {
        ast::Command::Compound(cc, _) => compound(cc, spots),
        ast::Command::Function(f) => compound(&mut f.body.0, spots),
        ast::Command::Simple(_) | ast::Command::ExtendedTest(..) => {}
    }
}

fn compound(cc: &mut ast::CompoundCommand, spots: &[(usize, usize)]) {
    use ast::CompoundCommand as C;
    match cc {
        C::ForClause(f) => {
            if spots.contains(&(f.loc.start.line, f.loc.start.column)) {
                f.variable_name.insert_str(0, MARK);
            }
            list(&mut f.body.list, spots);
        }
        C::BraceGroup(g) => list(&mut g.list, spots),
        C::Subshell(s) => list(&mut s.list, spots),
        C::ArithmeticForClause(f) => list(&mut f.body.list, spots),
        C::CaseClause(c) => {
            for item in &mut c.cases {
                if let Some(l) = &mut item.cmd {
                    list(l, spots);
                }
            }
        }
        C::IfClause(c) => {
            list(&mut c.condition, spots);
            list(&mut c.then, spots);
            for e in c.elses.iter_mut().flatten() {
                if let Some(cond) = &mut e.condition {
                    list(cond, spots);
                }
                list(&mut e.body, spots);
            }
        }
        C::WhileClause(w) | C::UntilClause(w) => {
            list(&mut w.0, spots);
            list(&mut w.1.list, spots);
        }
        C::Coprocess(c) => command(&mut c.body, spots),
        C::Arithmetic(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_select_keyword_before_the_error_becomes_for() {
        let src = "echo a; select x in a; do :; done";
        let (text, at) = as_for(src, 15).unwrap();
        assert_eq!(text, "echo a; for    x in a; do :; done");
        assert_eq!(at, 8);
        assert_eq!(as_for("echo preselect x", 15), None);
        assert_eq!(as_for("echo x", 5), None);
    }

    #[test]
    fn offsets_after_a_change_move_with_it() {
        let mut at = [2, 20];
        shift(
            &mut at,
            "ab for ((;;)) xyz select",
            "ab for ((; ;)) xyz select",
        );
        assert_eq!(at, [2, 21]);
    }

    #[test]
    fn only_the_repairs_for_is_marked() {
        let parse = |text: &str| {
            brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), &Default::default())
                .parse_program()
                .unwrap()
        };
        let text = "for    x in a; do :; done\nfor y in b; do :; done";
        let mut program = parse(text);
        // The first is the repair's; 26 is the second loop's `for`, and 3 is inside a word.
        mark(&mut program, text, &[0, 26, 3]);
        let names: Vec<String> = program
            .complete_commands
            .iter()
            .map(|c| match &c.0[0].0.first.seq[0] {
                ast::Command::Compound(ast::CompoundCommand::ForClause(f), _) => {
                    f.variable_name.clone()
                }
                _ => String::new(),
            })
            .collect();
        assert_eq!(names, [format!("{MARK}x"), "y".to_string()]);
    }

    #[test]
    fn lines_and_columns_count_chars() {
        assert_eq!(line_column("a\né select", 5), (2, 3));
    }
}
