//! Simple commands: assignments, words expanded to fields, process substitutions and
//! redirections, `set -x` tracing, then the command looked up and run (declaration builtins
//! get their assignments expanded as such).

use crate::expand::Expand;

use brush_parser::ast::{self, IoRedirect};

use crate::expand::ExpandError;
use crate::interp::DeclArg;
use crate::interp::redirect::Redirect;
use crate::state::{Flow, Origin};

use crate::interp::{Interp, Outcome};

impl Interp<'_> {
    /// Reports an expansion error; it ends a non-interactive shell, as in bash (status 127
    /// for parameter errors under `-c`, 1 for the rest, in a subshell, under `set -e` and
    /// in a script read from a file or stdin).
    pub async fn expansion_failed(&mut self, e: ExpandError) -> Outcome {
        self.error(&e.message).await;
        self.shell.status = self.ending_status(e.status);
        Err(Flow::Exit)
    }

    /// `set -x`'s prefix, as bash makes it: PS4 with its prompt escapes and expansions
    /// (`$LINENO`, `${FUNCNAME[0]}`...; traced commands in them are not traced), its first
    /// character once more for each command substitution around; nothing when PS4 is unset
    /// or empty.
    pub(crate) async fn xtrace_prefix(&mut self) -> String {
        let Some(raw) = self.shell.get("PS4").filter(|p| !p.is_empty()) else {
            return String::new();
        };
        let decoded = self.shell.prompt(raw);
        let traced = std::mem::replace(&mut self.shell.options.xtrace, false);
        let expanded = self.expand_string(&decoded).await.unwrap_or(decoded);
        self.shell.options.xtrace = traced;
        let Some(first) = expanded.chars().next() else {
            return String::new();
        };
        let mut prefix: String =
            std::iter::repeat_n(first, self.shell.substitution_depth).collect();
        prefix.push_str(&expanded);
        prefix
    }

    /// The status an error that ends the shell leaves: `under_c` in a `-c` script's own
    /// shell without `set -e`, else 1 (bash's way).
    fn ending_status(&self, under_c: i32) -> i32 {
        if self.shell.subshell || self.shell.options.errexit || self.shell.origin != Origin::Command
        {
            1
        } else {
            under_c
        }
    }

    pub(crate) async fn run_simple(&mut self, sc: &ast::SimpleCommand) -> Outcome {
        enum Item<'w> {
            Word(&'w ast::Word),
            Assign(&'w ast::Assignment, &'w ast::Word),
            ProcSub(&'w ast::ProcessSubstitutionKind, &'w ast::SubshellCommand),
        }
        let mut assignments = Vec::new();
        let mut items: Vec<Item> = Vec::new();
        let mut redirects = Vec::new();
        let mut pending_fd_var = None;
        for item in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => assignments.push(a),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(Redirect {
                    redirect: r.clone(),
                    var: None,
                }),
                ast::CommandPrefixOrSuffixItem::Word(w) => items.push(Item::Word(w)),
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(k, s) => {
                    items.push(Item::ProcSub(k, s))
                }
            }
        }
        items.extend(sc.word_or_name.iter().map(Item::Word));
        let suffix: Vec<&ast::CommandPrefixOrSuffixItem> =
            sc.suffix.iter().flat_map(|s| s.0.iter()).collect();
        for (i, item) in suffix.iter().enumerate() {
            match item {
                // `{var}>file`: the word names the variable that gets the new descriptor.
                ast::CommandPrefixOrSuffixItem::Word(w)
                    if fd_variable(&w.value).is_some()
                        && matches!(
                            suffix.get(i + 1),
                            Some(ast::CommandPrefixOrSuffixItem::IoRedirect(
                                IoRedirect::File(None, ..)
                            ))
                        ) =>
                {
                    pending_fd_var = fd_variable(&w.value);
                }
                ast::CommandPrefixOrSuffixItem::Word(w) => items.push(Item::Word(w)),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(Redirect {
                    redirect: r.clone(),
                    var: pending_fd_var.take(),
                }),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                    items.push(Item::Assign(a, w))
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(k, s) => {
                    items.push(Item::ProcSub(k, s))
                }
            }
        }
        if let Some(line) = sc
            .word_or_name
            .as_ref()
            .and_then(|w| w.loc.as_ref())
            .or_else(|| assignments.first().map(|a| &a.loc))
            .map(|l| l.start.line)
        {
            self.line = line + self.line_base;
            let last = suffix.iter().rev().find_map(|item| match item {
                ast::CommandPrefixOrSuffixItem::Word(w)
                | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => w.loc.as_ref(),
                _ => None,
            });
            self.command_end = last.map_or(line, |l| l.end.line.max(line)) + self.line_base;
        }
        self.count_command().await?;
        if let Some(text) = self.alias_for(sc) {
            let name = sc
                .word_or_name
                .as_ref()
                .map(|w| w.value.clone())
                .unwrap_or_default();
            return self.run_source_inline(&text, &name).await;
        }
        self.before_command(|| sc.to_string()).await?;
        self.last_substitution = None;
        let mut argv: Vec<String> = Vec::new();
        let mut decl_args: Vec<DeclArg> = Vec::new();
        // The declaration builtin this command runs (`declare`, `local`...), if any.
        let mut declaring = None;
        let mut substituted = Vec::new();
        for item in &items {
            let expanded = match item {
                Item::Word(w) => self.expand_fields(&w.value).await,
                Item::Assign(a, _) if declaring.is_some() => {
                    match self.expand_assignment(a).await {
                        Ok(p) => {
                            decl_args.push(DeclArg::Assign(p));
                            continue;
                        }
                        Err(e) => Err(e),
                    }
                }
                Item::Assign(_, w) => self.expand_fields(&w.value).await,
                Item::ProcSub(kind, sub) => match self.process_substitution(kind, sub).await {
                    Ok(s) => {
                        let path = s.path.clone();
                        substituted.push(s);
                        Ok(vec![path])
                    }
                    Err(e) => Err(e),
                },
            };
            match expanded {
                Ok(fields) => {
                    let first = argv.is_empty();
                    argv.extend(fields.iter().cloned());
                    if first && !argv.is_empty() {
                        declaring = self
                            .builtins
                            .get(&argv[0])
                            .and_then(|b| b.declaration)
                            .filter(|_| !self.shell.functions.contains_key(&argv[0]));
                        decl_args.extend(fields.into_iter().skip(1).map(DeclArg::Word));
                    } else if declaring.is_some() {
                        decl_args.extend(fields.into_iter().map(DeclArg::Word));
                    }
                }
                Err(e) => return self.expansion_failed(e).await,
            }
        }
        // bash expands and makes assignments left to right, each seeing those before it
        // (`dir=/tmp file=$dir/x`). With no command they stay, even when a redirection
        // then fails; before a command they are the command's, so the shell's own values
        // come back once all are expanded.
        let assigning_only = argv.is_empty();
        let mut pending = Vec::new();
        let mut shadowed: Vec<(String, Option<crate::vars::Var>)> = Vec::new();
        let mut failed = None;
        for a in &assignments {
            let p = match self.expand_assignment(a).await {
                Ok(p) => p,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            if assigning_only {
                if self.shell.options.xtrace {
                    let ps4 = self.xtrace_prefix().await;
                    let _ = self
                        .io
                        .stderr
                        .write_all(trace_assignment(&ps4, &p).as_bytes())
                        .await;
                }
                if let Err(msg) = self.apply_assignment(p) {
                    self.error(&msg).await;
                    if !self.shell.options.posix {
                        self.shell.status = 1;
                        return Err(Flow::Discard);
                    }
                    // POSIX mode: it ends the shell, as an expansion error does.
                    self.shell.status = self.ending_status(127);
                    return Err(Flow::Exit);
                }
                continue;
            }
            if assignments.len() > 1 {
                let name = self.shell.resolve(&p.name);
                if !shadowed.iter().any(|(n, _)| *n == name) {
                    let old = self.shell.vars.get(&name).cloned();
                    shadowed.push((name, old));
                }
                // A readonly name fails again, and is reported, when the command runs.
                let _ = self.apply_assignment(p.clone());
            }
            pending.push(p);
        }
        for (name, old) in shadowed.into_iter().rev() {
            match old {
                Some(var) => self.shell.vars.insert(name, var),
                None => self.shell.vars.remove(&name),
            };
        }
        if let Some(e) = failed {
            return self.expansion_failed(e).await;
        }
        let subst_status = self.last_substitution.unwrap_or(0);
        let io = match self.redirect(&redirects, &mut substituted).await {
            Ok(io) => io,
            Err(msg) => {
                self.error(&msg).await;
                self.shell.status = 1;
                self.finish_substitutions(substituted).await;
                // POSIX: a special builtin's redirection error ends a non-interactive shell.
                let special = argv
                    .first()
                    .and_then(|name| self.builtins.get(name))
                    .is_some_and(|b| b.special);
                return if special && self.shell.options.posix {
                    Err(Flow::Exit)
                } else {
                    Ok(())
                };
            }
        };
        if assigning_only {
            self.shell.status = subst_status;
            self.finish_substitutions(substituted).await;
            return Ok(());
        }
        if self.shell.options.xtrace {
            let ps4 = self.xtrace_prefix().await;
            let words: Vec<String> = argv.iter().map(|a| xtrace_word(a)).collect();
            let _ = io
                .stderr
                .write_all(format!("{ps4}{}\n", words.join(" ")).as_bytes())
                .await;
        }
        let saved = std::mem::replace(&mut self.io, io);
        if self.shell.options.allexport && declaring.is_some() {
            self.shell.status = 0;
        }
        let result = if let Some(declare) = declaring {
            let status = declare(self, &argv[0], decl_args).await;
            self.shell.status = status;
            Ok(())
        } else {
            self.dispatch(argv, pending).await
        };
        if std::mem::take(&mut self.keep_redirections) {
            // `exec > >(cmd)`: `cmd` reads what the shell writes from here on, so it runs
            // as the shell ends.
            let (exec, done) = substituted.into_iter().partition(|s| s.is_output());
            self.exec_substitutions.extend::<Vec<_>>(exec);
            substituted = done;
        } else {
            self.io = saved;
        }
        self.finish_substitutions(substituted).await;
        result
    }
}

/// How `set -x` shows an assignment.
fn trace_assignment(ps4: &str, p: &crate::interp::assign::Pending) -> String {
    let op = if p.append { "+=" } else { "=" };
    match &p.value {
        // An empty value shows as nothing (`x=`), as bash's trace has it.
        crate::interp::assign::Assigned::Scalar(v) if v.is_empty() => {
            format!("{ps4}{}{op}\n", p.name)
        }
        crate::interp::assign::Assigned::Scalar(v) => {
            format!("{ps4}{}{op}{}\n", p.name, xtrace_word(v))
        }
        crate::interp::assign::Assigned::Array(items) => {
            let items: Vec<String> = items.iter().map(|(_, v)| xtrace_word(v)).collect();
            format!("{ps4}{}{op}({})\n", p.name, items.join(" "))
        }
    }
}

/// How `set -x` shows a word: quoted when the shell would not read it back as it is.
fn xtrace_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%^".contains(c))
    {
        word.to_string()
    } else {
        crate::quote::single(word, true)
    }
}

/// The name in a `{name}` word (a `{var}>file` redirection's variable).
fn fd_variable(word: &str) -> Option<String> {
    let name = word.strip_prefix('{')?.strip_suffix('}')?;
    crate::vars::is_name(name).then(|| name.to_string())
}
