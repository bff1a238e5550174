//! `awk`: POSIX awk with gawk's common extensions, checked against GNU awk 5 (its messages,
//! its number output, its `substr`). Strings are characters (UTF-8), not bytes.
//!
//! The program is tokenized ([`lexer`]), parsed into a tree ([`parser`], [`ast`]) and run
//! by walking it ([`run`], [`eval`], [`builtins`]); records and fields are in [`records`],
//! values in [`value`], `printf` in [`format`]. `system()`, `cmd | getline` and
//! `print | cmd` run their commands in a subshell of this shell.

mod ast;
mod builtins;
mod eval;
pub(super) mod format;
mod lexer;
mod parser;
mod records;
mod run;
pub(super) mod value;

use ast::{Pattern, Program};
use run::{Jump, Machine};
use shell_base::args::{parser, string, value};
use value::Value;

use super::stream::{complain, open, read_all_limited};
use lexopt::prelude::*;
use shell_base::Context;

const USAGE: &str = "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...
Usage: awk [POSIX or GNU style options] [--] 'program' file ...
POSIX options:\t\tGNU long options: (standard)
\t-f progfile\t\t--file=progfile
\t-F fs\t\t\t--field-separator=fs
\t-v var=val\t\t--assign=var=val
";

/// `awk [-F fs] [-v var=value] [-f progfile | 'program'] [file ...]`.
pub async fn awk(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut fs: Option<String> = None;
    let mut assignments: Vec<String> = Vec::new();
    let mut progfiles: Vec<String> = Vec::new();
    let mut operands: Vec<String> = Vec::new();
    let (mut version, mut help) = (false, false);
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('F') | Long("field-separator") => fs = Some(value(&mut p)?),
                Short('v') | Long("assign") => assignments.push(value(&mut p)?),
                Short('f') | Long("file") => progfiles.push(value(&mut p)?),
                Short('V') | Long("version") => version = true,
                Short('h') | Long("help") => help = true,
                // The program (unless `-f` gave one), then files and assignments: all
                // operands from here on, as gawk has it.
                Value(v) => {
                    operands.push(string(v));
                    operands.extend(p.raw_args()?.map(string));
                }
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if version {
        let out = sh.io().stdout.clone();
        let _ = out
            .write_all(b"GNU Awk 5.2.1 (compatible; built into the computer shell)\n")
            .await;
        return 0;
    }
    if help {
        let _ = sh.io().stdout.clone().write_all(USAGE.as_bytes()).await;
        return 0;
    }
    match parsed {
        Ok(()) => {}
        Err(lexopt::Error::MissingValue { option: Some(o) }) => {
            return missing(sh, o.trim_start_matches('-').chars().next().unwrap_or('-')).await;
        }
        Err(_) => {
            complain(sh, USAGE.trim_end()).await;
            return 1;
        }
    }
    let mut operands = operands.into_iter();
    let mut source = String::new();
    let mut from_file = None;
    if progfiles.is_empty() {
        let Some(text) = operands.next() else {
            complain(sh, USAGE.trim_end()).await;
            return 1;
        };
        source = text;
    } else {
        for f in &progfiles {
            let text = match open(sh, f) {
                Ok(input) => read_all_limited(&input, super::stream::MEMORY_LIMIT, f).await,
                Err(e) => Err(e),
            };
            match text {
                Ok(text) => {
                    source.push_str(&String::from_utf8_lossy(&text));
                    source.push('\n');
                }
                Err(_) => {
                    complain(
                        sh,
                        &format!(
                            "awk: fatal: cannot open source file `{f}' for reading: No such file or directory"
                        ),
                    )
                    .await;
                    return 2;
                }
            }
        }
        from_file = progfiles.first().cloned();
    }
    let operands: Vec<String> = operands.collect();
    let where_ = |line: usize| match &from_file {
        Some(f) => format!("awk: {f}:{line}: "),
        None => format!("awk: cmd. line:{line}: "),
    };
    let program = match parse(&source) {
        Ok((program, warnings)) => {
            for w in warnings {
                complain(sh, &format!("awk: {w}")).await;
            }
            program
        }
        Err((line, col, msg)) => {
            let place = where_(line);
            let text = source.lines().nth(line.saturating_sub(1)).unwrap_or("");
            let (report, status) = if msg.starts_with("fatal: ") {
                (format!("{place}{msg}"), 2)
            } else if msg.starts_with("error: ") {
                (format!("{place}{msg}"), 1)
            } else {
                (
                    format!("{place}{text}\n{place}{}^ {msg}", " ".repeat(col)),
                    1,
                )
            };
            complain(sh, &report).await;
            return status;
        }
    };
    let mut machine = match Machine::new(&program, sh) {
        Ok(m) => m,
        Err(msg) => {
            complain(sh, &format!("{}fatal: {msg}", where_(1))).await;
            return 2;
        }
    };
    machine.set_args(&operands);
    let setup = setup(&mut machine, fs, &assignments);
    let outcome = match setup {
        Ok(()) => run(&mut machine, &program).await,
        Err(e) => Err(e),
    };
    let closed = machine.close_all().await;
    let status = machine.status;
    match outcome.and(closed) {
        Ok(()) => status,
        Err(Jump::Stop(code)) => code,
        Err(Jump::Fatal(msg)) => {
            // gawk names the program's line once code ran, and the input's place once a
            // record was read.
            let prefix = match machine.error_context() {
                None => "awk: ".to_string(),
                Some(None) => where_(1),
                Some(Some((file, fnr))) => format!("{}(FILENAME={file} FNR={fnr}) ", where_(1)),
            };
            complain(machine.sh, &format!("{prefix}fatal: {msg}")).await;
            2
        }
        Err(_) => status,
    }
}

async fn missing(sh: &dyn Context, flag: char) -> i32 {
    complain(
        sh,
        &format!("awk: option requires an argument -- '{flag}'\n{USAGE}"),
    )
    .await;
    2
}

/// The program and the lexer's warnings.
fn parse(source: &str) -> Result<(Program, Vec<String>), parser::ParseError> {
    let (tokens, warnings) = lexer::tokenize(source)?;
    Ok((parser::Parser::new(tokens).parse()?, warnings))
}

/// `-F` and `-v`, before BEGIN.
fn setup(
    m: &mut Machine<'_, '_, '_>,
    fs: Option<String>,
    assignments: &[String],
) -> Result<(), Jump> {
    if let Some(fs) = fs {
        m.assign_by_name("FS", Value::Str(lexer::unescape(&fs)))?;
    }
    for a in assignments {
        match operand_assignment(a) {
            Some((name, value)) => m.assign_by_name(name, Value::StrNum(value))?,
            None => {
                return Err(Jump::Fatal(format!(
                    "`{a}' argument to `-v' not in `var=value' form"
                )));
            }
        }
    }
    Ok(())
}

/// `name=value` (an operand or `-v`'s argument): the name and the value, escapes decoded.
pub fn operand_assignment(arg: &str) -> Option<(&str, String)> {
    let (name, value) = arg.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some((name, lexer::unescape(value)))
}

/// BEGIN, the records through the rules, END.
async fn run<'p>(m: &mut Machine<'p, '_, '_>, program: &'p Program) -> Result<(), Jump> {
    let mut exiting = false;
    for body in &program.begin {
        match m.exec_block(body).await {
            Ok(()) => {}
            Err(Jump::Exit) => {
                exiting = true;
                break;
            }
            Err(Jump::Next | Jump::NextFile) => {
                return Err(Jump::Fatal("`next' used in BEGIN action".into()));
            }
            Err(e) => return Err(e),
        }
    }
    if !exiting && (!program.rules.is_empty() || !program.end.is_empty()) {
        'records: while let Some(record) = m.next_main_record().await? {
            m.set_record(record);
            for (i, rule) in program.rules.iter().enumerate() {
                let matched = match &rule.pattern {
                    Pattern::All => true,
                    Pattern::Expr(e) => m.operand(e).await?.is_true(),
                    Pattern::Range(from, to) => {
                        if m.ranges[i] {
                            if m.operand(to).await?.is_true() {
                                m.ranges[i] = false;
                            }
                            true
                        } else if m.operand(from).await?.is_true() {
                            m.ranges[i] = !m.operand(to).await?.is_true();
                            true
                        } else {
                            false
                        }
                    }
                };
                if !matched {
                    continue;
                }
                let result = match &rule.action {
                    Some(body) => m.exec_block(body).await,
                    None => m.print_record().await,
                };
                match result {
                    Ok(()) => {}
                    Err(Jump::Next) => continue 'records,
                    Err(Jump::NextFile) => {
                        m.skip_file();
                        continue 'records;
                    }
                    Err(Jump::Exit) => break 'records,
                    Err(e) => return Err(e),
                }
            }
        }
    }
    for body in &program.end {
        match m.exec_block(body).await {
            Ok(()) => {}
            Err(Jump::Exit) => break,
            Err(Jump::Next | Jump::NextFile) => {
                return Err(Jump::Fatal("`next' used in END action".into()));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn fields_patterns_and_end() {
        assert_eq!(stdout_of(&["awk", "{print $2}"], "a b\nc d\n"), "b\nd\n");
        assert_eq!(
            stdout_of(
                &["awk", "-F:", "$1==\"x\"{n++} END{print n}"],
                "x:1\ny:2\nx:3\n"
            ),
            "2\n"
        );
        assert_eq!(
            stdout_of(&["awk", "BEGIN{printf \"%05.1f\\n\", 3.14159}"], ""),
            "003.1\n"
        );
    }
}
