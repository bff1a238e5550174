//! rg's command line, read as ripgrep 15 reads it: the first operand is the pattern unless
//! `-e` or `-f` gave one, the rest are paths; `-uu` and the like repeat.

use lexopt::prelude::*;

/// What a run prints.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Mode {
    /// Matching lines (or parts, `-o`), with context.
    Standard,
    /// `-l`.
    FilesWithMatches,
    /// `--files-without-match`.
    FilesWithoutMatch,
    /// `-c`.
    Count,
    /// `--count-matches`.
    CountMatches,
    /// `--json`.
    Json,
    /// `--files`: the files a search would look at.
    Files,
    /// `--type-list`.
    TypeList,
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Case {
    Sensitive,
    Insensitive,
    Smart,
}

/// A change to the file types, in command-line order (`-t`, `-T`, `--type-add`, `--type-clear`).
#[derive(Debug)]
pub enum TypeChange {
    Select(String),
    Negate(String),
    Add(String),
    Clear(String),
}

#[derive(Debug)]
pub struct Options {
    pub patterns: Vec<String>,
    /// `-z`: search inside gzip, xz, bzip2 and zstd files.
    pub search_zip: bool,
    /// Pattern files (`-f`), read once the streams are at hand.
    pub pattern_files: Vec<String>,
    pub paths: Vec<String>,
    pub mode: Mode,
    pub fixed: bool,
    pub words: bool,
    pub lines: bool,
    pub case: Case,
    pub invert: bool,
    pub perl: bool,
    pub multiline: bool,
    pub multiline_dotall: bool,
    pub line_number: Option<bool>,
    pub only: bool,
    pub quiet: bool,
    pub before: usize,
    pub after: usize,
    pub passthru: bool,
    pub heading: Option<bool>,
    pub with_filename: Option<bool>,
    pub color: bool,
    pub null: bool,
    pub null_data: bool,
    pub globs: Vec<String>,
    pub iglobs: Vec<String>,
    pub glob_case_insensitive: bool,
    pub types: Vec<TypeChange>,
    pub hidden: bool,
    pub no_ignore: bool,
    pub no_ignore_vcs: bool,
    pub no_ignore_dot: bool,
    pub no_ignore_parent: bool,
    pub no_require_git: bool,
    pub ignore_files: Vec<String>,
    /// `-a`: binary files are searched as text.
    pub text: bool,
    /// `--binary`: binary files found by the walk are searched, their matches not printed.
    pub binary: bool,
    pub max_depth: Option<usize>,
    pub max_count: Option<u64>,
    pub max_filesize: Option<u64>,
    pub max_columns: Option<u64>,
    pub max_columns_preview: bool,
    pub follow: bool,
    pub replace: Option<String>,
    pub byte_offset: bool,
    pub column: Option<bool>,
    pub vimgrep: bool,
    pub trim: bool,
    pub include_zero: bool,
    pub no_messages: bool,
    pub context_separator: Option<String>,
    pub field_match_separator: String,
    pub field_context_separator: String,
    /// `--sort`/`--sortr`: the key and whether it is reversed. Paths are always walked in
    /// name order; other keys sort what the walk found.
    pub sort: Option<(SortKey, bool)>,
    /// `--stats`: totals after the results.
    pub stats: bool,
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum SortKey {
    Path,
    Modified,
    Accessed,
    Created,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            patterns: Vec::new(),
            search_zip: false,
            pattern_files: Vec::new(),
            paths: Vec::new(),
            mode: Mode::Standard,
            fixed: false,
            words: false,
            lines: false,
            case: Case::Sensitive,
            invert: false,
            perl: false,
            multiline: false,
            multiline_dotall: false,
            line_number: None,
            only: false,
            quiet: false,
            before: 0,
            after: 0,
            passthru: false,
            heading: None,
            with_filename: None,
            color: false,
            null: false,
            null_data: false,
            globs: Vec::new(),
            iglobs: Vec::new(),
            glob_case_insensitive: false,
            types: Vec::new(),
            hidden: false,
            no_ignore: false,
            no_ignore_vcs: false,
            no_ignore_dot: false,
            no_ignore_parent: false,
            no_require_git: false,
            ignore_files: Vec::new(),
            text: false,
            binary: false,
            max_depth: None,
            max_count: None,
            max_filesize: None,
            max_columns: None,
            max_columns_preview: false,
            follow: false,
            replace: None,
            byte_offset: false,
            column: None,
            vimgrep: false,
            trim: false,
            include_zero: false,
            no_messages: false,
            context_separator: Some("--".into()),
            field_match_separator: ":".into(),
            field_context_separator: "-".into(),
            sort: None,
            stats: false,
        }
    }
}

/// What the command line asked for: a run, or `--version`.
pub enum Parsed {
    Run(Box<Options>),
    Version,
}

/// A size with an optional K, M or G suffix (`--max-filesize 10M`).
fn size(text: &str) -> Option<u64> {
    let (digits, shift) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 10),
        b'M' | b'm' => (&text[..text.len() - 1], 20),
        b'G' | b'g' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

fn number<T>(flag: &str, text: &str) -> Result<T, String>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    text.parse()
        .map_err(|e| format!("error parsing flag {flag}: value is not a valid number: {e}"))
}

/// Reads the command line; an error is the message rg prints (without `rg: `).
pub fn parse(argv: &[String]) -> Result<Parsed, String> {
    let mut o = Options::default();
    let mut p = shell_base::args::parser(argv);
    let mut operands: Vec<String> = Vec::new();
    let mut unrestricted = 0;
    while let Some(arg) = p.next().map_err(|e| flag_error(&e))? {
        let flag = shell_base::args::as_typed(&arg);
        let value = |p: &mut lexopt::Parser| {
            p.value()
                .map(|v| v.to_string_lossy().into_owned())
                .map_err(|e| format!("missing value for flag {flag}: {e}"))
        };
        match arg {
            Value(v) => operands.push(v.to_string_lossy().into_owned()),
            Short('e') | Long("regexp") => o.patterns.push(value(&mut p)?),
            Short('f') | Long("file") => o.pattern_files.push(value(&mut p)?),
            Short('F') | Long("fixed-strings") => o.fixed = true,
            Long("no-fixed-strings") => o.fixed = false,
            Short('w') | Long("word-regexp") => {
                o.words = true;
                o.lines = false;
            }
            Short('x') | Long("line-regexp") => {
                o.lines = true;
                o.words = false;
            }
            Short('i') | Long("ignore-case") => o.case = Case::Insensitive,
            Short('s') | Long("case-sensitive") => o.case = Case::Sensitive,
            Short('S') | Long("smart-case") => o.case = Case::Smart,
            Short('v') | Long("invert-match") => o.invert = true,
            Long("no-invert-match") => o.invert = false,
            Short('P') | Long("pcre2") => o.perl = true,
            Long("no-pcre2") => o.perl = false,
            Long("engine") => {
                let v = value(&mut p)?;
                match v.as_str() {
                    "default" | "auto" => o.perl = false,
                    "pcre2" => o.perl = true,
                    _ => {
                        return Err(format!(
                            "error parsing flag --engine: unrecognized regex engine '{v}'"
                        ));
                    }
                }
            }
            Short('U') | Long("multiline") => o.multiline = true,
            Long("no-multiline") => o.multiline = false,
            Long("multiline-dotall") => o.multiline_dotall = true,
            Long("no-multiline-dotall") => o.multiline_dotall = false,
            Short('n') | Long("line-number") => o.line_number = Some(true),
            Short('N') | Long("no-line-number") => o.line_number = Some(false),
            Short('o') | Long("only-matching") => o.only = true,
            Short('q') | Long("quiet") => o.quiet = true,
            Short('l') | Long("files-with-matches") => o.mode = Mode::FilesWithMatches,
            Long("files-without-match") => o.mode = Mode::FilesWithoutMatch,
            Short('c') | Long("count") => o.mode = Mode::Count,
            Long("count-matches") => o.mode = Mode::CountMatches,
            Long("json") => o.mode = Mode::Json,
            Long("no-json") if o.mode == Mode::Json => o.mode = Mode::Standard,
            Long("no-json") => {}
            Long("files") => o.mode = Mode::Files,
            Long("type-list") => o.mode = Mode::TypeList,
            Short('A') | Long("after-context") => {
                o.after = number(&flag, &value(&mut p)?)?;
                o.passthru = false;
            }
            Short('B') | Long("before-context") => {
                o.before = number(&flag, &value(&mut p)?)?;
                o.passthru = false;
            }
            Short('C') | Long("context") => {
                let n = number(&flag, &value(&mut p)?)?;
                (o.before, o.after) = (n, n);
                o.passthru = false;
            }
            Long("passthru") | Long("passthrough") => o.passthru = true,
            Long("heading") => o.heading = Some(true),
            Long("no-heading") => o.heading = Some(false),
            Short('H') | Long("with-filename") => o.with_filename = Some(true),
            Short('I') | Long("no-filename") => o.with_filename = Some(false),
            Short('p') | Long("pretty") => {
                o.color = true;
                o.heading = Some(true);
                o.line_number = Some(true);
            }
            Long("color") | Long("colour") => {
                let v = value(&mut p)?;
                o.color = match v.as_str() {
                    "never" | "auto" => false,
                    "always" | "ansi" => true,
                    _ => {
                        return Err(format!(
                            "error parsing flag --color: choice '{v}' is unrecognized"
                        ));
                    }
                };
            }
            Short('0') | Long("null") => o.null = true,
            Long("null-data") => o.null_data = true,
            Short('g') | Long("glob") => o.globs.push(value(&mut p)?),
            Long("iglob") => o.iglobs.push(value(&mut p)?),
            Long("glob-case-insensitive") => o.glob_case_insensitive = true,
            Long("no-glob-case-insensitive") => o.glob_case_insensitive = false,
            Short('t') | Long("type") => o.types.push(TypeChange::Select(value(&mut p)?)),
            Short('T') | Long("type-not") => o.types.push(TypeChange::Negate(value(&mut p)?)),
            Long("type-add") => o.types.push(TypeChange::Add(value(&mut p)?)),
            Long("type-clear") => o.types.push(TypeChange::Clear(value(&mut p)?)),
            Short('.') | Long("hidden") => o.hidden = true,
            Long("no-hidden") => o.hidden = false,
            Long("no-ignore") => o.no_ignore = true,
            Long("ignore") => o.no_ignore = false,
            Long("no-ignore-vcs") => o.no_ignore_vcs = true,
            Long("no-ignore-dot") => o.no_ignore_dot = true,
            Long("no-ignore-parent") => o.no_ignore_parent = true,
            Long("no-require-git") => o.no_require_git = true,
            Long("ignore-file") => o.ignore_files.push(value(&mut p)?),
            // What ripgrep reads of the user's git set-up is not the workspace's.
            Long("no-ignore-global") | Long("no-ignore-exclude") | Long("no-ignore-files") => {}
            Short('u') | Long("unrestricted") => unrestricted += 1,
            Short('a') | Long("text") => o.text = true,
            Long("no-text") => o.text = false,
            Long("binary") => o.binary = true,
            Long("no-binary") => o.binary = false,
            Short('d') | Long("max-depth") | Long("maxdepth") => {
                o.max_depth = Some(number(&flag, &value(&mut p)?)?)
            }
            Short('m') | Long("max-count") => o.max_count = Some(number(&flag, &value(&mut p)?)?),
            Long("max-filesize") => {
                let v = value(&mut p)?;
                o.max_filesize = Some(size(&v).ok_or_else(|| {
                    format!("error parsing flag --max-filesize: invalid size: {v}")
                })?);
            }
            Short('M') | Long("max-columns") => {
                let n: u64 = number(&flag, &value(&mut p)?)?;
                o.max_columns = (n > 0).then_some(n);
            }
            Long("max-columns-preview") => o.max_columns_preview = true,
            Long("no-max-columns-preview") => o.max_columns_preview = false,
            Short('L') | Long("follow") => o.follow = true,
            Long("no-follow") => o.follow = false,
            Short('r') | Long("replace") => o.replace = Some(value(&mut p)?),
            Short('b') | Long("byte-offset") => o.byte_offset = true,
            Long("no-byte-offset") => o.byte_offset = false,
            Long("column") => o.column = Some(true),
            Long("no-column") => o.column = Some(false),
            Long("vimgrep") => o.vimgrep = true,
            Long("trim") => o.trim = true,
            Long("no-trim") => o.trim = false,
            Long("include-zero") => o.include_zero = true,
            Long("no-include-zero") => o.include_zero = false,
            Long("no-messages") => o.no_messages = true,
            Long("messages") => o.no_messages = false,
            Long("context-separator") => o.context_separator = Some(value(&mut p)?),
            Long("no-context-separator") => o.context_separator = None,
            Long("field-match-separator") => o.field_match_separator = value(&mut p)?,
            Long("field-context-separator") => o.field_context_separator = value(&mut p)?,
            Long("sort") | Long("sortr") => {
                let reverse = flag == "--sortr";
                let v = value(&mut p)?;
                o.sort = match v.as_str() {
                    "none" => None,
                    "path" => Some((SortKey::Path, reverse)),
                    "modified" => Some((SortKey::Modified, reverse)),
                    "accessed" => Some((SortKey::Accessed, reverse)),
                    "created" => Some((SortKey::Created, reverse)),
                    _ => {
                        return Err(format!(
                            "error parsing flag {flag}: choice '{v}' is unrecognized"
                        ));
                    }
                };
            }
            Short('V') | Long("version") => return Ok(Parsed::Version),
            // Threads, buffering, memory maps and configuration files change nothing here:
            // one thread searches, output is written per file, no configuration is read.
            Short('j') | Long("threads") | Long("dfa-size-limit") | Long("regex-size-limit") => {
                value(&mut p)?;
            }
            Long("no-config")
            | Long("mmap")
            | Long("no-mmap")
            | Long("line-buffered")
            | Long("block-buffered")
            | Long("no-unicode")
            | Long("unicode")
            | Long("crlf")
            | Long("no-crlf")
            | Long("no-ignore-messages")
            | Long("ignore-messages")
            | Long("debug")
            | Long("trace") => {}
            Short('z') | Long("search-zip") => o.search_zip = true,
            Long("no-search-zip") => o.search_zip = false,
            Long("stats") => o.stats = true,
            Long("no-stats") => o.stats = false,
            Short(c) => return Err(format!("unrecognized flag -{c}")),
            Long(l) => return Err(format!("unrecognized flag --{l}")),
        }
    }
    if unrestricted >= 1 {
        o.no_ignore = true;
    }
    if unrestricted >= 2 {
        o.hidden = true;
    }
    if unrestricted >= 3 {
        o.binary = true;
    }
    // `-o --count` counts matches; `-v --count-matches` counts lines.
    match o.mode {
        Mode::CountMatches if o.invert => o.mode = Mode::Count,
        Mode::Count if o.only => o.mode = Mode::CountMatches,
        _ => {}
    }
    let mut operands = operands.into_iter();
    let pattern_given = !o.patterns.is_empty() || !o.pattern_files.is_empty();
    if !pattern_given && !matches!(o.mode, Mode::Files | Mode::TypeList) {
        match operands.next() {
            Some(pattern) => o.patterns.push(pattern),
            None => {
                return Err("ripgrep requires at least one pattern to execute a search".into());
            }
        }
    }
    o.paths = operands.collect();
    Ok(Parsed::Run(Box::new(o)))
}

fn flag_error(e: &lexopt::Error) -> String {
    match e {
        lexopt::Error::MissingValue { option: Some(o) } => format!("missing value for flag {o}"),
        lexopt::Error::UnexpectedValue { option, .. } => {
            format!("unexpected argument for option '{option}'")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Options {
        let argv: Vec<String> = std::iter::once("rg")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        match parse(&argv) {
            Ok(Parsed::Run(o)) => *o,
            Ok(Parsed::Version) => panic!("version"),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn the_first_operand_is_the_pattern_unless_e_gave_one() {
        let o = run(&["foo", "a", "b"]);
        assert_eq!(o.patterns, ["foo"]);
        assert_eq!(o.paths, ["a", "b"]);
        let o = run(&["-e", "foo", "a"]);
        assert_eq!(o.patterns, ["foo"]);
        assert_eq!(o.paths, ["a"]);
    }

    #[test]
    fn unrestricted_repeats() {
        let o = run(&["-uu", "x"]);
        assert!(o.no_ignore && o.hidden && !o.text);
        let o = run(&["-uuu", "x"]);
        assert!(o.binary && !o.text);
    }

    #[test]
    fn counts_follow_only_and_invert() {
        assert_eq!(run(&["-co", "x"]).mode, Mode::CountMatches);
        assert_eq!(run(&["-v", "--count-matches", "x"]).mode, Mode::Count);
    }

    #[test]
    fn sizes_and_errors() {
        assert_eq!(size("10K"), Some(10 << 10));
        assert_eq!(size("3"), Some(3));
        assert_eq!(size("x"), None);
        let argv: Vec<String> = ["rg", "-A", "x", "p"].map(String::from).to_vec();
        assert_eq!(
            parse(&argv).err().unwrap(),
            "error parsing flag -A: value is not a valid number: invalid digit found in string"
        );
        let argv: Vec<String> = ["rg"].map(String::from).to_vec();
        assert!(parse(&argv).is_err());
    }
}
