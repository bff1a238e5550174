//! `fd`: find entries by name, as fd 10 does when its output is not a terminal: a regex (smart
//! case) or `-g` glob matched against each name (or the whole path with `-p`), hidden and
//! ignored entries (`.gitignore` in a git repository, `.ignore`, `.fdignore`) left out,
//! directories shown with a trailing `/`, and `-x`/`-X` running a command for the results in
//! the shell. It walks with ripgrep's `ignore` crate, on one thread, in name order.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use lexopt::prelude::*;
use shell_base::Context;

use crate::rg::follow::{Entry, Walk};
use crate::rg::walk::Root;
use crate::stream::{Writer, complain};

/// What fd matches a name against.
enum Matcher {
    Regex(regex::bytes::Regex),
    Glob(globset::GlobMatcher),
}

#[derive(Default)]
struct Options {
    pattern: Option<String>,
    paths: Vec<String>,
    glob: bool,
    fixed: bool,
    full_path: bool,
    case: Option<bool>,
    extensions: Vec<String>,
    types: Vec<char>,
    hidden: bool,
    no_ignore: bool,
    no_ignore_vcs: bool,
    no_require_git: bool,
    max_depth: Option<usize>,
    min_depth: Option<usize>,
    excludes: Vec<String>,
    absolute: bool,
    null: bool,
    follow: bool,
    max_results: Option<usize>,
    quiet: bool,
    /// `-x` (per result) or `-X` (one batch): the command line.
    exec: Option<(bool, Vec<String>)>,
}

/// `fd [OPTIONS] [PATTERN] [PATH]...`.
pub async fn fd(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let o = match parse(argv) {
        Ok(o) => o,
        Err(e) => {
            complain(
                sh,
                &format!("error: {e}\n\nFor more information, try '--help'."),
            )
            .await;
            return 2;
        }
    };
    match run(sh, &o).await {
        Ok(status) => status,
        Err(e) => {
            complain(sh, &format!("[fd error]: {e}")).await;
            1
        }
    }
}

fn parse(argv: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut p = shell_base::args::parser(argv);
    let mut operands = Vec::new();
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        let flag = shell_base::args::as_typed(&arg);
        let value = |p: &mut lexopt::Parser| {
            p.value()
                .map(|v| v.to_string_lossy().into_owned())
                .map_err(|_| format!("a value is required for '{flag}' but none was supplied"))
        };
        let number = |text: String| {
            text.parse::<usize>()
                .map_err(|_| format!("invalid value '{text}' for '{flag}'"))
        };
        match arg {
            Value(v) => operands.push(v.to_string_lossy().into_owned()),
            Short('g') | Long("glob") => o.glob = true,
            Long("regex") => o.glob = false,
            Short('F') | Long("fixed-strings") => o.fixed = true,
            Short('p') | Long("full-path") => o.full_path = true,
            Short('s') | Long("case-sensitive") => o.case = Some(true),
            Short('i') | Long("ignore-case") => o.case = Some(false),
            Short('e') | Long("extension") => {
                let ext = value(&mut p)?;
                o.extensions
                    .push(ext.trim_start_matches('.').to_lowercase());
            }
            Short('t') | Long("type") => {
                let kind = value(&mut p)?;
                let c = match kind.as_str() {
                    "f" | "file" => 'f',
                    "d" | "dir" | "directory" => 'd',
                    "l" | "symlink" => 'l',
                    "x" | "executable" => 'x',
                    "e" | "empty" => 'e',
                    "s" | "socket" => 's',
                    "p" | "pipe" => 'p',
                    "b" | "block-device" => 'b',
                    "c" | "char-device" => 'c',
                    _ => {
                        return Err(format!(
                            "invalid value '{kind}' for '--type <filetype>'\n  [possible values: \
                             file, directory, symlink, block-device, char-device, executable, \
                             empty, socket, pipe]"
                        ));
                    }
                };
                o.types.push(c);
            }
            Short('H') | Long("hidden") => o.hidden = true,
            Short('I') | Long("no-ignore") => o.no_ignore = true,
            Long("no-ignore-vcs") => o.no_ignore_vcs = true,
            Long("no-require-git") => o.no_require_git = true,
            Short('u') | Long("unrestricted") => {
                o.hidden = true;
                o.no_ignore = true;
            }
            Short('d') | Long("max-depth") | Long("maxdepth") => {
                o.max_depth = Some(number(value(&mut p)?)?)
            }
            Long("min-depth") => o.min_depth = Some(number(value(&mut p)?)?),
            Long("exact-depth") => {
                let n = number(value(&mut p)?)?;
                (o.min_depth, o.max_depth) = (Some(n), Some(n));
            }
            Short('E') | Long("exclude") => o.excludes.push(value(&mut p)?),
            Short('a') | Long("absolute-path") => o.absolute = true,
            Long("relative-path") => o.absolute = false,
            Short('0') | Long("print0") => o.null = true,
            Short('L') | Long("follow") => o.follow = true,
            Long("max-results") => o.max_results = Some(number(value(&mut p)?)?),
            Short('1') => o.max_results = Some(1),
            Short('q') | Long("quiet") | Long("has-results") => o.quiet = true,
            Short('x') | Long("exec") | Short('X') | Long("exec-batch") => {
                let batch = matches!(arg, Short('X') | Long("exec-batch"));
                let mut command = vec![value(&mut p)?];
                let rest: Vec<String> = p
                    .raw_args()
                    .map_err(|e| e.to_string())?
                    .map(|a| a.to_string_lossy().into_owned())
                    .take_while(|a| a != ";")
                    .collect();
                command.extend(rest);
                o.exec = Some((batch, command));
            }
            // Colours, threads and the like change nothing here: one thread, no terminal.
            Short('c') | Long("color") | Short('j') | Long("threads") => {
                value(&mut p)?;
            }
            Long("strip-cwd-prefix") | Long("show-errors") | Long("one-file-system") => {}
            Short(c) => return Err(format!("unexpected argument '-{c}' found")),
            Long(l) => return Err(format!("unexpected argument '--{l}' found")),
        }
    }
    let mut operands = operands.into_iter();
    o.pattern = operands.next();
    o.paths = operands.collect();
    Ok(o)
}

fn matcher(o: &Options) -> Result<Option<Matcher>, String> {
    let Some(pattern) = o.pattern.as_deref().filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    // Smart case: a pattern with an upper-case letter is matched as written.
    let sensitive = o
        .case
        .unwrap_or_else(|| pattern.chars().any(char::is_uppercase));
    if o.glob {
        let glob = globset::GlobBuilder::new(pattern)
            .case_insensitive(!sensitive)
            .literal_separator(o.full_path)
            .build()
            .map_err(|e| e.to_string())?;
        return Ok(Some(Matcher::Glob(glob.compile_matcher())));
    }
    let text = if o.fixed {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    regex::bytes::RegexBuilder::new(&text)
        .case_insensitive(!sensitive)
        .build()
        .map(|r| Some(Matcher::Regex(r)))
        .map_err(|e| {
            format!(
                "{e}\n\nNote: You can search for literal substrings with '--fixed-strings' or \
                 literal strings with '--exact' options (instead of a regular expression). \
                 Alternatively, you can also use the '--glob' option to match on a glob pattern."
            )
        })
}

/// Whether `entry` is of one of `-t`'s kinds (links followed with `-L`).
fn of_type(types: &[char], entry: &Entry) -> bool {
    if types.is_empty() {
        return true;
    }
    let path = entry.entry.path();
    let link = entry.entry.path_is_symlink() && !entry.is_dir && !entry.is_file;
    types.iter().any(|t| match t {
        'f' => entry.is_file,
        'd' => entry.is_dir,
        'l' => link,
        'x' => {
            entry.is_file && crate::fileinfo::info(path, true).is_ok_and(|i| i.mode & 0o111 != 0)
        }
        'e' if entry.is_dir => std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none()),
        'e' => entry.is_file && std::fs::metadata(path).is_ok_and(|m| m.len() == 0),
        _ => false,
    })
}

async fn run(sh: &mut dyn Context, o: &Options) -> Result<i32, String> {
    let matcher = matcher(o)?;
    let cwd = PathBuf::from(sh.cwd());
    let prefixed = o.exec.is_some() || o.null;
    let mut roots = Vec::new();
    if o.paths.is_empty() {
        roots.push(Root {
            given: prefixed.then(|| ".".to_string()),
            absolute: cwd.clone(),
            sequential: true,
        });
    }
    for path in &o.paths {
        let absolute = sh.path(path);
        if absolute.is_dir() {
            roots.push(Root {
                given: Some(path.clone()),
                absolute,
                sequential: true,
            });
        } else {
            complain(
                sh,
                &format!("[fd error]: Search path '{path}' is not a directory."),
            )
            .await;
        }
    }
    if roots.is_empty() {
        return Err("No valid search paths given.".into());
    }
    let overrides = if o.excludes.is_empty() {
        ignore::overrides::Override::empty()
    } else {
        let mut b = OverrideBuilder::new(&cwd);
        for e in &o.excludes {
            b.add(&format!("!{e}")).map_err(|e| e.to_string())?;
        }
        b.build().map_err(|e| e.to_string())?
    };
    let mut found: Vec<(PathBuf, bool)> = Vec::new();
    'roots: for root in &roots {
        let make = |path: &Path, max_depth: Option<usize>| {
            let mut b = WalkBuilder::new(path);
            b.hidden(!o.hidden)
                .ignore(!o.no_ignore)
                .parents(!o.no_ignore)
                .git_ignore(!o.no_ignore && !o.no_ignore_vcs)
                .git_exclude(!o.no_ignore && !o.no_ignore_vcs)
                .git_global(false)
                .require_git(!o.no_require_git)
                .max_depth(max_depth)
                .overrides(overrides.clone())
                .current_dir(&cwd)
                .sort_by_file_name(|a, b| a.cmp(b));
            if !o.no_ignore {
                b.add_custom_ignore_filename(".fdignore");
            }
            b.build()
        };
        let walk = Walk::new(&root.absolute, o.max_depth, o.follow, Box::new(make));
        for entry in walk.flatten() {
            // The search path itself is never a result.
            if entry.depth == 0 || entry.depth < o.min_depth.unwrap_or(0) {
                continue;
            }
            let name = entry.entry.file_name().as_encoded_bytes();
            let absolute = entry.entry.path();
            let subject = if o.full_path {
                absolute.as_os_str().as_encoded_bytes()
            } else {
                name
            };
            let hit = match &matcher {
                None => true,
                Some(Matcher::Regex(r)) => r.is_match(subject),
                Some(Matcher::Glob(g)) => {
                    g.is_match(Path::new(std::str::from_utf8(subject).unwrap_or_default()))
                }
            };
            if !hit || !of_type(&o.types, &entry) {
                continue;
            }
            if !o.extensions.is_empty() {
                let lower = String::from_utf8_lossy(name).to_lowercase();
                if !o
                    .extensions
                    .iter()
                    .any(|e| lower.ends_with(&format!(".{e}")))
                {
                    continue;
                }
            }
            let is_dir = entry.is_dir;
            let shown = if o.absolute {
                absolute.to_path_buf()
            } else {
                root.shown(absolute)
            };
            found.push((shown, is_dir));
            if o.quiet || o.max_results.is_some_and(|n| found.len() >= n) {
                break 'roots;
            }
        }
    }
    if o.quiet {
        return Ok(if found.is_empty() { 1 } else { 0 });
    }
    let text = |p: &Path| p.to_string_lossy().into_owned();
    match &o.exec {
        Some((false, command)) => {
            let mut status = 0;
            for (path, _) in &found {
                let argv = placeholders(command, std::slice::from_ref(path), &text);
                if sh.run(argv).await != 0 {
                    status = 1;
                }
            }
            Ok(status)
        }
        Some((true, command)) => {
            if found.is_empty() {
                return Ok(0);
            }
            let paths: Vec<PathBuf> = found.into_iter().map(|(p, _)| p).collect();
            let argv = placeholders(command, &paths, &text);
            Ok(if sh.run(argv).await == 0 { 0 } else { 1 })
        }
        None => {
            let mut out = Writer::new(&sh.io().stdout);
            for (path, is_dir) in &found {
                let mut line = path.as_os_str().as_encoded_bytes().to_vec();
                if *is_dir {
                    line.push(b'/');
                }
                line.push(if o.null { b'\0' } else { b'\n' });
                if out.write(&line).await.is_err() {
                    return Ok(0);
                }
            }
            let _ = out.flush().await;
            Ok(0)
        }
    }
}

/// `command` with fd's placeholders (`{}`, `{/}`, `{//}`, `{.}`, `{/.}`) filled in for each of
/// `paths` (an argument with a placeholder is repeated per path); with none, the paths
/// are added at the end.
fn placeholders(
    command: &[String],
    paths: &[PathBuf],
    text: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    const ALL: [&str; 5] = ["{}", "{/}", "{//}", "{.}", "{/.}"];
    let has = |a: &str| ALL.iter().any(|p| a.contains(p));
    let fill = |arg: &str, path: &Path| {
        let base = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parent = match path.parent().map(text) {
            Some(p) if !p.is_empty() => p,
            _ => ".".into(),
        };
        let stem = |p: &str| match p.rfind('.') {
            Some(i) if i > p.rfind('/').map_or(0, |s| s + 1) => p[..i].to_string(),
            _ => p.to_string(),
        };
        let whole = text(path);
        arg.replace("{/.}", &stem(&base))
            .replace("{//}", &parent)
            .replace("{/}", &base)
            // As fd: `{.}` drops a leading `./` too.
            .replace("{.}", &stem(whole.strip_prefix("./").unwrap_or(&whole)))
            .replace("{}", &whole)
    };
    let mut argv = Vec::new();
    if !command.iter().skip(1).any(|a| has(a)) {
        argv.extend(command.iter().cloned());
        argv.extend(paths.iter().map(|p| text(p)));
        return argv;
    }
    for arg in command {
        if has(arg) {
            argv.extend(paths.iter().map(|p| fill(arg, p)));
        } else {
            argv.push(arg.clone());
        }
    }
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_fill_each_path() {
        let text = |p: &Path| p.to_string_lossy().into_owned();
        let paths = [PathBuf::from("./src/lib.rs")];
        let argv = placeholders(
            &[
                "echo".into(),
                "{}".into(),
                "{/}".into(),
                "{//}".into(),
                "{.}".into(),
                "{/.}".into(),
            ],
            &paths,
            &text,
        );
        assert_eq!(
            argv,
            ["echo", "./src/lib.rs", "lib.rs", "./src", "src/lib", "lib"]
        );
        let argv = placeholders(&["wc".into(), "-l".into()], &paths, &text);
        assert_eq!(argv, ["wc", "-l", "./src/lib.rs"]);
    }
}
