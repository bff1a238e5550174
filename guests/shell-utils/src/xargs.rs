//! `xargs`: builds command lines from its input and runs them through the shell, one
//! after another.

use super::stream::{Lines, complain};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{number, parser, string, value, wording};

/// `xargs [-0] [-d C] [-n N] [-L N] [-I R] [-r] [-t] [-P N] [COMMAND [ARGS...]]`.
pub async fn xargs(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut zero = false;
    let mut delim: Option<char> = None;
    let mut max_args: Option<usize> = None;
    let mut max_lines: Option<usize> = None;
    let mut replace: Option<String> = None;
    let mut no_empty = false;
    let mut trace = false;
    let mut command = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        let count = |v: String| number::<usize>(&v, "count");
        while let Some(arg) = p.next()? {
            match arg {
                Short('0') | Long("null") => zero = true,
                Short('r') | Long("no-run-if-empty") => no_empty = true,
                Short('t') | Long("verbose") => trace = true,
                Short('x') | Long("exit") => {}
                Short('d') | Long("delimiter") => delim = parse_delim(&value(&mut p)?),
                Short('n') | Long("max-args") => max_args = Some(count(value(&mut p)?)?),
                Short('L') | Long("max-lines") => max_lines = Some(count(value(&mut p)?)?),
                // One command at a time, with no limit on its length but memory's.
                Short('P' | 's') | Long("max-procs" | "max-chars") => {
                    p.value()?;
                }
                Short('I') => {
                    replace = Some(value(&mut p)?);
                    max_lines = Some(1);
                }
                // `-i[R]`: the old `-I R`, `{}` by default; its value only attached.
                Short('i') | Long("replace") => {
                    replace = Some(p.optional_value().map_or("{}".to_string(), string));
                    max_lines = Some(1);
                }
                // The command and its initial arguments: the rest is theirs.
                Value(v) => {
                    command.push(string(v));
                    command.extend(p.raw_args()?.map(string));
                }
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        let (msg, _) = wording("xargs", &e);
        let usage = "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...";
        let hint = "Try 'xargs --help' for more information.";
        return complain(sh, &format!("{msg}\n{usage}\n{hint}")).await;
    }
    if command.is_empty() {
        command.push("echo".into());
    }
    let input = sh.io().stdin.clone();
    // Input as lines (for -L/-I) or as one stream of items.
    let mut lines = Lines::with_delimiter(input, if zero { 0 } else { b'\n' });
    let mut all_lines: Vec<String> = Vec::new();
    while let Ok(Some(l)) = lines.next().await {
        all_lines.push(String::from_utf8_lossy(&l).into_owned());
    }
    let mut quote_error = None;
    let groups: Vec<Vec<String>> = if zero || delim.is_some() {
        let sep = if zero { '\0' } else { delim.unwrap_or('\n') };
        let text: String = all_lines.concat();
        let mut parts: Vec<String> = text.split(sep).map(str::to_string).collect();
        if parts
            .last()
            .is_some_and(|p| p.is_empty() || (!zero && p == "\n"))
        {
            parts.pop();
        }
        chunk(parts, max_args.or(max_lines))
    } else if let Some(n) = max_lines {
        let mut groups = Vec::new();
        let mut cur = Vec::new();
        let mut count = 0;
        for l in &all_lines {
            let its = if replace.is_some() {
                let t = l.trim_end_matches('\n').trim_start();
                if t.is_empty() {
                    Vec::new()
                } else {
                    vec![t.to_string()]
                }
            } else {
                let (v, bad) = items(l);
                if bad.is_some() {
                    quote_error = bad;
                    cur.extend(v);
                    break;
                }
                v
            };
            if its.is_empty() {
                continue;
            }
            cur.extend(its);
            count += 1;
            if count == n {
                groups.push(std::mem::take(&mut cur));
                count = 0;
            }
        }
        if !cur.is_empty() {
            groups.push(cur);
        }
        groups
    } else {
        let (v, bad) = items(&all_lines.concat());
        quote_error = bad;
        chunk(v, max_args)
    };
    if groups.is_empty() && !no_empty && replace.is_none() && quote_error.is_none() {
        return run_one(sh, command, trace).await;
    }
    let mut status = 0;
    for g in groups {
        let line = match &replace {
            Some(r) => {
                let item = g.join(" ");
                command
                    .iter()
                    .map(|a| a.replace(r.as_str(), &item))
                    .collect()
            }
            None => {
                let mut c = command.clone();
                c.extend(g);
                c
            }
        };
        let s = run_one(sh, line, trace).await;
        match s {
            0 => {}
            127 => return 127,
            255 => {
                complain(
                    sh,
                    &format!("xargs: {}: exited with status 255; aborting", command[0]),
                )
                .await;
                return 124;
            }
            _ => status = 123,
        }
    }
    if let Some(m) = quote_error {
        complain(sh, &format!("xargs: {m}")).await;
        return 1;
    }
    status
}

fn parse_delim(d: &str) -> Option<char> {
    match d {
        "\\n" => Some('\n'),
        "\\t" => Some('\t'),
        "\\0" => Some('\0'),
        _ => d.chars().next(),
    }
}

fn chunk(items: Vec<String>, n: Option<usize>) -> Vec<Vec<String>> {
    match n {
        Some(n) if n > 0 => items.chunks(n).map(<[String]>::to_vec).collect(),
        _ if items.is_empty() => Vec::new(),
        _ => vec![items],
    }
}

async fn run_one(sh: &mut dyn Context, argv: Vec<String>, trace: bool) -> i32 {
    if trace {
        let _ = sh
            .io()
            .stderr
            .write_all(format!("{}\n", argv.join(" ")).as_bytes())
            .await;
    }
    sh.run(argv).await
}

/// Splits xargs input into items: blanks separate, quotes and backslashes protect.
pub(crate) fn items(text: &str) -> (Vec<String>, Option<String>) {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut started = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if started {
                    out.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            '\'' | '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\n') | None => {
                            let kind = if c == '\'' { "single" } else { "double" };
                            // The items before the bad quote still run, as GNU xargs does.
                            let msg = format!(
                                "unmatched {kind} quote; by default quotes are special to xargs unless you use the -0 option"
                            );
                            return (out, Some(msg));
                        }
                        Some(o) => cur.push(o),
                    }
                }
            }
            '\\' => {
                started = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            o => {
                started = true;
                cur.push(o);
            }
        }
    }
    if started {
        out.push(cur);
    }
    (out, None)
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::{Native, stdout_of};

    #[test]
    fn runs_commands_with_the_items() {
        assert_eq!(
            stdout_of(&["xargs", "basename", "-a"], "x/a y/b\n"),
            "a\nb\n"
        );
        assert_eq!(
            stdout_of(&["xargs", "-n", "1", "basename"], "x/a y/b\n"),
            "a\nb\n"
        );
        let ran = Native::new().run(&["xargs", "nosuchcommand"], "a\n");
        assert_eq!(ran.status, 127);
    }
}
