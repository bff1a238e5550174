//! Prints shell functions back as source, in bash's layout (`declare -f`, `type`): four
//! spaces per level, `;` after each command but the last of a block.

use brush_parser::ast::{self, Command, CompoundCommand, CompoundList};

/// `name () \n{ \n    ...\n}\n`.
pub fn function(name: &str, body: &ast::FunctionBody) -> String {
    let mut p = Printer::default();
    p.out.push_str(&format!("{name} () \n"));
    p.compound(&body.0, 0);
    if let Some(r) = &body.1 {
        p.out.push_str(&format!(" {r}"));
    }
    p.out.push('\n');
    p.out
}

#[derive(Default)]
struct Printer {
    out: String,
}

fn pad(level: usize) -> String {
    "    ".repeat(level)
}

impl Printer {
    /// A list as the lines of a block at `level`; `semi_last` ends the last command with
    /// `;` too (as bash does inside `if`, `for`, `while`).
    fn list(&mut self, list: &CompoundList, level: usize, semi_last: bool) {
        let n = list.0.len();
        for (i, item) in list.0.iter().enumerate() {
            self.out.push_str(&pad(level));
            self.and_or(&item.0, level);
            if matches!(item.1, ast::SeparatorOperator::Async) {
                self.out.push_str(" &");
            } else if i + 1 < n || semi_last {
                self.out.push(';');
            }
            self.out.push('\n');
        }
    }

    fn and_or(&mut self, a: &ast::AndOrList, level: usize) {
        self.pipeline(&a.first, level);
        for next in &a.additional {
            let (op, p) = match next {
                ast::AndOr::And(p) => ("&&", p),
                ast::AndOr::Or(p) => ("||", p),
            };
            self.out.push_str(&format!(" {op} "));
            self.pipeline(p, level);
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline, level: usize) {
        if p.bang {
            self.out.push_str("! ");
        }
        for (i, c) in p.seq.iter().enumerate() {
            if i > 0 {
                self.out.push_str(" | ");
            }
            self.command(c, level);
        }
    }

    fn command(&mut self, c: &Command, level: usize) {
        match c {
            Command::Simple(s) => self.out.push_str(&s.to_string()),
            Command::ExtendedTest(t, _) => self.out.push_str(&format!("[[ {} ]]", t.expr)),
            Command::Function(f) => {
                self.out.push_str(&function(&f.fname.value, &f.body));
            }
            Command::Compound(cc, redirects) => {
                self.compound(cc, level);
                if let Some(r) = redirects {
                    self.out.push_str(&format!(" {r}"));
                }
            }
        }
    }

    fn body(&mut self, list: &CompoundList, level: usize) {
        self.list(list, level + 1, true);
    }

    fn compound(&mut self, cc: &CompoundCommand, level: usize) {
        let ind = pad(level);
        match cc {
            CompoundCommand::BraceGroup(g) => {
                self.out.push_str("{ \n");
                self.list(&g.list, level + 1, false);
                self.out.push_str(&format!("{ind}}}"));
            }
            CompoundCommand::Subshell(s) => {
                self.out.push_str("( ");
                let text = inline(&s.list);
                self.out.push_str(&text);
                self.out.push_str(" )");
            }
            CompoundCommand::IfClause(c) => {
                self.out
                    .push_str(&format!("if {}; then\n", inline(&c.condition)));
                self.body(&c.then, level);
                for e in c.elses.iter().flatten() {
                    match &e.condition {
                        Some(cond) => {
                            self.out
                                .push_str(&format!("{ind}elif {}; then\n", inline(cond)));
                        }
                        None => self.out.push_str(&format!("{ind}else\n")),
                    }
                    self.body(&e.body, level);
                }
                self.out.push_str(&format!("{ind}fi"));
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                let kw = if matches!(cc, CompoundCommand::WhileClause(_)) {
                    "while"
                } else {
                    "until"
                };
                self.out.push_str(&format!("{kw} {}; do\n", inline(&w.0)));
                self.body(&w.1.list, level);
                self.out.push_str(&format!("{ind}done"));
            }
            CompoundCommand::ForClause(f) => {
                let (name, select) = crate::select::loop_name(f);
                let keyword = if select { "select" } else { "for" };
                match &f.values {
                    Some(words) => {
                        let words: Vec<String> = words.iter().map(|w| w.value.clone()).collect();
                        self.out
                            .push_str(&format!("{keyword} {name} in {};\n", words.join(" ")));
                    }
                    None => self.out.push_str(&format!("{keyword} {name} in \"$@\";\n")),
                }
                self.out.push_str(&format!("{ind}do\n"));
                self.body(&f.body.list, level);
                self.out.push_str(&format!("{ind}done"));
            }
            CompoundCommand::ArithmeticForClause(f) => {
                let part = |e: &Option<ast::UnexpandedArithmeticExpr>| {
                    e.as_ref()
                        .map(|e| e.value.trim().to_string())
                        .unwrap_or_default()
                };
                self.out.push_str(&format!(
                    "for (({}; {}; {}))\n{ind}do\n",
                    part(&f.initializer),
                    part(&f.condition),
                    part(&f.updater)
                ));
                self.body(&f.body.list, level);
                self.out.push_str(&format!("{ind}done"));
            }
            CompoundCommand::CaseClause(c) => {
                self.out.push_str(&format!("case {} in \n", c.value.value));
                for item in &c.cases {
                    let pats: Vec<String> = item.patterns.iter().map(|p| p.value.clone()).collect();
                    self.out
                        .push_str(&format!("{}{})\n", pad(level + 1), pats.join(" | ")));
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd, level + 2, false);
                    }
                    let end = match item.post_action {
                        ast::CaseItemPostAction::ExitCase => ";;",
                        ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => ";&",
                        ast::CaseItemPostAction::ContinueEvaluatingCases => ";;&",
                    };
                    self.out.push_str(&format!("{}{end}\n", pad(level + 1)));
                }
                self.out.push_str(&format!("{ind}esac"));
            }
            CompoundCommand::Arithmetic(a) => {
                self.out.push_str(&format!("(({}))", a.expr.value));
            }
            CompoundCommand::Coprocess(_) => self.out.push_str("coproc"),
        }
    }
}

/// A list on one line (conditions): `a; b`.
fn inline(list: &CompoundList) -> String {
    let mut p = Printer::default();
    let n = list.0.len();
    for (i, item) in list.0.iter().enumerate() {
        p.and_or(&item.0, 0);
        if i + 1 < n {
            p.out.push_str("; ");
        }
    }
    p.out
}
