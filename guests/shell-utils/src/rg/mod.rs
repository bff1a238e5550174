//! `rg`: ripgrep, on ripgrep's own crates (`grep-regex`, `grep-searcher`, `grep-printer`,
//! `ignore`), with the decisions ripgrep 15 makes when its output is not a terminal: no line
//! numbers or headings unless asked, file names when more than one file is searched, binary
//! files skipped in a walk. One thread walks in name order, so output is always in path order.
//! Standard input is searched only when it is a pipe, a file or a here-document (the
//! isolate's stdin is never a terminal; `rg PAT` alone searches the working directory).

pub(crate) mod follow;
mod matcher;
mod options;
pub(crate) mod walk;

use std::path::{Path, PathBuf};

use grep_matcher::Matcher;
use grep_printer::{
    ColorSpecs, JSON, JSONBuilder, Standard, StandardBuilder, Stats, Summary, SummaryBuilder,
    SummaryKind,
};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use shell_base::Context;
use shell_base::io::Input;
use termcolor::Buffer;

use super::stream::{MEMORY_LIMIT, Writer, complain, read_all_limited};
use matcher::Engine;
use options::{Mode, Options, Parsed, SortKey};
use walk::{Root, os_message};

/// One thing to search: a file (shown as the user would name it) or standard input.
struct Haystack {
    absolute: Option<PathBuf>,
    shown: PathBuf,
    /// Named on the command line (binary files are then searched, not skipped).
    explicit: bool,
}

/// `rg [OPTIONS] PATTERN [PATH]...`.
pub async fn rg(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let o = match options::parse(argv) {
        Ok(Parsed::Run(o)) => o,
        Ok(Parsed::Version) => {
            let text =
                "ripgrep 15.2.0 (built into computer's shell; -P is fancy-regex, not PCRE2)\n";
            return super::stream::out(sh, text).await;
        }
        Err(e) => {
            complain(sh, &format!("rg: {e}")).await;
            return 2;
        }
    };
    match run(sh, &o).await {
        Ok(status) => status,
        Err(e) => {
            complain(sh, &format!("rg: {e}")).await;
            2
        }
    }
}

async fn run(sh: &mut dyn Context, o: &Options) -> Result<i32, String> {
    let cwd = PathBuf::from(sh.cwd());
    let types = walk::types(o)?;
    if o.mode == Mode::TypeList {
        let mut out = Writer::new(&sh.io().stdout);
        let mut text = String::new();
        for def in types.definitions() {
            text.push_str(&format!("{}: {}\n", def.name(), def.globs().join(", ")));
        }
        let _ = out.write_str(&text).await;
        let _ = out.flush().await;
        return Ok(if types.definitions().is_empty() { 1 } else { 0 });
    }
    let mut stdin_used = false;
    let mut patterns = o.patterns.clone();
    for file in &o.pattern_files {
        let data = if file == "-" {
            stdin_used = true;
            read_all_limited(&sh.io().stdin, MEMORY_LIMIT, "<stdin>").await?
        } else {
            std::fs::read(sh.path(file)).map_err(|e| format!("{file}: {}", os_message(&e)))?
        };
        patterns.extend(String::from_utf8_lossy(&data).lines().map(str::to_string));
    }
    let overrides = walk::overrides(o, &cwd)?;
    // As ripgrep decides: a pipe or a regular file is searched, `/dev/null` is not.
    let stdin_fed = match &sh.io().stdin {
        Input::Pipe(_) | Input::Bytes(_) => true,
        Input::File(f) => f.borrow().metadata().is_ok_and(|m| m.is_file()),
        Input::Stdin | Input::Null => false,
    };
    let implicit = o.paths.is_empty();
    let one_file = o.paths.len() == 1 && (o.paths[0] == "-" || !sh.path(&o.paths[0]).is_dir());
    let sequential = o.sort.is_some() || one_file;
    let roots: Vec<Option<Root>> = if implicit {
        if stdin_fed && !stdin_used && o.mode != Mode::Files {
            vec![None]
        } else {
            vec![Some(Root {
                given: None,
                absolute: cwd.clone(),
                sequential,
            })]
        }
    } else {
        o.paths
            .iter()
            .map(|p| {
                (p != "-").then(|| Root {
                    given: Some(p.clone()),
                    absolute: sh.path(p),
                    sequential,
                })
            })
            .collect()
    };
    let one_file = one_file || roots.first().is_some_and(Option::is_none);
    let search = if o.mode == Mode::Files {
        None
    } else {
        Some(Search::new(o, &patterns, one_file)?)
    };
    let possible = (o.invert || !patterns.is_empty()) && o.max_count != Some(0);
    if o.mode != Mode::Files && !possible {
        return Ok(1);
    }
    let mut run = Run {
        o,
        search,
        out: Writer::new(&sh.io().stdout),
        matched: false,
        searched: false,
        messages: Messages {
            quiet: o.no_messages,
            lines: Vec::new(),
            errored: false,
        },
    };
    // The haystacks are searched as the walk finds them, or collected first when sorted by
    // something other than the walk's own order.
    let stream = !matches!(
        o.sort,
        Some((SortKey::Path, true))
            | Some((SortKey::Modified | SortKey::Accessed | SortKey::Created, _))
    );
    let mut found: Vec<Haystack> = Vec::new();
    'roots: for root in &roots {
        let Some(root) = root else {
            let stdin = Haystack {
                absolute: None,
                shown: PathBuf::from("<stdin>"),
                explicit: true,
            };
            if !run.visit(sh, stdin).await {
                break;
            }
            continue;
        };
        let (entries, errors) = walk::walk(o, root, &cwd, &overrides, &types);
        for e in errors {
            run.messages.error(e);
        }
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    run.messages.error(root.message(&e));
                    continue;
                }
            };
            if let Some(e) = entry.entry.error() {
                run.messages.note(root.message(e));
            }
            if !walk::is_haystack(&entry) {
                continue;
            }
            let hay = Haystack {
                shown: root.shown(entry.entry.path()),
                explicit: entry.depth == 0,
                absolute: Some(entry.entry.into_path()),
            };
            if !stream {
                found.push(hay);
            } else if !run.visit(sh, hay).await {
                break 'roots;
            }
        }
    }
    sort(&mut found, o.sort);
    for hay in found {
        if !run.visit(sh, hay).await {
            break;
        }
    }
    Ok(run.finish(sh, implicit).await)
}

/// A search under way: what it prints with and what it has found and said.
struct Run<'o> {
    o: &'o Options,
    /// The matcher, searcher and printer; none for `--files`.
    search: Option<Search>,
    out: Writer,
    matched: bool,
    searched: bool,
    messages: Messages,
}

impl Run<'_> {
    /// Searches (or, with `--files`, lists) one haystack and writes what it printed; false
    /// when the run should stop (`-q` found a match, or stdout is gone).
    async fn visit(&mut self, sh: &mut dyn Context, hay: Haystack) -> bool {
        let o = self.o;
        self.searched = true;
        self.messages.flush(sh).await;
        let Some(search) = &mut self.search else {
            self.matched = true;
            if o.quiet {
                return false;
            }
            let mut line = hay.shown.as_os_str().as_encoded_bytes().to_vec();
            line.push(if o.null { b'\0' } else { b'\n' });
            return self.out.write(&line).await.is_ok();
        };
        let data = match &hay.absolute {
            Some(_) => None,
            None => match read_all_limited(&sh.io().stdin, MEMORY_LIMIT, "<stdin>").await {
                Ok(data) => Some(data),
                Err(e) => {
                    self.messages.error(e);
                    return true;
                }
            },
        };
        match search.one(o, &hay, data.as_deref()) {
            Ok(found) => self.matched |= found,
            Err(e) => self
                .messages
                .error(format!("{}: {}", hay.shown.display(), os_message(&e))),
        }
        let buffer = search.printer.buffer();
        let written = self.out.write(buffer.as_slice()).await.is_ok();
        buffer.clear();
        written && !(self.matched && o.quiet)
    }

    /// Writes the totals (`--stats`, `--json`) and the last messages; the exit status.
    async fn finish(mut self, sh: &dyn Context, implicit: bool) -> i32 {
        if let Some(search) = &self.search
            && let Some(text) = search.stats_text(self.o.mode)
        {
            let _ = self.out.write(&text).await;
        }
        let _ = self.out.flush().await;
        if implicit && !self.searched {
            self.messages.error(
                "No files were searched, which means ripgrep probably applied a filter you \
                 didn't expect.\nRunning with --debug will show why files are being skipped."
                    .into(),
            );
        }
        self.messages.flush(sh).await;
        if self.matched && (self.o.quiet || !self.messages.errored) {
            0
        } else if self.messages.errored {
            2
        } else {
            1
        }
    }
}

/// Messages for stderr, written between files so they keep their place among the output.
struct Messages {
    quiet: bool,
    lines: Vec<String>,
    /// An error was met (said or not): the status is 2.
    errored: bool,
}

impl Messages {
    fn error(&mut self, text: String) {
        self.errored = true;
        self.note(text);
    }

    /// A warning (an ignore file that does not parse): the status is unchanged.
    fn note(&mut self, text: String) {
        if !self.quiet {
            self.lines.push(text);
        }
    }

    async fn flush(&mut self, sh: &dyn Context) {
        for line in self.lines.drain(..) {
            complain(sh, &format!("rg: {line}")).await;
        }
    }
}

/// Sorts what a walk found by `--sort`/`--sortr`'s key.
fn sort(found: &mut [Haystack], key: Option<(SortKey, bool)>) {
    let Some((key, reverse)) = key else { return };
    let time = |h: &Haystack| {
        let meta = h
            .absolute
            .as_ref()
            .and_then(|p| std::fs::metadata(p).ok())?;
        match key {
            SortKey::Modified => meta.modified().ok(),
            SortKey::Accessed => meta.accessed().ok(),
            SortKey::Created => meta.created().ok(),
            SortKey::Path => None,
        }
    };
    if key == SortKey::Path {
        found.sort_by(|a, b| a.shown.cmp(&b.shown));
    } else {
        found.sort_by_cached_key(time);
    }
    if reverse {
        found.reverse();
    }
}

/// The printer for the run's mode, printing into a buffer that is written out per file.
enum Printer {
    Standard(Standard<Buffer>),
    Summary(Summary<Buffer>),
    Json(JSON<Buffer>),
}

impl Printer {
    fn buffer(&mut self) -> &mut Buffer {
        match self {
            Printer::Standard(p) => p.get_mut(),
            Printer::Summary(p) => p.get_mut(),
            Printer::Json(p) => p.get_mut(),
        }
    }
}

/// The matcher, searcher and printer of a run, and its statistics.
struct Search {
    engine: Engine,
    searcher: Searcher,
    printer: Printer,
    stats: Option<Stats>,
    started: std::time::Instant,
}

impl Search {
    fn new(o: &Options, patterns: &[String], one_file: bool) -> Result<Search, String> {
        let engine = matcher::build(o, patterns)?;
        let json = o.mode == Mode::Json;
        let stats = (o.stats || json).then(Stats::new);
        let column = o.column.unwrap_or(o.vimgrep);
        let line_number = o.line_number.unwrap_or(if o.quiet {
            false
        } else {
            match o.mode {
                Mode::Json => true,
                Mode::Standard => column || o.vimgrep,
                _ => false,
            }
        });
        let mut s = SearcherBuilder::new();
        s.max_matches(o.max_count)
            .line_terminator(grep_matcher::LineTerminator::byte(if o.null_data {
                b'\0'
            } else {
                b'\n'
            }))
            .invert_match(o.invert)
            .line_number(line_number)
            .multi_line(o.multiline);
        if o.passthru {
            s.passthru(true);
        } else {
            s.before_context(o.before).after_context(o.after);
        }
        let with_filename = o.with_filename.unwrap_or(o.vimgrep || !one_file);
        let buffer = if o.color {
            Buffer::ansi()
        } else {
            Buffer::no_color()
        };
        let colors = if o.color {
            ColorSpecs::default_with_color()
        } else {
            ColorSpecs::default()
        };
        let path_terminator = o.null.then_some(b'\0');
        let summary = |kind| {
            SummaryBuilder::new()
                .color_specs(colors.clone())
                .exclude_zero(!o.include_zero)
                .kind(kind)
                .path(with_filename)
                .path_terminator(path_terminator)
                .separator_field(b":".to_vec())
                .stats(stats.is_some())
                .build(Buffer::no_color())
        };
        let printer = match o.mode {
            _ if o.quiet && o.mode == Mode::FilesWithoutMatch => {
                Printer::Summary(summary(SummaryKind::QuietWithoutMatch))
            }
            _ if o.quiet => Printer::Summary(summary(SummaryKind::QuietWithMatch)),
            Mode::FilesWithMatches => Printer::Summary(summary(SummaryKind::PathWithMatch)),
            Mode::FilesWithoutMatch => Printer::Summary(summary(SummaryKind::PathWithoutMatch)),
            Mode::Count => Printer::Summary(summary(SummaryKind::Count)),
            Mode::CountMatches => Printer::Summary(summary(SummaryKind::CountMatches)),
            Mode::Json => Printer::Json(
                JSONBuilder::new()
                    .pretty(false)
                    .always_begin_end(false)
                    .replacement(o.replace.clone().map(String::into_bytes))
                    .build(buffer),
            ),
            Mode::Standard | Mode::Files | Mode::TypeList => {
                let heading = o.heading.is_some_and(|h| h && !o.vimgrep);
                let context = o.before > 0 || o.after > 0;
                let file_separator = if heading {
                    Some(Vec::new())
                } else if context && !o.passthru {
                    o.context_separator.clone().map(String::into_bytes)
                } else {
                    None
                };
                Printer::Standard(
                    StandardBuilder::new()
                        .byte_offset(o.byte_offset)
                        .color_specs(colors.clone())
                        .column(column)
                        .heading(heading)
                        .max_columns(o.max_columns)
                        .max_columns_preview(o.max_columns_preview)
                        .only_matching(o.only)
                        .path(with_filename)
                        .path_terminator(path_terminator)
                        .per_match_one_line(true)
                        .per_match(o.vimgrep)
                        .replacement(o.replace.clone().map(String::into_bytes))
                        .separator_context(o.context_separator.clone().map(String::into_bytes))
                        .separator_field_context(o.field_context_separator.clone().into_bytes())
                        .separator_field_match(o.field_match_separator.clone().into_bytes())
                        .stats(stats.is_some())
                        .trim_ascii(o.trim)
                        .separator_search(file_separator)
                        .build(buffer),
                )
            }
        };
        Ok(Search {
            engine,
            searcher: s.build(),
            printer,
            stats,
            started: std::time::Instant::now(),
        })
    }

    /// Searches one haystack (`data` is standard input's bytes); whether it matched.
    fn one(&mut self, o: &Options, hay: &Haystack, data: Option<&[u8]>) -> std::io::Result<bool> {
        let none = o.text || o.null_data;
        let detection = if none {
            BinaryDetection::none()
        } else if hay.explicit || o.binary {
            BinaryDetection::convert(b'\0')
        } else {
            BinaryDetection::quit(b'\0')
        };
        self.searcher.set_binary_detection(detection);
        let unpacked = match (&hay.absolute, data) {
            (Some(path), None) if o.search_zip => unpack(path, &hay.shown)?,
            _ => None,
        };
        let source = match (&hay.absolute, data, &unpacked) {
            (_, _, Some(bytes)) => Source::Bytes(bytes),
            (_, Some(data), _) => Source::Bytes(data),
            (Some(path), None, _) => Source::Path(path),
            (None, None, _) => Source::Bytes(&[]),
        };
        let (found, stats) = match &self.engine {
            Engine::Default(m) => {
                search(m, &mut self.searcher, &mut self.printer, &hay.shown, source)
            }
            Engine::Fancy(m) => {
                search(m, &mut self.searcher, &mut self.printer, &hay.shown, source)
            }
        }?;
        if let (Some(total), Some(stats)) = (&mut self.stats, stats) {
            *total += &stats;
        }
        Ok(found)
    }

    /// What `--stats` (or `--json`'s closing summary) prints after the results.
    fn stats_text(&self, mode: Mode) -> Option<Vec<u8>> {
        let stats = self.stats.as_ref()?;
        let elapsed = self.started.elapsed();
        if mode == Mode::Json {
            let value = serde_json::json!({
                "type": "summary",
                "data": {
                    "stats": stats,
                    "elapsed_total": {
                        "secs": elapsed.as_secs(),
                        "nanos": elapsed.subsec_nanos(),
                        "human": format!("{:0.6}s", elapsed.as_secs_f64()),
                    },
                }
            });
            return Some(format!("{value}\n").into_bytes());
        }
        Some(
            format!(
                "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n\
                 {} bytes printed\n{} bytes searched\n{:0.6} seconds spent searching\n\
                 {:0.6} seconds total\n",
                stats.matches(),
                stats.matched_lines(),
                stats.searches_with_match(),
                stats.searches(),
                stats.bytes_printed(),
                stats.bytes_searched(),
                stats.elapsed().as_secs_f64(),
                elapsed.as_secs_f64(),
            )
            .into_bytes(),
        )
    }
}

/// `-z`: a compressed file's contents, chosen by its name as ripgrep chooses (it runs
/// `gzip -d`, `xz -d`, `bzip2 -d` or `zstd -d` by extension, and shows what one says when it
/// fails); `None` for other files.
fn unpack(path: &Path, shown: &Path) -> std::io::Result<Option<Vec<u8>>> {
    use crate::codec::Codec;
    let name = shown.to_string_lossy();
    let (codec, complaint) = match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("gz" | "tgz") => (Codec::Gzip, format!("gzip: {name}: not in gzip format")),
        Some("xz" | "txz") => (Codec::Xz, format!("xz: {name}: File format not recognized")),
        Some("bz2" | "tbz2" | "tbz") => {
            (Codec::Bzip2, format!("bzip2: {name} is not a bzip2 file."))
        }
        Some("zst" | "zstd") => (Codec::Zstd, format!("zstd: {name}: unsupported format ")),
        _ => return Ok(None),
    };
    let data = std::fs::read(path)?;
    codec
        .decompress(&data, crate::stream::MEMORY_LIMIT)
        .map(Some)
        .map_err(|e| {
            let line = "-".repeat(79);
            let why = if e.kind() == std::io::ErrorKind::Other {
                e.to_string()
            } else {
                complaint
            };
            std::io::Error::new(e.kind(), format!("\n{line}\n{why}\n{line}"))
        })
}

enum Source<'a> {
    Path(&'a Path),
    Bytes(&'a [u8]),
}

/// One search with one engine: whether it matched, and its statistics.
fn search<M: Matcher>(
    m: &M,
    searcher: &mut Searcher,
    printer: &mut Printer,
    shown: &Path,
    source: Source<'_>,
) -> std::io::Result<(bool, Option<Stats>)> {
    macro_rules! with_sink {
        ($sink:expr, $stats:expr) => {{
            let mut sink = $sink;
            match source {
                Source::Path(p) => searcher.search_path(m, p, &mut sink)?,
                Source::Bytes(b) => searcher.search_slice(m, b, &mut sink)?,
            }
            Ok((sink.has_match(), $stats(&sink)))
        }};
    }
    match printer {
        Printer::Standard(p) => with_sink!(
            p.sink_with_path(m, shown),
            |s: &grep_printer::StandardSink<'_, '_, _, _>| s.stats().cloned()
        ),
        Printer::Summary(p) => with_sink!(
            p.sink_with_path(m, shown),
            |s: &grep_printer::SummarySink<'_, '_, _, _>| s.stats().cloned()
        ),
        Printer::Json(p) => with_sink!(p.sink_with_path(m, shown), |s: &grep_printer::JSONSink<
            '_,
            '_,
            _,
            _,
        >| Some(
            s.stats().clone()
        )),
    }
}
