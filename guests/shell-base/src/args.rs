//! How every utility reads its arguments: lexopt over argv, and GNU getopt's wording when an
//! option is wrong. Each utility matches lexopt's `Short`, `Long` and `Value` itself, so its
//! options are its own (no shared table maps `--force` for every caller); a bad value is one
//! of the errors below, so it is reported in the same place as a bad option.
//!
//! Four utilities do not take getopt's syntax, so they read argv themselves: `expr` (its
//! operands are an expression: `expr -1 + 2`), `find` (paths, then an expression), `xxd`
//! (vim's single-dash long options: `-ps`, `-cols 8`) and `git` (its arguments go to the
//! host's git as they are). Nor does the shell itself: `sh` and `bash` take bash's `-o NAME`
//! and `+e` forms, as `set` does.

use lexopt::Error;

use crate::Context;
use crate::context::complain;

/// lexopt's parser over a utility's arguments (argv without the command's name).
pub fn parser(argv: &[String]) -> lexopt::Parser {
    let mut p = lexopt::Parser::from_args(argv[1..].iter().cloned());
    // getopt gives `-F=` the value `=` (`awk -F=`, `cut -d=`), not an empty one.
    p.set_short_equals(false);
    p
}

/// An option as the user typed it (`-A`, `--after-context`), for messages; empty for an operand.
pub fn as_typed(arg: &lexopt::Arg<'_>) -> String {
    match arg {
        lexopt::Arg::Short(c) => format!("-{c}"),
        lexopt::Arg::Long(l) => format!("--{l}"),
        lexopt::Arg::Value(_) => String::new(),
    }
}

/// An argument as text (arguments arrive as UTF-8 strings, so nothing is lost).
pub fn string(v: std::ffi::OsString) -> String {
    v.to_string_lossy().into_owned()
}

/// The operands of a utility that has no options of its own (an option is an error).
pub fn operands(argv: &[String]) -> Result<Vec<String>, Error> {
    let mut operands = Vec::new();
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            lexopt::Arg::Value(v) => operands.push(string(v)),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(operands)
}

/// The options of a utility whose options are all flags: the letters given, in order (a long
/// option as its letter, from the utility's own `long` list; a name there ending in `=`, such
/// as `("color=", '1')`, may also be given a value, which is not used), and the operands.
pub fn flags(
    argv: &[String],
    letters: &str,
    long: &[(&str, char)],
) -> Result<(String, Vec<String>), Error> {
    let (mut given, mut operands) = (String::new(), Vec::new());
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            lexopt::Arg::Short(c) if letters.contains(c) => given.push(c),
            lexopt::Arg::Long(name) => {
                let Some((spelled, c)) = long
                    .iter()
                    .find(|(l, _)| l.strip_suffix('=').unwrap_or(l) == name)
                else {
                    return Err(arg.unexpected());
                };
                if spelled.ends_with('=') {
                    p.optional_value();
                }
                given.push(*c);
            }
            lexopt::Arg::Value(v) => operands.push(string(v)),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok((given, operands))
}

/// The value of the option just read, as text.
pub fn value(p: &mut lexopt::Parser) -> Result<String, Error> {
    Ok(string(p.value()?))
}

/// The next argument, less its `-`, when what follows the `-` is what `accept` takes: a
/// number (`fmt -72`, `expand -4,8`, `seq -5 1`) or a mode (`chmod -x`), which getopt would
/// read as options. Asked before lexopt reads the argument.
pub fn dashed(p: &mut lexopt::Parser, accept: impl Fn(&str) -> bool) -> Option<String> {
    let mut raw = p.try_raw_args()?;
    let arg = raw.next_if(|a| {
        a.to_str()
            .and_then(|a| a.strip_prefix('-'))
            .is_some_and(|n| !n.is_empty() && accept(n))
    })?;
    Some(string(arg)[1..].to_string())
}

/// The next argument's digits when it is `-` and digits: the historical `-N` form of a
/// width or length option (`fold -40`, `fmt -72`, `strings -8`).
pub fn dashed_number(p: &mut lexopt::Parser) -> Option<String> {
    dashed(p, |n| n.chars().all(|c| c.is_ascii_digit()))
}

/// `text` as a number, or GNU's `invalid WHAT: 'TEXT'` (`invalid width: 'x'`).
pub fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, Error> {
    text.parse()
        .map_err(|_| plain(format!("invalid {what}: '{text}'")))
}

/// A usage error that GNU follows with `Try 'CMD --help' for more information.`
pub fn usage(msg: impl Into<String>) -> Error {
    Error::Custom(Box::new(Message {
        text: msg.into(),
        hint: true,
    }))
}

/// A bad value that GNU reports on one line, without the `--help` hint.
pub fn plain(msg: impl Into<String>) -> Error {
    Error::Custom(Box::new(Message {
        text: msg.into(),
        hint: false,
    }))
}

#[derive(Debug)]
struct Message {
    text: String,
    hint: bool,
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for Message {}

/// What GNU's getopt says of `err`, and whether it adds the `--help` hint.
pub fn wording(cmd: &str, err: &Error) -> (String, bool) {
    let msg = match err {
        Error::UnexpectedOption(o) if o.starts_with("--") => {
            format!("unrecognized option '{o}'")
        }
        Error::UnexpectedOption(o) => {
            format!("invalid option -- '{}'", o.trim_start_matches('-'))
        }
        Error::MissingValue { option: Some(o) } if o.starts_with("--") => {
            format!("option '{o}' requires an argument")
        }
        Error::MissingValue { option: Some(o) } => {
            format!(
                "option requires an argument -- '{}'",
                o.trim_start_matches('-')
            )
        }
        Error::UnexpectedValue { option, .. } => {
            format!("option '{option}' doesn't allow an argument")
        }
        Error::Custom(e) => {
            let hint = e.downcast_ref::<Message>().is_none_or(|m| m.hint);
            return (format!("{cmd}: {e}"), hint);
        }
        other => other.to_string(),
    };
    (format!("{cmd}: {msg}"), true)
}

/// Reports `err` as GNU tools do (the message, then `Try 'CMD --help' for more information.`
/// where GNU adds it) and returns `status`.
pub async fn bad_usage(sh: &dyn Context, cmd: &str, err: Error, status: i32) -> i32 {
    complain(sh, &usage_text(cmd, &err, "")).await;
    status
}

/// [`bad_usage`] as GNU diffutils (`cmp`, `diff`, `diff3`) word it: their hint starts with
/// the command's name too. The status is theirs for trouble, 2.
pub async fn diffutils_bad_usage(sh: &dyn Context, cmd: &str, err: Error) -> i32 {
    complain(sh, &usage_text(cmd, &err, &format!("{cmd}: "))).await;
    2
}

/// The message for `err`, then the hint after `hint_prefix` where GNU adds it.
fn usage_text(cmd: &str, err: &Error, hint_prefix: &str) -> String {
    match wording(cmd, err) {
        (msg, true) => format!("{msg}\n{hint_prefix}Try '{cmd} --help' for more information."),
        (msg, false) => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_error(words: &[&str], takes_value: &[char]) -> Error {
        let argv: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let mut p = parser(&argv);
        loop {
            match p.next() {
                Ok(Some(lexopt::Arg::Short(c))) if takes_value.contains(&c) => {
                    if let Err(e) = p.value() {
                        return e;
                    }
                }
                Ok(Some(lexopt::Arg::Long("lines"))) => {
                    if let Err(e) = p.value() {
                        return e;
                    }
                }
                Ok(Some(lexopt::Arg::Long("verbose") | lexopt::Arg::Value(_))) => {}
                Ok(Some(other)) => return other.unexpected(),
                Ok(None) => panic!("no error in {words:?}"),
                Err(e) => return e,
            }
        }
    }

    #[test]
    fn errors_are_worded_as_getopt_words_them() {
        let said = |words: &[&str]| wording("cmd", &first_error(words, &['n'])).0;
        assert_eq!(said(&["cmd", "-x"]), "cmd: invalid option -- 'x'");
        assert_eq!(
            said(&["cmd", "--nope"]),
            "cmd: unrecognized option '--nope'"
        );
        assert_eq!(
            said(&["cmd", "-n"]),
            "cmd: option requires an argument -- 'n'"
        );
        assert_eq!(
            said(&["cmd", "--lines"]),
            "cmd: option '--lines' requires an argument"
        );
        assert_eq!(
            said(&["cmd", "--verbose=yes"]),
            "cmd: option '--verbose' doesn't allow an argument"
        );
    }

    #[test]
    fn historical_number_options_come_before_getopt() {
        let argv: Vec<String> = ["fmt", "-72", "-w", "5", "-x"].map(String::from).to_vec();
        let mut p = parser(&argv);
        assert_eq!(dashed_number(&mut p), Some("72".to_string()));
        assert_eq!(dashed_number(&mut p), None);
        assert_eq!(p.next().unwrap(), Some(lexopt::Arg::Short('w')));
        assert_eq!(value(&mut p).unwrap(), "5");
        assert_eq!(dashed_number(&mut p), None);
        assert_eq!(p.next().unwrap(), Some(lexopt::Arg::Short('x')));
    }

    #[test]
    fn an_equals_sign_is_a_short_options_value() {
        let argv: Vec<String> = ["cut", "-d=", "-f2"].map(String::from).to_vec();
        let mut p = parser(&argv);
        assert_eq!(p.next().unwrap(), Some(lexopt::Arg::Short('d')));
        assert_eq!(value(&mut p).unwrap(), "=");
        assert_eq!(p.next().unwrap(), Some(lexopt::Arg::Short('f')));
        assert_eq!(value(&mut p).unwrap(), "2");
    }

    #[test]
    fn flags_are_the_utilitys_own_letters() {
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let long = [("force", 'f'), ("color=", '1')];
        let split = flags(
            &argv(&["rm", "-rv", "--force", "a", "--", "-b"]),
            "rvf",
            &long,
        );
        assert_eq!(split.unwrap(), ("rvf".into(), argv(&["a", "-b"])));
        assert!(flags(&argv(&["ls", "--color=never", "--color"]), "", &long).is_ok());
        let said =
            |words: &[&str]| wording("cmd", &flags(&argv(words), "rvf", &long).unwrap_err()).0;
        assert_eq!(said(&["rm", "-x"]), "cmd: invalid option -- 'x'");
        assert_eq!(
            said(&["rm", "--parents"]),
            "cmd: unrecognized option '--parents'"
        );
        assert_eq!(
            said(&["rm", "--force=x"]),
            "cmd: option '--force' doesn't allow an argument"
        );
    }

    #[test]
    fn own_messages_say_whether_help_is_hinted() {
        assert_eq!(
            wording("cut", &usage("you must specify a list")),
            ("cut: you must specify a list".to_string(), true)
        );
        assert_eq!(
            wording("head", &plain("invalid number of lines: 'x'")),
            ("head: invalid number of lines: 'x'".to_string(), false)
        );
    }
}
