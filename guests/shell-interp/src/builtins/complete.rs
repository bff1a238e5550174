//! Programmable completion's builtins, as a script meets them: `compgen` prints the
//! candidates for a word (words, functions, variables, files...), `complete` keeps and lists
//! specifications, `compopt` changes one. No line editor asks for them here, so a
//! specification is only kept and shown.

use crate::builtins::kind::KEYWORDS;
use crate::builtins::out;
use crate::expand::Expand;
use crate::interp::{Builtin, Interp};
use crate::state::completion::{ACTIONS, Spec};
use shell_base::pattern::{MatchOptions, Pattern};

/// What the options of `complete`/`compgen` gave: the spec, `-p`/`-r`, and the names left.
struct Parsed {
    spec: Spec,
    print: bool,
    remove: bool,
    rest: Vec<String>,
}

/// Reads `[-abcdefgjksuv] [-pr] [-o option] [-A action] [-G glob] [-W words] [-F function]
/// [-C command] [-X filter] [-P prefix] [-S suffix]`; an error names what was wrong, and
/// whether the usage follows it.
fn parse(args: &[String], own: &str) -> Result<Parsed, (String, bool)> {
    let mut p = Parsed {
        spec: Spec::default(),
        print: false,
        remove: false,
        rest: Vec::new(),
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        let Some(flags) = arg.strip_prefix('-').filter(|f| !f.is_empty()) else {
            break;
        };
        for (at, c) in flags.char_indices() {
            if "oAGWFCXPS".contains(c) {
                // The value is the rest of this argument or the next one.
                let value = match &flags[at + c.len_utf8()..] {
                    "" => {
                        i += 1;
                        args.get(i).cloned().ok_or_else(|| {
                            (format!("{own}: -{c}: option requires an argument"), true)
                        })?
                    }
                    rest => rest.to_string(),
                };
                let s = &mut p.spec;
                match c {
                    'o' => s.options.push(value),
                    'A' => {
                        if !ACTIONS.iter().any(|(n, _)| *n == value) {
                            return Err((format!("{own}: {value}: invalid action name"), false));
                        }
                        s.actions.push(value);
                    }
                    'G' => s.glob = Some(value),
                    'W' => s.words = Some(value),
                    'F' => s.function = Some(value),
                    'C' => s.command = Some(value),
                    'X' => s.filter = Some(value),
                    'P' => s.prefix = Some(value),
                    _ => s.suffix = Some(value),
                }
                break;
            }
            match c {
                'p' if own == "complete" => p.print = true,
                'r' if own == "complete" => p.remove = true,
                // The default, empty-line and initial-word specifications: nothing here asks.
                'D' | 'E' | 'I' if own == "complete" => {}
                _ => match ACTIONS.iter().find(|(_, l)| *l == c) {
                    Some((name, _)) => p.spec.actions.push(name.to_string()),
                    None => return Err((format!("{own}: -{c}: invalid option"), true)),
                },
            }
        }
        i += 1;
    }
    p.rest = args[i.min(args.len())..].to_vec();
    Ok(p)
}

/// Names in the working directory (or the directory the word names) that start as the word
/// does, `/`-joined as the word wrote them; only directories with `dirs_only`.
fn files(sh: &Interp<'_>, word: &str, dirs_only: bool) -> Vec<String> {
    let (dir, start) = match word.rfind('/') {
        Some(i) => (&word[..=i], &word[i + 1..]),
        None => ("", word),
    };
    let Ok(entries) = std::fs::read_dir(sh.shell.path(if dir.is_empty() { "." } else { dir }))
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| !dirs_only || e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(start) && (!start.is_empty() || !n.starts_with('.')))
        .map(|n| format!("{dir}{n}"))
        .collect();
    names.sort();
    names
}

/// The candidates of `spec` for `word`, in bash's order: each action's, then the glob's and
/// the word list's, filtered by `-X`, with `-P`/`-S` around each.
async fn candidates(sh: &mut Interp<'_>, spec: &Spec, word: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let starts = |names: Vec<String>| -> Vec<String> {
        names.into_iter().filter(|n| n.starts_with(word)).collect()
    };
    let actions = ACTIONS
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| spec.actions.iter().any(|a| a == name));
    for action in actions {
        let names: Vec<String> = match action {
            "alias" => sh.shell.aliases.keys().cloned().collect(),
            "builtin" | "enabled" => sh.builtins.names().map(str::to_string).collect(),
            "keyword" => KEYWORDS.iter().map(|k| k.to_string()).collect(),
            "function" => {
                let mut f: Vec<String> = sh.shell.functions.keys().cloned().collect();
                f.sort();
                f
            }
            "variable" | "export" | "arrayvar" => {
                let export = action == "export";
                let mut v: Vec<String> = sh
                    .shell
                    .vars
                    .iter()
                    .filter(|(_, v)| !export || v.attrs.exported)
                    .filter(|(_, v)| {
                        action != "arrayvar"
                            || matches!(
                                v.value,
                                crate::vars::Value::Array(_) | crate::vars::Value::Assoc(_)
                            )
                    })
                    .map(|(k, _)| k.clone())
                    .collect();
                v.sort();
                v
            }
            "command" => {
                let mut c: Vec<String> = sh.shell.aliases.keys().cloned().collect();
                c.extend(sh.builtins.names().map(str::to_string));
                c.extend(sh.shell.functions.keys().cloned());
                c.extend(KEYWORDS.iter().map(|k| k.to_string()));
                c.extend(sh.shell.commands.names().map(str::to_string));
                c
            }
            "file" => files(sh, word, false),
            "directory" => files(sh, word, true),
            "setopt" => sh
                .shell
                .options
                .listed()
                .into_iter()
                .map(|(n, _)| n.to_string())
                .collect(),
            "shopt" => sh
                .shell
                .shopt
                .all()
                .into_iter()
                .map(|(n, _)| n.to_string())
                .collect(),
            "helptopic" => sh.builtins.names().map(str::to_string).collect(),
            // Users, groups, jobs, services, hosts, signals, key bindings: none here.
            _ => Vec::new(),
        };
        found.extend(starts(names));
    }
    if let Some(glob) = &spec.glob {
        let matches = shell_base::glob::glob(
            std::path::Path::new(&sh.shell.cwd),
            glob,
            shell_base::glob::GlobOptions::default(),
        );
        found.extend(starts(matches));
    }
    if let Some(words) = &spec.words {
        // Expanded and split as bash does (`-W "$list"` and `-W '$HOME x'` both work).
        if let Ok(text) = sh.expand_string(words).await {
            let ifs = sh.shell.ifs();
            let list = text
                .split(|c| ifs.contains(c))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            found.extend(starts(list));
        }
    }
    if let Some(function) = &spec.function {
        found.extend(function_matches(sh, function, word).await);
    }
    if let Some(command) = &spec.command {
        found.extend(command_matches(sh, command, word).await);
    }
    if let Some(filter) = &spec.filter {
        let (negate, text) = match filter.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, filter.as_str()),
        };
        let pattern = Pattern::new(text, MatchOptions::default());
        found.retain(|c| pattern.matches(c) == negate);
    }
    let prefix = spec.prefix.as_deref().unwrap_or_default();
    let suffix = spec.suffix.as_deref().unwrap_or_default();
    found
        .into_iter()
        .map(|c| format!("{prefix}{c}{suffix}"))
        .collect()
}

/// `-F FUNCTION`: what the function leaves in `COMPREPLY`, called as completion calls it
/// (`$1` the command, here `compgen`; `$2` the word; `$3` the word before it, none here).
/// bash warns that outside completion it may not do what is meant, and so does this.
async fn function_matches(sh: &mut Interp<'_>, function: &str, word: &str) -> Vec<String> {
    sh.error("compgen: warning: -F option may not work as you expect")
        .await;
    if !sh.shell.functions.contains_key(function) {
        sh.error(&format!("completion: function `{function}' not found"))
            .await;
        return Vec::new();
    }
    let argv = [function, "compgen", word, ""].map(str::to_string).to_vec();
    let status = sh.shell.status;
    let _ = sh.run_argv(argv).await;
    sh.shell.status = status;
    let reply = sh.shell.values("COMPREPLY").unwrap_or_default();
    let _ = sh.shell.unset("COMPREPLY");
    reply
}

/// `-C COMMAND`: the lines the command prints, run with the same three arguments.
async fn command_matches(sh: &mut Interp<'_>, command: &str, word: &str) -> Vec<String> {
    sh.error("compgen: warning: -C option may not work as you expect")
        .await;
    let args: Vec<String> = ["compgen", word, ""]
        .iter()
        .map(|a| crate::quote::single(a, true))
        .collect();
    let src = format!("{command} {}", args.join(" "));
    let captured = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let io = shell_base::io::Io {
        stdout: shell_base::io::Output::Capture(std::rc::Rc::clone(&captured)),
        ..sh.io.clone()
    };
    sh.run_source_in_subshell(&src, io).await;
    let text = String::from_utf8_lossy(&captured.borrow()).into_owned();
    text.lines().map(str::to_string).collect()
}

/// `compgen [option...] [word]`: the candidates, one a line; 1 when there are none.
pub async fn compgen(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let parsed = match parse(args, "compgen") {
        Ok(p) => p,
        Err((msg, with_usage)) => {
            return usage(sh, &msg, with_usage.then_some(COMPGEN.usage), "compgen").await;
        }
    };
    let word = parsed.rest.first().cloned().unwrap_or_default();
    let found = candidates(sh, &parsed.spec, &word).await;
    if found.is_empty() {
        // With nothing asked for, bash says nothing and succeeds.
        return i32::from(parsed.rest.len() < args.len());
    }
    let text: String = found.iter().map(|c| format!("{c}\n")).collect();
    out(sh, &text).await
}

/// `complete [-pr] [option...] [name...]`: keeps, lists (`-p`, or no arguments) or removes
/// (`-r`) specifications.
pub async fn complete(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let parsed = match parse(args, "complete") {
        Ok(p) => p,
        Err((msg, with_usage)) => {
            return usage(sh, &msg, with_usage.then_some(COMPLETE.usage), "complete").await;
        }
    };
    let defines = !parsed.rest.is_empty() && !parsed.print && !parsed.remove;
    if defines {
        for name in &parsed.rest {
            sh.shell
                .completions
                .insert(name.clone(), parsed.spec.clone());
        }
        return 0;
    }
    if parsed.remove {
        if parsed.rest.is_empty() {
            sh.shell.completions.clear();
            return 0;
        }
        return missing(sh, &parsed.rest, "complete", |sh, n| {
            sh.shell.completions.remove(n).is_some()
        })
        .await;
    }
    let names: Vec<String> = if parsed.rest.is_empty() {
        sh.shell.completions.keys().cloned().collect()
    } else {
        parsed.rest.clone()
    };
    let mut status = 0;
    for name in names {
        match sh.shell.completions.get(&name) {
            Some(spec) => {
                let line = format!("{} {name}\n", spec.shown());
                status |= out(sh, &line).await;
            }
            None => {
                sh.error(&format!("complete: {name}: no completion specification"))
                    .await;
                status = 1;
            }
        }
    }
    status
}

/// `compopt [-o|+o option] [name...]`: changes the options of the named specifications
/// (no completion function runs here to change its own).
pub async fn compopt(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let mut on: Vec<String> = Vec::new();
    let mut off: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let list = match a.as_str() {
            "-o" => &mut on,
            "+o" => &mut off,
            _ => break,
        };
        match args.get(i + 1) {
            Some(v) => list.push(v.clone()),
            None => {
                sh.error(&format!("compopt: {a}: option requires an argument"))
                    .await;
                return 2;
            }
        }
        i += 2;
    }
    let names = &args[i.min(args.len())..];
    if names.is_empty() {
        sh.error("compopt: not currently executing completion function")
            .await;
        return 1;
    }
    missing(sh, names, "compopt", |sh, n| {
        match sh.shell.completions.get_mut(n) {
            Some(spec) => {
                spec.options.retain(|o| !off.contains(o));
                for o in &on {
                    if !spec.options.contains(o) {
                        spec.options.push(o.clone());
                    }
                }
                true
            }
            None => false,
        }
    })
    .await
}

/// Applies `f` to each name; one it fails for is reported as having no specification.
async fn missing(
    sh: &mut Interp<'_>,
    names: &[String],
    own: &str,
    mut f: impl FnMut(&mut Interp<'_>, &str) -> bool,
) -> i32 {
    let mut status = 0;
    for name in names {
        if !f(sh, name) {
            sh.error(&format!("{own}: {name}: no completion specification"))
                .await;
            status = 1;
        }
    }
    status
}

/// Reports a bad option (status 2), with the usage line when bash gives it.
async fn usage(sh: &mut Interp<'_>, msg: &str, usage: Option<&str>, own: &str) -> i32 {
    sh.error(msg).await;
    if let Some(usage) = usage {
        sh.raw_error(&format!("{own}: usage: {own} {usage}")).await;
    }
    2
}

/// `compgen`'s registration.
pub const COMPGEN: Builtin = Builtin {
    name: "compgen",
    run: status!(compgen),
    usage: "[-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]",
    about: "Display possible completions depending on the options",
    special: false,
    declaration: None,
};

/// `complete`'s registration.
pub const COMPLETE: Builtin = Builtin {
    name: "complete",
    run: status!(complete),
    usage: "[-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [name ...]",
    about: "Specify how arguments are to be completed",
    special: false,
    declaration: None,
};

/// `compopt`'s registration.
pub const COMPOPT: Builtin = Builtin {
    name: "compopt",
    run: status!(compopt),
    usage: "[-o|+o option] [-DEI] [name ...]",
    about: "Modify or display completion options",
    special: false,
    declaration: None,
};
