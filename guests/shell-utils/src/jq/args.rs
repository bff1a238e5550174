//! jq 1.7.1's command line, read as its `main.c` reads it: options anywhere (stacked short
//! ones too), the first operand the filter, the rest files or, after `--args` and
//! `--jsonargs`, `$ARGS.positional`; `--arg NAME` keeps its first value.

use jaq_json::Val;

/// What the command line asks for.
pub struct Args {
    pub filter: Option<String>,
    pub files: Vec<String>,
    pub from_file: bool,
    pub raw: bool,
    /// `-j`: no newline after each result.
    pub no_newline: bool,
    /// `--raw-output0`: a NUL after each result.
    pub nul: bool,
    pub ascii: bool,
    pub color: bool,
    pub no_color: bool,
    pub sort_keys: bool,
    pub null_input: bool,
    pub slurp: bool,
    pub raw_input: bool,
    pub exit_status: bool,
    pub seq: bool,
    pub stream: bool,
    pub stream_errors: bool,
    /// `None`: compact; otherwise the indent unit.
    pub indent: Option<String>,
    /// `--arg`, `--argjson`, `--rawfile`, `--slurpfile`, in order, the first of a name kept.
    pub named: Vec<(String, Named)>,
    pub positional: Vec<Val>,
    pub version: bool,
    pub help: bool,
    pub build_configuration: bool,
    /// Yq's own options, when run as `yq` or `tomlq`.
    pub yaml_output: bool,
    pub toml_output: bool,
    pub in_place: bool,
}

/// A named argument's value, read when the command line has been read.
pub enum Named {
    Value(Val),
    RawFile(String),
    SlurpFile(String),
}

/// Why the command line is refused: jq's message, then its advice; status 2.
pub struct Refused(pub String);

/// jq's `isoptish`: `-` followed by a letter, or `--`.
fn optish(a: &str) -> bool {
    let b = a.as_bytes();
    b.len() > 1 && b[0] == b'-' && (b[1] == b'-' || b[1].is_ascii_alphabetic())
}

/// Reads `argv[1..]`; `wrapper` admits yq's options.
pub fn parse(argv: &[String], wrapper: bool) -> Result<Args, Refused> {
    let mut a = Args {
        filter: None,
        files: Vec::new(),
        from_file: false,
        raw: false,
        no_newline: false,
        nul: false,
        ascii: false,
        color: false,
        no_color: false,
        sort_keys: false,
        null_input: false,
        slurp: false,
        raw_input: false,
        exit_status: false,
        seq: false,
        stream: false,
        stream_errors: false,
        indent: Some("  ".into()),
        named: Vec::new(),
        positional: Vec::new(),
        version: false,
        help: false,
        build_configuration: false,
        yaml_output: false,
        toml_output: false,
        in_place: false,
    };
    // 0: files; 1: strings; 2: JSON texts.
    let mut positional_kind = 0;
    let mut done = false;
    let mut i = 1;
    let refuse = |m: String| Err(Refused(m));
    while i < argv.len() {
        let arg = argv[i].as_str();
        i += 1;
        if done || !optish(arg) {
            if a.filter.is_none() {
                a.filter = Some(arg.to_string());
            } else if positional_kind == 1 {
                a.positional.push(Val::from(arg.to_string()));
            } else if positional_kind == 2 {
                match super::input::parse_json(arg.as_bytes()) {
                    Some(v) => a.positional.push(v),
                    None => return refuse("jq: invalid JSON text passed to --jsonargs".into()),
                }
            } else {
                a.files.push(arg.to_string());
            }
            continue;
        }
        if arg == "--" {
            done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            // Takes `n` more arguments, or says how many it wanted.
            let mut take = |n: usize, usage: &str| -> Result<Vec<String>, Refused> {
                if i + n > argv.len() {
                    return Err(Refused(format!("jq: --{long} takes {usage}")));
                }
                let v = argv[i..i + n].to_vec();
                i += n;
                Ok(v)
            };
            match long {
                "slurp" => a.slurp = true,
                "raw-output" => a.raw = true,
                "raw-output0" => (a.raw, a.no_newline, a.nul) = (true, true, true),
                "join-output" => (a.raw, a.no_newline) = (true, true),
                "compact-output" => a.indent = None,
                "color-output" => a.color = true,
                "monochrome-output" => a.no_color = true,
                "ascii-output" => a.ascii = true,
                "unbuffered" | "binary" => {}
                "sort-keys" => a.sort_keys = true,
                "raw-input" => a.raw_input = true,
                "null-input" => a.null_input = true,
                "from-file" => a.from_file = true,
                "tab" => a.indent = Some("\t".into()),
                "indent" => {
                    let n = take(1, "one parameter")?;
                    a.indent = indent(atoi(&n[0]))?;
                }
                "seq" => a.seq = true,
                "stream" => a.stream = true,
                "stream-errors" => (a.stream, a.stream_errors) = (true, true),
                "exit-status" => a.exit_status = true,
                "args" => positional_kind = 1,
                "jsonargs" => positional_kind = 2,
                "arg" | "argjson" | "rawfile" | "slurpfile" => {
                    let usage = match long {
                        "arg" => "two parameters (e.g. --arg varname value)",
                        "argjson" => "two parameters (e.g. --argjson varname text)",
                        "rawfile" => "two parameters (e.g. --rawfile varname filename)",
                        _ => "two parameters (e.g. --slurpfile varname filename)",
                    };
                    let v = take(2, usage)?;
                    let [name, value] = [v[0].clone(), v[1].clone()];
                    if a.named.iter().any(|(n, _)| *n == name) {
                        continue;
                    }
                    let named = match long {
                        "arg" => Named::Value(Val::from(value)),
                        "argjson" => match super::input::parse_json(value.as_bytes()) {
                            Some(v) => Named::Value(v),
                            None => {
                                return refuse("jq: invalid JSON text passed to --argjson".into());
                            }
                        },
                        "rawfile" => Named::RawFile(value),
                        _ => Named::SlurpFile(value),
                    };
                    a.named.push((name, named));
                }
                "help" => a.help = true,
                "version" => a.version = true,
                "build-configuration" => a.build_configuration = true,
                "debug-dump-disasm" | "debug-trace" | "debug-trace=all" => {}
                "yaml-output" | "yaml-roundtrip" if wrapper => a.yaml_output = true,
                "toml-output" if wrapper => a.toml_output = true,
                "in-place" if wrapper => a.in_place = true,
                "indentless-lists" | "indentless" if wrapper => {}
                "width" if wrapper => i += 1,
                _ => return refuse(format!("jq: Unknown option {arg}")),
            }
            if a.help || a.version || a.build_configuration {
                return Ok(a);
            }
            continue;
        }
        if let Some(dir) = arg.strip_prefix("-L") {
            // Modules are not supported; the path is taken and not searched.
            if dir.is_empty() {
                if i >= argv.len() {
                    return refuse(
                        "-L takes a parameter: (e.g. -L /search/path or -L/search/path)".into(),
                    );
                }
                i += 1;
            }
            continue;
        }
        // Short options, stacked. As jq, each option letter counts once however often it
        // is there, and a word with any other letter (or a repeated one) is refused whole.
        let letters = &arg[1..];
        let mut known = 0;
        let short: &[char] = if wrapper {
            &[
                's', 'r', 'j', 'c', 'C', 'M', 'a', 'S', 'R', 'n', 'f', 'b', 'e', 'h', 'V', 'y',
                'Y', 't', 'i', 'w',
            ]
        } else {
            &[
                's', 'r', 'j', 'c', 'C', 'M', 'a', 'S', 'R', 'n', 'f', 'b', 'e', 'h', 'V',
            ]
        };
        for &c in short {
            if !letters.contains(c) {
                continue;
            }
            known += 1;
            match c {
                's' => a.slurp = true,
                'r' => a.raw = true,
                'j' => (a.raw, a.no_newline) = (true, true),
                'c' => a.indent = None,
                'C' => a.color = true,
                'M' => a.no_color = true,
                'a' => a.ascii = true,
                'S' => a.sort_keys = true,
                'R' => a.raw_input = true,
                'n' => a.null_input = true,
                'f' => a.from_file = true,
                'e' => a.exit_status = true,
                'h' => a.help = true,
                'V' => a.version = true,
                'y' | 'Y' => a.yaml_output = true,
                't' => a.toml_output = true,
                'i' => a.in_place = true,
                'w' => i += 1,
                _ => {}
            }
            if a.help || a.version {
                return Ok(a);
            }
        }
        if known != letters.chars().count() {
            return refuse(format!("jq: Unknown option {arg}"));
        }
    }
    Ok(a)
}

/// `--indent N`: -1 is a tab, 0 compact, up to 7 spaces.
fn indent(n: i64) -> Result<Option<String>, Refused> {
    match n {
        -1 => Ok(Some("\t".into())),
        0 => Ok(None),
        1..=7 => Ok(Some(" ".repeat(n as usize))),
        _ => Err(Refused(
            "jq: --indent takes a number between -1 and 7".into(),
        )),
    }
}

/// C's `atoi`: blanks, a sign, digits; 0 when there are none.
fn atoi(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let digits: String = s
        .chars()
        .take_while(char::is_ascii_digit)
        .take(18)
        .collect();
    let n: i64 = digits.parse().unwrap_or(0);
    if neg { -n } else { n }
}
