//! jq 1.7.1's words: its usage text, its compile errors (`jq: error: f/0 is not defined at
//! <top-level>, line 1:` with the line), and its runtime errors, which jaq words otherwise
//! (`cannot index 1 with "a"` is jq's `Cannot index number with string "a"`).

use jaq_core::compile::Undefined;
use jaq_core::load;
use jaq_json::Val;

use super::print;

/// jq's usage text: the short form after a missing filter, the whole with `--help`.
pub fn usage(short: bool) -> String {
    let mut text = String::from(
        "jq - commandline JSON processor [version 1.7.1]\n\n\
         Usage:\tjq [options] <jq filter> [file...]\n\
         \tjq [options] --args <jq filter> [strings...]\n\
         \tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]\n\n\
         jq is a tool for processing JSON inputs, applying the given filter to\n\
         its JSON text inputs and producing the filter's results as JSON on\n\
         standard output.\n\n\
         The simplest filter is ., which copies jq's input to its output\n\
         unmodified except for formatting. For more advanced filters see\n\
         the jq(1) manpage (\"man jq\") and/or https://jqlang.github.io/jq/.\n\n\
         Example:\n\n\t$ echo '{\"foo\": 0}' | jq .\n\
         \t{\n\t  \"foo\": 0\n\t}\n\n",
    );
    if short {
        text.push_str("For listing the command options, use jq --help.\n");
        return text;
    }
    text.push_str(
        "Command options:
  -n, --null-input          use `null` as the single input value;
  -R, --raw-input           read each line as string instead of JSON;
  -s, --slurp               read all inputs into an array and use it as
                            the single input value;
  -c, --compact-output      compact instead of pretty-printed output;
  -r, --raw-output          output strings without escapes and quotes;
      --raw-output0         implies -r and output NUL after each output;
  -j, --join-output         implies -r and output without newline after
                            each output;
  -a, --ascii-output        output strings by only ASCII characters
                            using escape sequences;
  -S, --sort-keys           sort keys of each object on output;
  -C, --color-output        colorize JSON output;
  -M, --monochrome-output   disable colored output;
      --tab                 use tabs for indentation;
      --indent n            use n spaces for indentation (max 7 spaces);
      --unbuffered          flush output stream after each output;
      --stream              parse the input value in streaming fashion;
      --stream-errors       implies --stream and report parse error as
                            an array;
      --seq                 parse input/output as application/json-seq;
  -f, --from-file file      load filter from the file;
  -L directory              search modules from the directory;
      --arg name value      set $name to the string value;
      --argjson name value  set $name to the JSON value;
      --slurpfile name file set $name to an array of JSON values read
                            from the file;
      --rawfile name file   set $name to string contents of file;
      --args                consume remaining arguments as positional
                            string values;
      --jsonargs            consume remaining arguments as positional
                            JSON values;
  -e, --exit-status         set exit status code based on the output;
  -V, --version             show the version;
  --build-configuration     show jq's build configuration;
  -h, --help                show the help;
  --                        terminates argument processing;

Named arguments are also available as $ARGS.named[], while
positional arguments are available as $ARGS.positional[].
",
    );
    text
}

/// jq's location of an error at byte `at` of the program: ` at <top-level>, line N:`, the
/// line, and as many blanks as the error's column.
fn located(code: &str, at: usize, what: &str) -> String {
    let at = at.min(code.len());
    let start = code[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = code[at..].find('\n').map_or(code.len(), |i| at + i);
    let line = code[..at].matches('\n').count() + 1;
    format!(
        "jq: error: {what} at <top-level>, line {line}:\n{}{}\n",
        &code[start..end],
        " ".repeat(at - start)
    )
}

/// Where slice `s` starts in `code`, if it is part of it.
fn offset_in(code: &str, s: &str) -> Option<usize> {
    let base = code.as_ptr() as usize;
    let p = s.as_ptr() as usize;
    (p >= base && p <= base + code.len()).then(|| p - base)
}

fn count(n: usize) -> String {
    if n == 1 {
        "jq: 1 compile error\n".into()
    } else {
        format!("jq: {n} compile errors\n")
    }
}

/// A filter that does not parse. jq's (bison's) words are matched where the text ends
/// too early (`unexpected end of file`, at the last token); elsewhere the unexpected
/// token is named as jq names it.
pub fn syntax_errors<P>(code: &str, errors: &load::Errors<&str, P>) -> String {
    let mut spots: Vec<usize> = Vec::new();
    for (_, e) in errors {
        match e {
            load::Error::Lex(v) => spots.extend(v.iter().map(|(expect, found)| match expect {
                load::lex::Expect::Delim(_) => code.len(),
                _ => offset_in(code, found).unwrap_or(code.len()),
            })),
            load::Error::Parse(v) => spots.extend(
                v.iter()
                    .map(|(_, found)| offset_in(code, found).unwrap_or(code.len())),
            ),
            load::Error::Io(_) => spots.push(code.len()),
        }
    }
    // jq stops at its first syntax error.
    let at = spots.into_iter().min().unwrap_or(code.len());
    let rest = code[at.min(code.len())..].trim_start();
    let text = if rest.is_empty() {
        located(
            code,
            last_token(code),
            "syntax error, unexpected end of file (Unix shell quoting issues?)",
        )
    } else {
        let token = describe_token(rest);
        located(
            code,
            code.len() - rest.len(),
            &format!("syntax error, unexpected {token} (Unix shell quoting issues?)"),
        )
    };
    text + &count(1)
}

/// Where the program's last token starts: bison's location when the text ends too early.
fn last_token(code: &str) -> usize {
    let trimmed = code.trim_end();
    let Some(last) = trimmed.chars().next_back() else {
        return 0;
    };
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if word(last) {
        let start = trimmed.rfind(|c: char| !word(c)).map_or(0, |i| i + 1);
        let before = trimmed[..start].chars().next_back();
        return if matches!(before, Some('.' | '$' | '@')) {
            start - 1
        } else {
            start
        };
    }
    trimmed.len() - last.len_utf8()
}

/// Bison's name for the token that starts `rest`.
fn describe_token(rest: &str) -> String {
    let c = rest.chars().next().unwrap_or(' ');
    if c.is_ascii_alphabetic() || c == '_' {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let keyword = [
            "def", "if", "then", "elif", "else", "end", "as", "reduce", "foreach", "try", "catch",
            "label", "import", "include", "and", "or", "not", "__loc__",
        ];
        if keyword.contains(&word.as_str()) {
            return word;
        }
        return "IDENT".into();
    }
    if c.is_ascii_digit() {
        return "LITERAL".into();
    }
    match c {
        '$' => "'$'".into(),
        '"' => "QQSTRING_START".into(),
        _ => format!("'{c}'"),
    }
}

/// Names the program uses and nothing defines: `f/1 is not defined`, `$x is not defined`.
pub fn undefined<P>(code: &str, errors: &jaq_core::compile::Errors<&str, P>) -> String {
    let mut found: Vec<(usize, String)> = Vec::new();
    for (_, list) in errors {
        for (name, what) in list {
            let at = offset_in(code, name).unwrap_or(0);
            let (at, shown) = match what {
                Undefined::Var if name.starts_with('$') => (at, name.to_string()),
                Undefined::Var => (at.saturating_sub(1), format!("${name}")),
                Undefined::Filter(arity) => (at, format!("{name}/{arity}")),
                // jq points at the `break`.
                Undefined::Label => (
                    code[..at].rfind("break").unwrap_or(at),
                    format!("$*label-{}", name.trim_start_matches('$')),
                ),
                _ => (at, name.to_string()),
            };
            found.push((at, shown));
        }
    }
    found.sort();
    let mut text: String = found
        .iter()
        .map(|(at, name)| located(code, *at, &format!("{name} is not defined")))
        .collect();
    text.push_str(&count(found.len().max(1)));
    text
}

/// An error no `try` caught, as jq reports it: `jq: error (at POS): MESSAGE`, or with
/// ` (not a string)` and the value when the error is not a string.
pub fn uncaught(e: &jaq_core::Exn<Val>, position: &str) -> String {
    let value = match e.clone().get_err() {
        Ok(err) => err.into_val(),
        Err(_) => Val::from("error".to_string()),
    };
    match &value {
        Val::TStr(s) | Val::BStr(s) => {
            let text = String::from_utf8_lossy(s);
            format!("jq: error (at {position}): {}\n", jq_words(&text))
        }
        v => {
            let mut out = Vec::new();
            print::dump(&mut out, &print::Layout::compact(), v);
            format!(
                "jq: error (at {position}) (not a string): {}\n",
                String::from_utf8_lossy(&out)
            )
        }
    }
}

/// jq's kind name of a value.
fn kind(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

/// `kind (value)`, the value cut to jq's 11 characters and `...`.
fn described(v: &Val) -> String {
    let mut out = Vec::new();
    print::dump(&mut out, &print::Layout::compact(), v);
    let text = String::from_utf8_lossy(&out);
    let shown = if text.len() > 14 {
        let mut cut = 11;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &text[..cut])
    } else {
        text.into_owned()
    };
    format!("{} ({shown})", kind(v))
}

/// The first JSON value of `text` and what follows it.
fn value_then(text: &str) -> Option<(Val, &str)> {
    let (start, end) = super::input::next_span(text.as_bytes(), 0)?;
    let v = super::input::parse_json(&text.as_bytes()[start..end])?;
    Some((v, &text[end..]))
}

/// jaq's message for a type, index or arithmetic error in jq's words; anything else as is.
pub fn jq_words(text: &str) -> String {
    let parse_two = |rest: &str, sep: &str| -> Option<(Val, Val)> {
        let (l, after) = value_then(rest)?;
        let r = after.strip_prefix(sep)?;
        let r = super::input::parse_json(r.as_bytes())?;
        Some((l, r))
    };
    if let Some(rest) = text.strip_prefix("cannot index ")
        && let Some((l, r)) = parse_two(rest, " with ")
    {
        let key = match &r {
            Val::TStr(s) | Val::BStr(s) => {
                let mut out = Vec::new();
                print::string(&mut out, s, false);
                format!("string {}", String::from_utf8_lossy(&out))
            }
            v => kind(v).to_string(),
        };
        return format!("Cannot index {} with {key}", kind(&l));
    }
    if let Some(rest) = text.strip_prefix("cannot use ")
        && let Some((v, after)) = value_then(rest)
        && after.starts_with(" as iterable")
    {
        return format!("Cannot iterate over {}", described(&v));
    }
    if let Some(head) = text.strip_suffix(" has no length")
        && let Some(v) = super::input::parse_json(head.as_bytes())
    {
        return format!("{} has no length", described(&v));
    }
    if let Some(rest) = text.strip_prefix("cannot calculate ") {
        for (op, verb) in [
            (" + ", "added"),
            (" - ", "subtracted"),
            (" * ", "multiplied"),
            (" / ", "divided"),
            (" % ", "divided"),
        ] {
            if let Some((l, r)) = parse_two(rest, op) {
                let zero = matches!(&r, Val::Num(n) if print::number(n) == "0");
                let why = match (zero, op) {
                    (true, " / ") => " because the divisor is zero",
                    (true, " % ") => " (remainder) because the divisor is zero",
                    _ => "",
                };
                return format!(
                    "{} and {} cannot be {verb}{why}",
                    described(&l),
                    described(&r)
                );
            }
        }
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaq_errors_in_jq_words() {
        assert_eq!(
            jq_words(r#"cannot index 1 with "a""#),
            r#"Cannot index number with string "a""#
        );
        assert_eq!(
            jq_words("cannot index {} with 0"),
            "Cannot index object with number"
        );
        assert_eq!(
            jq_words("cannot use null as iterable"),
            "Cannot iterate over null (null)"
        );
        assert_eq!(
            jq_words(r#"cannot calculate 1 + "a""#),
            r#"number (1) and string ("a") cannot be added"#
        );
        assert_eq!(
            jq_words(r#"cannot use {"name":"ann","age":31} as iterable"#),
            r#"Cannot iterate over object ({"name":"an...)"#
        );
        assert_eq!(
            jq_words("cannot use 1 as iterable (array or object)"),
            "Cannot iterate over number (1)"
        );
        assert_eq!(
            jq_words("true has no length"),
            "boolean (true) has no length"
        );
        assert_eq!(jq_words("something else"), "something else");
    }

    #[test]
    fn locations_as_jq_gives_them() {
        assert_eq!(
            located("$x + bar(1)", 5, "bar/1 is not defined"),
            "jq: error: bar/1 is not defined at <top-level>, line 1:\n$x + bar(1)     \n"
        );
        assert_eq!(last_token(".users["), 6);
        assert_eq!(last_token("1 + .abc "), 4);
    }
}
