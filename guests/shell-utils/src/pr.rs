//! `pr`: files paginated for printing, as GNU's `pr` lays them out: 66-line pages with a
//! five-line header (date, name, page number) and a five-line trailer, in one column or
//! several (down or `-a` across, `-m` one per file), numbered, indented, double-spaced.
//!
//! Where columns are laid out, GNU writes the white space between them (and in them) with
//! tabs at every eighth position, and so does this; a single column is written as it came.

use shell_base::Context;
use shell_base::args::{bad_usage, usage};

use crate::stream::{Stop, Writer, complain, read_file};

/// A page's header and trailer take this many lines each.
const MARGIN_LINES: usize = 5;
/// The widest page and margin, in characters, and the longest page, in lines: the white
/// space they make is written out, so a hostile size must not fill the memory.
const WIDTH_LIMIT: usize = 4096;
const LENGTH_LIMIT: usize = 1_000_000;
const TAB: usize = 8;

/// `-n[SEP[DIGITS]]`.
#[derive(Clone, Copy)]
struct Numbering {
    sep: u8,
    digits: usize,
}

impl Numbering {
    /// Its width in a column: the digits and the separator (a tab reaches the next stop).
    fn width(&self) -> usize {
        self.digits
            + if self.sep == b'\t' {
                TAB - self.digits % TAB
            } else {
                1
            }
    }

    /// `n` right-aligned in its digits, only the last of them when it has more.
    fn text(&self, n: u64) -> String {
        let s = format!("{n:>width$}", width = self.digits);
        s[s.len() - self.digits..].to_string()
    }
}

/// The options as given.
struct Options {
    columns: usize,
    across: bool,
    merge: bool,
    double: bool,
    date_format: String,
    formfeed: bool,
    header: Option<String>,
    join: bool,
    page_len: usize,
    number: Option<Numbering>,
    first_number: u64,
    margin: usize,
    quiet: bool,
    /// `-s[CHAR]`: `Some(None)` is `-s` alone.
    sep_char: Option<Option<u8>>,
    sep_string: Option<Vec<u8>>,
    omit: bool,
    omit_all: bool,
    width: Option<usize>,
    page_width: Option<usize>,
    first_page: usize,
    last_page: Option<usize>,
}

/// How lines are laid out, worked out from the options.
struct Layout {
    /// Columns across the page (files, with `-m`).
    columns: usize,
    /// Lines are written in columns, white space as tabs.
    tabify: bool,
    join: bool,
    truncate: bool,
    sep: Vec<u8>,
    /// Width of a column, its number included; of the line with one column.
    column_width: usize,
    /// Where the first column starts (after the margin, and `-m`'s line number).
    base: usize,
    width: usize,
    /// Lines of the body of a page, and rows of text in them.
    body: usize,
    rows: usize,
    headers: bool,
}

/// `pr [OPTION]... [FILE]...`.
pub async fn pr(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (o, files) = match parse(argv) {
        Ok(p) => p,
        Err(Problem::Usage(m)) => return bad_usage(sh, "pr", usage(m), 1).await,
        Err(Problem::Plain(m)) => return complain(sh, &format!("pr: {m}")).await,
    };
    let files = if files.is_empty() {
        vec!["-".to_string()]
    } else {
        files
    };
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    let mut texts = Vec::new();
    for f in &files {
        match read_file(sh, "pr", f).await {
            Ok(t) => texts.push((f.clone(), t)),
            Err(m) => {
                status = 1;
                if !o.quiet {
                    let _ = out.flush().await;
                    complain(sh, &m).await;
                }
            }
        }
    }
    let layout = match layout(&o, texts.len()) {
        Ok(l) => l,
        Err(m) => return complain(sh, &format!("pr: {m}")).await,
    };
    let now = now();
    // A job for each file, or one for every file with `-m`.
    let jobs: Vec<Job> = if o.merge {
        let sources: Vec<_> = texts.iter().map(|(_, t)| lines(t)).collect();
        vec![Job::new(&o, &layout, String::new(), now, &sources, false)]
    } else {
        texts
            .iter()
            .map(|(name, t)| {
                let (title, time) = if name == "-" {
                    (String::new(), now)
                } else {
                    (name.clone(), mtime(sh, name).unwrap_or(now))
                };
                let open = !t.is_empty() && !t.ends_with(b"\n");
                Job::new(&o, &layout, title, time, &[lines(t)], open)
            })
            .collect()
    };
    for job in jobs {
        if o.first_page > job.pages.len() && o.first_page > 1 {
            let _ = out.flush().await;
            let count = job.pages.len().max(1);
            let m = format!(
                "pr: starting page number {} exceeds page count {count}",
                o.first_page
            );
            complain(sh, &m).await;
        }
        let last = o.last_page.unwrap_or(usize::MAX).min(job.pages.len());
        for k in o.first_page - 1..last {
            if let Err(Stop(s)) = job.page(&o, &layout, k, &mut out).await {
                return s;
            }
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

enum Problem {
    /// Wrong use: the message and GNU's hint.
    Usage(String),
    /// A bad value, said alone.
    Plain(String),
}

fn number_of(value: &str, what: &str) -> Result<usize, Problem> {
    value
        .parse()
        .map_err(|_| Problem::Plain(format!("{what}: '{value}'")))
}

/// GNU's arguments: `-COLUMN`, `+FIRST[:LAST]`, options with values attached or not, and
/// long options; the files.
fn parse(argv: &[String]) -> Result<(Options, Vec<String>), Problem> {
    let mut o = Options {
        columns: 1,
        across: false,
        merge: false,
        double: false,
        date_format: "%Y-%m-%d %H:%M".into(),
        formfeed: false,
        header: None,
        join: false,
        page_len: 66,
        number: None,
        first_number: 1,
        margin: 0,
        quiet: false,
        sep_char: None,
        sep_string: None,
        omit: false,
        omit_all: false,
        width: None,
        page_width: None,
        first_page: 1,
        last_page: None,
    };
    let mut files = Vec::new();
    let mut columns_given = false;
    let mut args = argv[1..].iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            files.extend(args.by_ref().cloned());
            break;
        }
        if let Some(pages) = arg.strip_prefix('+') {
            pages_of(&mut o, pages)?;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let mut needed = |attached: Option<String>| -> Result<String, Problem> {
                attached.or_else(|| args.next().cloned()).ok_or_else(|| {
                    Problem::Usage(format!("option '--{name}' requires an argument"))
                })
            };
            match name {
                "across" => o.across = true,
                "double-space" => o.double = true,
                "form-feed" => o.formfeed = true,
                "join-lines" => o.join = true,
                "merge" => o.merge = true,
                "no-file-warnings" => o.quiet = true,
                "omit-header" => o.omit = true,
                "omit-pagination" => o.omit_all = true,
                "columns" => {
                    o.columns = number_of(&needed(attached)?, "invalid number of columns")?;
                    columns_given = true;
                }
                "date-format" => o.date_format = needed(attached)?,
                "header" => o.header = Some(needed(attached)?),
                "length" => {
                    o.page_len = number_of(
                        &needed(attached)?,
                        "'-l PAGE_LENGTH' invalid number of lines",
                    )?
                }
                "first-line-number" => {
                    let v = needed(attached)?;
                    o.first_number = v.parse().map_err(|_| {
                        Problem::Plain(format!("invalid starting line number: '{v}'"))
                    })?;
                }
                "indent" => o.margin = number_of(&needed(attached)?, "invalid line offset")?,
                "width" => o.width = Some(number_of(&needed(attached)?, "invalid page width")?),
                "page-width" => {
                    o.page_width = Some(number_of(&needed(attached)?, "invalid page width")?)
                }
                "pages" => pages_of(&mut o, &needed(attached)?)?,
                "number-lines" => o.number = Some(numbering(attached.as_deref().unwrap_or(""))?),
                "separator" => o.sep_char = Some(attached.and_then(|v| v.bytes().next())),
                "sep-string" => o.sep_string = Some(attached.unwrap_or_default().into_bytes()),
                _ => return Err(Problem::Usage(format!("unrecognized option '{arg}'"))),
            }
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            files.push(arg.clone());
            continue;
        };
        let mut rest = cluster;
        while let Some(c) = rest.chars().next() {
            rest = &rest[c.len_utf8()..];
            if c.is_ascii_digit() {
                let digits: String = std::iter::once(c)
                    .chain(rest.chars().take_while(char::is_ascii_digit))
                    .collect();
                rest = &rest[digits.len() - 1..];
                o.columns = number_of(&digits, "invalid number of columns")?;
                columns_given = true;
                continue;
            }
            // An option's value: the rest of the word, or the next argument.
            let mut value = |rest: &mut &str| -> Result<String, Problem> {
                let v = if rest.is_empty() {
                    args.next().cloned().ok_or_else(|| {
                        Problem::Usage(format!("option requires an argument -- '{c}'"))
                    })?
                } else {
                    rest.to_string()
                };
                *rest = "";
                Ok(v)
            };
            match c {
                'a' => o.across = true,
                'd' => o.double = true,
                'f' | 'F' => o.formfeed = true,
                'J' => o.join = true,
                'm' => o.merge = true,
                'r' => o.quiet = true,
                't' => o.omit = true,
                'T' => o.omit_all = true,
                'D' => o.date_format = value(&mut rest)?,
                'h' => o.header = Some(value(&mut rest)?),
                'l' => {
                    o.page_len = number_of(
                        &value(&mut rest)?,
                        "'-l PAGE_LENGTH' invalid number of lines",
                    )?
                }
                'N' => {
                    let v = value(&mut rest)?;
                    o.first_number = v.parse().map_err(|_| {
                        Problem::Plain(format!("invalid starting line number: '{v}'"))
                    })?;
                }
                'o' => o.margin = number_of(&value(&mut rest)?, "invalid line offset")?,
                'w' => o.width = Some(number_of(&value(&mut rest)?, "invalid page width")?),
                'W' => o.page_width = Some(number_of(&value(&mut rest)?, "invalid page width")?),
                'n' => {
                    o.number = Some(numbering(rest)?);
                    rest = "";
                }
                's' => {
                    o.sep_char = Some(rest.bytes().next());
                    rest = "";
                }
                'S' => {
                    o.sep_string = Some(rest.as_bytes().to_vec());
                    rest = "";
                }
                _ => return Err(Problem::Usage(format!("invalid option -- '{c}'"))),
            }
        }
    }
    if o.merge && columns_given {
        return Err(Problem::Plain(
            "cannot specify number of columns when printing in parallel".into(),
        ));
    }
    if o.merge && o.across {
        return Err(Problem::Plain(
            "cannot specify both printing across and printing in parallel".into(),
        ));
    }
    for (what, value, limit) in [
        (
            "page width",
            o.width.max(o.page_width).unwrap_or(0),
            WIDTH_LIMIT,
        ),
        ("margin", o.margin, WIDTH_LIMIT),
        ("page length", o.page_len, LENGTH_LIMIT),
        ("number of columns", o.columns, WIDTH_LIMIT),
    ] {
        if value > limit {
            return Err(Problem::Plain(format!(
                "{what} {value} is over the limit of {limit}"
            )));
        }
    }
    for (flag, width) in [('w', o.width), ('W', o.page_width)] {
        if width == Some(0) {
            return Err(Problem::Plain(format!(
                "'-{flag} PAGE_WIDTH' invalid number of characters: '0'"
            )));
        }
    }
    if o.columns == 0 || o.page_len == 0 {
        let what = if o.columns == 0 {
            "invalid number of columns: '0'"
        } else {
            "'-l PAGE_LENGTH' invalid number of lines: '0'"
        };
        return Err(Problem::Plain(what.into()));
    }
    Ok((o, files))
}

/// `FIRST[:LAST]`.
fn pages_of(o: &mut Options, text: &str) -> Result<(), Problem> {
    let bad = || Problem::Plain(format!("invalid page range '{text}'"));
    let (first, last) = match text.split_once(':') {
        Some((f, l)) => (f, Some(l)),
        None => (text, None),
    };
    o.first_page = first.parse().map_err(|_| bad())?;
    o.last_page = last.map(|l| l.parse().map_err(|_| bad())).transpose()?;
    if o.first_page == 0 || o.last_page.is_some_and(|l| l < o.first_page) {
        return Err(bad());
    }
    Ok(())
}

/// `-n`'s attached `[SEP[DIGITS]]`: a separator that is not a digit, then digits.
fn numbering(text: &str) -> Result<Numbering, Problem> {
    let mut n = Numbering {
        sep: b'\t',
        digits: 5,
    };
    let mut rest = text;
    // The separator is one byte, as GNU's: of a wider character, its first.
    if let Some(c) = rest.chars().next()
        && !c.is_ascii_digit()
    {
        n.sep = rest.as_bytes()[0];
        rest = &rest[c.len_utf8()..];
    }
    if !rest.is_empty() {
        n.digits = rest
            .parse()
            .ok()
            .filter(|&d| d > 0 && d <= 19)
            .ok_or_else(|| Problem::Plain(format!("invalid line number field width: '{rest}'")))?;
    }
    Ok(n)
}

/// The layout of `o`; with `-m`, `files` are its columns.
fn layout(o: &Options, files: usize) -> Result<Layout, String> {
    let columns = if o.merge { files.max(1) } else { o.columns };
    let tabify = columns > 1 || o.merge;
    let width = o.page_width.or(o.width).unwrap_or(72);
    // `-s` without a width joins lines as `-J` does.
    let join = o.join || (o.sep_char.is_some() && o.width.is_none() && o.page_width.is_none());
    let sep = match (&o.sep_string, o.sep_char) {
        (Some(s), _) => s.clone(),
        // A tab between aligned columns would break their alignment: GNU makes it a space.
        (None, Some(c)) => match c.unwrap_or(b'\t') {
            b'\t' if !join => vec![b' '],
            c => vec![c],
        },
        (None, None) if join => vec![b'\t'],
        (None, None) => vec![b' '],
    };
    let truncate = !join && (tabify || o.page_width.is_some());
    let prefix = if o.merge {
        o.number.map_or(0, |n| n.width())
    } else {
        0
    };
    // A separator as long as a hostile `-S` can make it must not overflow the sum.
    let gaps = (columns - 1).saturating_mul(sep.len());
    let column_width = if tabify {
        width.saturating_sub(prefix.saturating_add(gaps)) / columns
    } else {
        width
    };
    let in_column = if o.merge {
        0
    } else {
        o.number.map_or(0, |n| n.width())
    };
    if tabify && column_width <= in_column {
        return Err("page width too narrow".into());
    }
    let headers = !o.omit && !o.omit_all && o.page_len > 2 * MARGIN_LINES;
    let body = if headers {
        o.page_len - 2 * MARGIN_LINES
    } else {
        o.page_len
    };
    let rows = if o.double { (body / 2).max(1) } else { body };
    Ok(Layout {
        columns,
        tabify,
        join,
        truncate,
        sep,
        column_width,
        base: o.margin + prefix,
        width,
        body,
        rows,
        headers,
    })
}

fn lines(text: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.is_empty() || text.ends_with(b"\n") {
        v.pop();
    }
    v
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn mtime(sh: &dyn Context, name: &str) -> Option<i64> {
    let t = std::fs::metadata(sh.path(name)).ok()?.modified().ok()?;
    Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64)
}

/// A row of a page: each column's line and its number (`None`: an empty column of `-m`).
type Row<'a> = Vec<Option<(&'a [u8], u64)>>;

/// What one job prints: its pages' rows, and what goes around them.
struct Job<'a> {
    pages: Vec<Vec<(Row<'a>, u64)>>,
    date: String,
    title: String,
    /// Its last line has no newline.
    open: bool,
}

impl<'a> Job<'a> {
    fn new(
        o: &Options,
        l: &Layout,
        title: String,
        time: i64,
        sources: &[Vec<&'a [u8]>],
        open: bool,
    ) -> Job<'a> {
        Job {
            pages: pages(o, l, sources),
            date: shell_base::clock::format(time, 0, &o.date_format),
            title: o.header.clone().unwrap_or(title),
            open,
        }
    }

    /// Writes page `k` (from 0), a row at a time.
    async fn page(&self, o: &Options, l: &Layout, k: usize, w: &mut Writer) -> Result<(), Stop> {
        let mut out = Vec::new();
        let rows = &self.pages[k];
        if l.headers {
            let margin = " ".repeat(o.margin);
            out.extend_from_slice(format!("{margin}\n\n{margin}").as_bytes());
            out.extend_from_slice(header(l.width, &self.date, &self.title, k + 1).as_bytes());
            out.extend_from_slice(b"\n\n\n");
        }
        for (r, (row, line_number)) in rows.iter().enumerate() {
            render(&mut out, o, l, row, *line_number);
            let last = k + 1 == self.pages.len() && r + 1 == rows.len();
            if o.double && (!last || self.last_blank(o, l, row)) {
                out.push(b'\n');
            }
            w.write(&out).await?;
            out.clear();
        }
        if o.formfeed && !o.omit_all {
            out.push(b'\x0c');
        } else if l.headers {
            let used = rows.len() * if o.double { 2 } else { 1 };
            let blank = l.body.saturating_sub(used) + MARGIN_LINES;
            out.extend(std::iter::repeat_n(b'\n', blank));
        }
        w.write(&out).await
    }

    /// Whether `-d`'s blank line follows the last row. Without headers GNU leaves it out
    /// when it has already seen the input end: always down columns, after a short row
    /// across, and after a last line without a newline.
    fn last_blank(&self, o: &Options, l: &Layout, row: &Row) -> bool {
        if l.headers {
            return true;
        }
        match (l.tabify, o.merge, o.across) {
            (true, false, false) => false,
            (true, false, true) => row.len() == l.columns,
            _ => !self.open,
        }
    }
}

/// The pages' rows, each with `-m`'s line number.
fn pages<'a>(o: &Options, l: &Layout, sources: &[Vec<&'a [u8]>]) -> Vec<Vec<(Row<'a>, u64)>> {
    let mut pages = Vec::new();
    if o.merge {
        let total = sources.iter().map(Vec::len).max().unwrap_or(0);
        for start in (0..total).step_by(l.rows) {
            let rows = (start..total.min(start + l.rows))
                .map(|r| {
                    let n = o.first_number.saturating_add(r as u64);
                    let row = sources.iter().map(|s| s.get(r).map(|&t| (t, n))).collect();
                    (row, n)
                })
                .collect();
            pages.push(rows);
        }
        return pages;
    }
    let lines = &sources[0];
    let numbered = |i: usize| Some((lines[i], o.first_number.saturating_add(i as u64)));
    let per_page = l.rows.saturating_mul(l.columns);
    for start in (0..lines.len()).step_by(per_page) {
        let count = per_page.min(lines.len() - start);
        let mut rows: Vec<(Row, u64)> = Vec::new();
        if o.across || l.columns == 1 {
            for r in (start..start + count).step_by(l.columns) {
                let row = (r..(r + l.columns).min(start + count))
                    .map(numbered)
                    .collect();
                rows.push((row, 0));
            }
        } else {
            // Down the columns; a last page's lines shared out evenly, the first columns
            // taking one more.
            let (each, extra) = if count == per_page {
                (l.rows, 0)
            } else {
                (count / l.columns, count % l.columns)
            };
            let height = |c: usize| each + usize::from(c < extra);
            let tops: Vec<usize> = (0..l.columns)
                .scan(start, |at, c| {
                    let top = *at;
                    *at += height(c);
                    Some(top)
                })
                .collect();
            for r in 0..height(0) {
                let row = (0..l.columns)
                    .take_while(|&c| r < height(c))
                    .map(|c| numbered(tops[c] + r))
                    .collect();
                rows.push((row, 0));
            }
        }
        pages.push(rows);
    }
    pages
}

/// The header line: the date, the title centred, the page number at the right.
fn header(width: usize, date: &str, title: &str, page: usize) -> String {
    let page = format!("Page {page}");
    let used = date.chars().count() + title.chars().count() + page.len();
    let (left, right) = match width.checked_sub(used) {
        Some(free) if free >= 2 => (free / 2, free - free / 2),
        _ => (1, 1),
    };
    format!(
        "{date}{}{title}{}{page}",
        " ".repeat(left),
        " ".repeat(right)
    )
}

/// One line of output, its white space kept back until something follows it and then
/// written with tabs where columns are laid out (GNU's `print_white_space`). `pos` is where
/// GNU believes the line has reached, which is not always where it has: GNU counts a
/// separator character as one position and a tab it copies as none, and its tabs follow.
struct Line<'o> {
    out: &'o mut Vec<u8>,
    tabify: bool,
    pos: usize,
    pending: usize,
}

impl Line<'_> {
    fn flush(&mut self) {
        let goal = self.pos + self.pending;
        while self.tabify && goal - self.pos > 1 {
            let next = (self.pos / TAB + 1) * TAB;
            if next > goal {
                break;
            }
            self.out.push(b'\t');
            self.pos = next;
        }
        self.out.extend(std::iter::repeat_n(b' ', goal - self.pos));
        self.pos = goal;
        self.pending = 0;
    }

    /// A character of text: a space kept back, anything else written after the white space
    /// before it (a tab or a control character takes no position).
    fn put(&mut self, c: u8) {
        if c == b' ' && self.tabify {
            self.pending += 1;
            return;
        }
        self.flush();
        self.out.push(c);
        if c == b' ' || c.is_ascii_graphic() || c >= 0x80 {
            self.pos += 1;
        }
    }

    /// A character of a column separator: a space kept back, anything else one position.
    fn put_sep(&mut self, c: u8) {
        if c == b' ' {
            self.pending += 1;
        } else {
            self.flush();
            self.out.push(c);
            self.pos += 1;
        }
    }

    fn pad_to(&mut self, target: usize) {
        if target > self.pos + self.pending {
            self.pending = target - self.pos;
        }
    }

    /// A column's text: its number, then the line, cut at `limit` when truncating. Tabs
    /// in it are made spaces from the line's start where columns are laid out, unless the
    /// separator is itself a tab; the width the text took is returned.
    fn text(&mut self, number: Option<(Numbering, u64)>, line: &[u8], c: &Cell) -> usize {
        if let Some((n, value)) = number {
            for d in n.text(value).bytes() {
                self.put(d);
            }
            if !self.tabify {
                self.put(n.sep);
                if n.sep == b'\t' {
                    self.pos = (self.pos / TAB + 1) * TAB;
                }
            } else if n.sep == b'\t' {
                (n.digits..n.width()).for_each(|_| self.put(b' '));
            } else {
                self.put(n.sep);
            }
        }
        let mut rel = 0;
        for &b in line {
            let to = if b == b'\t' {
                (rel / TAB + 1) * TAB
            } else {
                rel + 1
            };
            if c.limit.is_some_and(|w| to > w) {
                break;
            }
            if b == b'\t' && self.tabify && c.expand_tabs {
                (rel..to).for_each(|_| self.put(b' '));
            } else {
                self.put(b);
            }
            rel = to;
        }
        rel
    }
}

/// How a row's columns take their text.
struct Cell {
    /// Where a line is cut (its number not counted), when lines are truncated.
    limit: Option<usize>,
    expand_tabs: bool,
}

/// One row: the margin, `-m`'s number, then each column after its separator.
fn render(out: &mut Vec<u8>, o: &Options, l: &Layout, row: &Row, line_number: u64) {
    let mut line = Line {
        out,
        tabify: l.tabify,
        pos: 0,
        pending: 0,
    };
    line.pad_to(o.margin);
    line.flush();
    if o.merge
        && let Some(n) = o.number
    {
        line.text(
            Some((n, line_number)),
            b"",
            &Cell {
                limit: None,
                expand_tabs: true,
            },
        );
    }
    let number_in_column = if o.merge { None } else { o.number };
    let cell = Cell {
        limit: l.truncate.then(|| {
            l.column_width
                .saturating_sub(number_in_column.map_or(0, |n| n.width()))
        }),
        expand_tabs: l.sep != b"\t",
    };
    // GNU stores the lines of columns printed down the page, and after each column takes the
    // line to be where the column starts plus the text's width; a joined column other than
    // the first starts nowhere, at 0.
    let stored = l.tabify && !o.merge && !o.across;
    for (k, entry) in row.iter().enumerate() {
        let start = l.base + k * (l.column_width + l.sep.len());
        if k > 0 {
            if !l.join {
                line.pad_to(start - l.sep.len());
            }
            for &c in &l.sep {
                line.put_sep(c);
            }
            line.flush();
        }
        let Some((text, n)) = entry else {
            continue;
        };
        let width = line.text(number_in_column.map(|c| (c, *n)), text, &cell);
        if stored && line.pending == 0 {
            let numbered = if l.truncate {
                number_in_column.map_or(0, |n| n.width())
            } else {
                0
            };
            let from = if k == 0 || !l.join { start } else { 0 };
            line.pos = from + numbered + width;
        }
    }
    line.out.push(b'\n');
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::stdout_of;

    #[test]
    fn hostile_separators_are_refused_or_taken_whole() {
        let wide = "x".repeat(1 << 20);
        let ran =
            crate::testing::Native::new().run(&["pr", "-t", "-4096", &format!("-S{wide}")], "1\n");
        assert_eq!(ran.status, 1);
        assert!(
            ran.stderr.contains("page width too narrow"),
            "{}",
            ran.stderr
        );
        let ran = crate::testing::Native::new().run(&["pr", "-t", "-n\u{e4}3"], "a\n");
        // The separator is the character's first byte (shown here as U+FFFD).
        assert_eq!((ran.status, ran.stdout.as_str()), (0, "  1\u{fffd}a\n"));
    }

    #[test]
    fn columns_down_across_and_merged() {
        let ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        assert_eq!(
            stdout_of(&["pr", "-t", "-3"], ten),
            "1\t\t\t5\t\t\t8\n2\t\t\t6\t\t\t9\n3\t\t\t7\t\t\t10\n4\n"
        );
        assert_eq!(
            stdout_of(&["pr", "-t", "-3", "-a"], ten),
            "1\t\t\t2\t\t\t3\n4\t\t\t5\t\t\t6\n7\t\t\t8\t\t\t9\n10\n"
        );
        assert_eq!(
            stdout_of(&["pr", "-t", "-n", "-2"], "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"),
            "    1\t1\t\t\t    \t6   6\n    2\t2\t\t\t    \t7   7\n    3\t3\t\t\t    \t8   8\n\
             \x20   4\t4\t\t\t    \t9   9\n    5\t5\t\t\t       10   10\n"
        );
        let page = stdout_of(&["pr", "-h", "T", "-l", "12"], "a\n");
        assert_eq!(page.lines().count(), 12);
        let title = format!("{}T{}Page 1", " ".repeat(24), " ".repeat(25));
        assert!(
            page.lines().nth(2).is_some_and(|l| l.ends_with(&title)),
            "{page}"
        );
    }
}
