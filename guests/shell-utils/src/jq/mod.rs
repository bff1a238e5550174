//! `jq` over jaq (jaq-core, jaq-std, jaq-json), as jq 1.7.1 behaves: its command line
//! (`args.rs`), its inputs and where it says they are (`input.rs`), its output and numbers
//! (`print.rs`), its messages and exit statuses (`message.rs`), and the jq definitions
//! jaq lacks. `yq` and `tomlq` (the jq wrappers Debian ships as `yq`) run the same filters
//! over YAML and TOML documents (see `yaml.rs`).

use std::cell::RefCell;
use std::rc::Rc;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};
use shell_base::Context;

use crate::stream::{MEMORY_LIMIT, Stop, Writer, open, read_all_limited};

mod args;
mod destructure;
mod input;
mod message;
mod print;
mod rewrite;
mod yaml;

use args::{Args, Named, Refused};
use input::{Event, Reading};
use print::{Colors, Layout};
use yaml::{Format, parse_documents, write_document};

/// jq's advice after a refused command line.
const ADVICE: &str = "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://jqlang.github.io/jq";

/// What `--build-configuration` prints.
const BUILD_CONFIGURATION: &str = "computer (jq 1.7.1's language on jaq-core 3)";

/// jq 1.7.1 filters that jaq lacks or has otherwise, defined in jq itself.
const JQ_COMPAT: &str = r#"
def _desc: "\(type) (\(tojson | if length > 14 then .[:11] + "..." else . end))";
def @csv: if type != "array" then error("\(type) (\(tojson)) cannot be csv-formatted, only an array can be")
  else map(if type == "string" then "\"" + gsub("\""; "\"\"") + "\""
    elif type == "number" or type == "boolean" then tostring
    elif . == null then ""
    else error("\(type) (\(tojson)) is not valid in a csv row") end) | join(",") end;
def @tsv: if type != "array" then error("\(type) (\(tojson)) cannot be tsv-formatted, only an array can be")
  else map(if type == "string" then gsub("\\\\"; "\\\\") | gsub("\t"; "\\t") | gsub("\n"; "\\n") | gsub("\r"; "\\r")
    elif . == null then "" else tostring end) | join("\t") end;
def _sh: if type == "string" then "'" + gsub("'"; "'\\''") + "'"
  elif type == "object" or type == "array" then error("\(_desc) can not be escaped for shell")
  else tostring end;
def @sh: if type == "array" then map(_sh) | join(" ") else _sh end;
def input: label $out | (inputs | ., break $out), error("break");
def join($x): reduce .[] as $i (null; (if . == null then "" else . + $x end)
  + ($i | if type == "boolean" or type == "number" then tostring else . // "" end)) // "";
def flatten($x): if $x < 0 then error("flatten depth must not be negative")
  else reduce .[] as $i ([]; if $i | type == "array" and $x != 0 then . + ($i | flatten($x - 1)) else . + [$i] end) end;
def flatten: flatten(1e9);
def from_entries: map({(.key // .Key // .name // .Name
    | if type == "string" then . else error("Cannot use \(_desc) as object key") end):
  (if has("value") then .value else .Value end)}) | add | . //= {};
def with_entries(f): to_entries | map(f) | from_entries;
def nth($n; g): if $n < 0 then error("nth doesn't support negative indices")
  else label $out | foreach g as $item ($n + 1; . - 1; if . <= 0 then $item, break $out else empty end) end;
def limit($n; g): if $n > 0 then label $out | foreach g as $item ($n; . - 1; $item, if . <= 0 then break $out else empty end)
  elif $n == 0 then empty else g end;
def walk(f): def w: if type == "object" then map_values(w) elif type == "array" then map(w) else . end | f; w;
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] = $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def ltrimstr($x): if type == "string" and ($x | type) == "string" and startswith($x) then .[($x | length):] else . end;
def rtrimstr($x): if type == "string" and ($x | type) == "string" and endswith($x) and ($x | length) > 0
  then .[:length - ($x | length)] else . end;
def _delpath($p):
  if ($p | length) == 0 then null
  elif type == "null" then null
  else $p[0] as $k
    | if type == "object" and ($k | type) == "string" and (has($k) | not) then .
      elif type == "array" and ($k | type) == "number" and ($k >= length or $k < -length) then .
      elif ($p | length) == 1 then
        if type == "array" and ($k | type) == "object" then del(.[$k.start:$k.end]) else del(.[$k]) end
      else .[$k] |= _delpath($p[1:]) end
  end;
def delpaths($ps): if ($ps | type) != "array" then error("Paths must be specified as an array")
  else reduce ($ps | sort | reverse[]) as $p (.; _delpath($p)) end;
def del(f): delpaths([path(f)]);
def env: $ENV;
def tostring: if type == "string" then . else tojson end;
def @text: tostring;
def @json: tojson;
def keys: if type == "object" then keys_unsorted | sort elif type == "array" then [range(length)]
  else error("\(_desc) has no keys") end;
def splits($re; flags): if type != "string" then error("\(_desc) cannot be matched, as it is not a string")
  else split($re; flags // "")[] end;
def splits($re): splits($re; null);
def setpath($p; $v):
  if ($p | length) == 0 then $v
  else $p[0] as $k
    | (if . == null then (if ($k | type) == "string" then {} else [] end) else . end)
    | if type == "array" and ($k | type) == "number" and $k >= length
      then . + [range($k - length) | null] + [null | setpath($p[1:]; $v)]
      elif type == "array" and ($k | type) == "number" and $k < -length
      then error("Out of bounds negative array index")
      else .[$k] |= setpath($p[1:]; $v) end
  end;
def pick(pathexps): . as $top | reduce path(pathexps) as $p (null; setpath($p; $top | getpath($p)));
def _jq_null_update: type == "string" and (. == "cannot use null as iterable (array or object)"
  or (startswith("index ") and endswith(" out of bounds")));
def _jq_assign(paths; $v): . as $in
  | try (paths = $v)
    catch (if _jq_null_update then $in | reduce path(paths) as $p (.; setpath($p; $v)) else error end);
def _jq_modify(paths; f): . as $in
  | try (paths |= f)
    catch (if _jq_null_update | not then error
      else $in
      | reduce path(paths) as $p ([., []];
          . as [$x, $del]
          | [label $out | ($x | getpath($p) | f) | ., break $out] as $r
          | if $r == [] then [$x, $del + [$p]] else [($x | setpath($p; $r[0])), $del] end)
      | . as [$x, $del] | $x | delpaths($del) end);
def input_filename: input_position | if . == null then null else .[0] end;
def input_line_number: input_position | if . == null then 0 else .[1] end;
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def fromstream(f): {x: null, e: false} as $init
  | foreach f as $i ($init;
      if .e then $init else . end
      | if $i | length == 2
        then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
        else setpath(["e"]; $i[0] | length == 1) end;
      if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input | if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;
def halt_error($exit_code): halt_error_message, halt($exit_code);
def halt_error: halt_error(5);
def _jq_divide($n; $d; quotient): if $d == 0 and ($n | type) == "number" and ($d | type) == "number"
  then error("cannot calculate \($n | tojson) / \($d | tojson)") else quotient end;
def _jaq_implode: implode;
def implode: if type != "array" then error("implode input must be an array")
  else map(if type != "number" or isnan
      then error("\(_desc) can't be imploded, unicode codepoint needs to be numeric")
      else floor | if . < 0 or . > 1114111 or (. >= 55296 and . <= 57343) then 65533 else . end end)
    | _jaq_implode end;
def _jq_datetime($name): if type == "number" or (type == "array" and all(.[]; type == "number")) then .
  else error("\($name) requires parsed datetime inputs") end;
def _jaq_strftime($f): strftime($f);
def _jaq_strflocaltime($f): strflocaltime($f);
def _jaq_mktime: mktime;
def strftime($f): _jq_datetime("strftime/1") | _jaq_strftime($f);
def strflocaltime($f): _jq_datetime("strflocaltime/1") | _jaq_strflocaltime($f);
def mktime: if type != "array" then error("mktime requires array inputs")
  else _jq_datetime("mktime") | _jaq_mktime end;
def have_literal_numbers: true;
def have_decnum: false;
def get_search_list: [];
"#;

fn jq_compat_defs() -> impl Iterator<Item = jaq_core::load::parse::Def<&'static str>> {
    jaq_core::load::parse(JQ_COMPAT, |p| p.defs())
        .unwrap_or_default()
        .into_iter()
}

/// jaq's definitions, then jq's where they differ.
fn jq_defs() -> impl Iterator<Item = jaq_core::load::parse::Def<&'static str>> {
    jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .chain(jq_compat_defs())
}

/// jaq's native filters, with ours in place of those jq words or behaves otherwise.
fn jq_funs() -> Vec<jaq_core::native::Fun<WithInputs>> {
    jaq_core::funs()
        .chain(
            jaq_std::funs().filter(|(name, ..)| !matches!(*name, "stderr_empty" | "debug_empty")),
        )
        // jaq's `input` gives nothing at the end of the inputs, where jq's is an error: only
        // `inputs` is jaq's (JQ_COMPAT defines `input` on it).
        .chain(
            jaq_std::input::funs()
                .into_vec()
                .into_iter()
                .filter(|(name, ..)| *name == "inputs")
                .map(jaq_core::native::run),
        )
        .chain(jaq_json::funs().filter(|(name, ..)| !matches!(*name, "tojson" | "fromjson")))
        .chain(log_funs())
        .collect()
}

/// jq's exit statuses (its `main.c`): a result null or false, a system error (bad command
/// line, unreadable file), a compile error, no result, and an uncaught error.
const OK_NULL_KIND: i32 = -1;
const ERROR_SYSTEM: i32 = 2;
const ERROR_COMPILE: i32 = 3;
const OK_NO_OUTPUT: i32 = -4;
const ERROR_UNKNOWN: i32 = 5;

/// `jq [OPTIONS] FILTER [FILE...]`; as `yq` YAML in (`-y` YAML out, `-i` in place), as
/// `tomlq` TOML in (`-t` TOML out).
pub async fn jq(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let tool = argv[0].as_str();
    let wrapper = tool != "jq";
    let a = match args::parse(argv, wrapper) {
        Ok(a) => a,
        Err(Refused(m)) => {
            say(sh, &format!("{m}\n{ADVICE}\n")).await;
            return ERROR_SYSTEM;
        }
    };
    if a.help {
        return emit(sh, &message::usage(false)).await;
    }
    if a.version {
        return emit(sh, "jq-1.7.1\n").await;
    }
    if a.build_configuration {
        return emit(sh, &format!("{BUILD_CONFIGURATION}\n")).await;
    }
    let colors = match sh.var("JQ_COLORS").map(Colors::parse) {
        Some(Some(c)) => c,
        Some(None) => {
            say(sh, "Failed to set $JQ_COLORS\n").await;
            Colors::default()
        }
        None => Colors::default(),
    };
    let layout = Layout {
        indent: a.indent.clone(),
        sort_keys: a.sort_keys,
        ascii: a.ascii,
        colors: (a.color && !a.no_color).then_some(colors),
    };
    // Standard output is never a terminal here, so no filter means `.`, as jq has it then.
    let mut code = a.filter.clone().unwrap_or_else(|| ".".into());
    if a.from_file {
        match read_whole(sh, &code).await {
            Ok(text) => code = skip_shebang(&String::from_utf8_lossy(&text)).to_string(),
            Err(m) => {
                say(sh, &format!("jq: Could not open {code}: {m}\n")).await;
                return ERROR_SYSTEM;
            }
        }
    }
    // `$name`s: the named arguments, then `$ARGS`.
    let mut vars: Vec<(String, Val)> = Vec::new();
    for (name, value) in &a.named {
        let v = match value {
            Named::Value(v) => v.clone(),
            Named::RawFile(f) | Named::SlurpFile(f) => {
                let raw = matches!(value, Named::RawFile(_));
                let which = if raw { "rawfile" } else { "slurpfile" };
                let loaded = match read_whole(sh, f).await {
                    Err(m) => Err(format!("Could not open {f}: {m}")),
                    Ok(text) if raw => Ok(Val::TStr(Box::new(text.into()))),
                    Ok(text) => slurp_file(&text),
                };
                match loaded {
                    Ok(v) => v,
                    Err(m) => {
                        say(sh, &format!("jq: Bad JSON in --{which} {name} {f}: {m}\n")).await;
                        return ERROR_SYSTEM;
                    }
                }
            }
        };
        vars.push((name.clone(), v));
    }
    let mut named = jaq_json::Map::default();
    for (n, v) in &vars {
        named.insert(Val::from(n.clone()), v.clone());
    }
    let mut all = jaq_json::Map::default();
    all.insert(
        Val::from("positional".to_string()),
        Val::Arr(Rc::new(a.positional.clone())),
    );
    all.insert(Val::from("named".to_string()), Val::obj(named));
    vars.push(("ARGS".into(), Val::obj(all)));
    vars.push((
        "__loc__".into(),
        Val::obj(
            [
                (
                    Val::from("file".to_string()),
                    Val::from("<top-level>".to_string()),
                ),
                (Val::from("line".to_string()), Val::from(1isize)),
            ]
            .into_iter()
            .collect(),
        ),
    ));
    let mut env = jaq_json::Map::default();
    for (k, v) in sh.environment() {
        env.insert(Val::from(k), Val::from(v));
    }
    vars.push(("ENV".into(), Val::obj(env)));
    // Parse and compile.
    let names: Vec<String> = vars.iter().map(|(n, _)| format!("${n}")).collect();
    let arena = Arena::default();
    // Destructuring alternatives (`?//`) in a form jaq parses (see destructure.rs).
    if let Some(text) = destructure::rewrite(&code) {
        code = text;
    }
    let program = File {
        code: code.as_str(),
        path: (),
    };
    // Updates through null are jq's (see rewrite.rs); the program as written is loaded first,
    // for its own errors, and kept when the rewritten one does not compile.
    let rewritten = rewrite::program(&code);
    let modules = match Loader::new(jq_defs()).load(&arena, program) {
        Ok(m) => m,
        Err(errors) => {
            let text = message::syntax_errors(&code, &errors);
            say(sh, &text).await;
            return ERROR_COMPILE;
        }
    };
    let mut filter = match Compiler::default()
        .with_funs(jq_funs())
        .with_global_vars(names.iter().map(String::as_str))
        .compile(modules)
    {
        Ok(f) => f,
        Err(errors) => {
            let text = message::undefined(&code, &errors);
            say(sh, &text).await;
            return ERROR_COMPILE;
        }
    };
    if let Some(text) = &rewritten {
        let file = File {
            code: text.as_str(),
            path: (),
        };
        let compiled = Loader::new(jq_defs()).load(&arena, file).map(|m| {
            Compiler::default()
                .with_funs(jq_funs())
                .with_global_vars(names.iter().map(String::as_str))
                .compile(m)
        });
        if let Ok(Ok(f)) = compiled {
            filter = f;
        }
    }
    let run = Run {
        a: &a,
        layout: &layout,
        vars: vars.into_iter().map(|(_, v)| v).collect(),
        output: if a.toml_output {
            Format::Toml
        } else if a.yaml_output {
            Format::Yaml
        } else {
            Format::Json
        },
        position: RefCell::new(None),
        tail: RefCell::new(None),
        over_reads: std::cell::Cell::new(0),
        written: std::cell::Cell::new(0),
        log: Log {
            text: RefCell::new(Vec::new()),
            layout: Layout {
                indent: None,
                ..layout.clone()
            },
        },
    };
    let input_format = match tool {
        "yq" => Format::Yaml,
        "tomlq" => Format::Toml,
        _ => Format::Json,
    };
    let mut files = a.files.clone();
    if files.is_empty() {
        files.push("-".into());
    }
    if a.in_place {
        return in_place(sh, &run, &filter, &files, input_format).await;
    }
    // With -n the inputs are read only for `input` and `inputs`, so that `jq -n 1` does not
    // wait on a standard input no one closes.
    let (events, tail) = if a.null_input && !code.contains("input") {
        (Vec::new(), None)
    } else {
        match read_events(sh, &files, &a, input_format, tool).await {
            Ok(e) => e,
            Err(status) => return status,
        }
    };
    run.tail.replace(tail);
    let mut out = Writer::new(&sh.io().stdout);
    let status = run
        .main_loop(sh, &filter, events, &mut Sink::Out(&mut out))
        .await;
    if let Err(Stop(s)) = out.flush().await {
        return s;
    }
    status
}

/// Writes to standard output; its status.
async fn emit(sh: &dyn Context, text: &str) -> i32 {
    let mut out = Writer::new(&sh.io().stdout);
    match out.write(text.as_bytes()).await.and(out.flush().await) {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

/// Writes to standard error as it is.
async fn say(sh: &dyn Context, text: &str) {
    let _ = sh.io().stderr.write_all(text.as_bytes()).await;
}

/// A whole file (`-` is standard input); the error is the system's message.
async fn read_whole(sh: &dyn Context, name: &str) -> Result<Vec<u8>, String> {
    let input = open(sh, name).map_err(|m| {
        m.strip_prefix(&format!("{name}: "))
            .map_or(m.clone(), str::to_string)
    })?;
    read_all_limited(&input, MEMORY_LIMIT, "jq").await
}

/// `--slurpfile`'s array of the file's JSON texts.
fn slurp_file(text: &[u8]) -> Result<Val, String> {
    let mut events = Vec::new();
    let how = Reading {
        raw: false,
        stream: false,
    };
    input::read_text("", text, &how, &mut events);
    let mut values = Vec::new();
    for e in events {
        match e {
            Event::Value(v, _) => values.push(v),
            Event::OpenFailed(m) | Event::ParseError(m) => return Err(m),
        }
    }
    Ok(Val::Arr(Rc::new(values)))
}

/// jq's `skip_shebang`: a `#!` line (continued by a `\` line) before a `-f` program.
fn skip_shebang(p: &str) -> &str {
    if !p.starts_with("#!") {
        return p;
    }
    let Some(n) = p.find('\n') else { return p };
    if !p[n + 1..].starts_with('#') {
        return p;
    }
    let Some(m) = p[n + 1..].find('\n').map(|i| n + 1 + i) else {
        return p;
    };
    let next = p[m + 1..].chars().next();
    if matches!(next, Some('#') | None) || !p[..m].ends_with('\\') || p[..m].ends_with("\\\\") {
        return p;
    }
    match p[m + 1..].find('\n') {
        Some(k) => &p[m + 1 + k + 1..],
        None => p,
    }
}

/// Every input file's events, read as the options ask; `-s` makes them one.
async fn read_events(
    sh: &dyn Context,
    files: &[String],
    a: &Args,
    format: Format,
    tool: &str,
) -> Result<(Vec<Event>, Option<Tail>), i32> {
    let how = Reading {
        raw: a.raw_input,
        stream: a.stream,
    };
    let mut events = Vec::new();
    // `-Rs`: all the text is one string.
    let mut text = Vec::new();
    let mut last_position: Rc<str> = "<unknown>".into();
    let mut tail = None;
    for f in files {
        let data = match open(sh, f) {
            Ok(input) => match read_all_limited(&input, MEMORY_LIMIT, tool).await {
                Ok(d) => d,
                Err(m) => {
                    say(sh, &format!("{m}\n")).await;
                    return Err(ERROR_SYSTEM);
                }
            },
            Err(m) => {
                let m = m.strip_prefix(&format!("{f}: ")).unwrap_or(&m).to_string();
                events.push(Event::OpenFailed(format!(
                    "{tool}: error: Could not open file {f}: {m}"
                )));
                continue;
            }
        };
        let name = if f == "-" { "<stdin>" } else { f.as_str() };
        last_position = format!("{name}:{}", data.iter().filter(|&&b| b == b'\n').count()).into();
        tail = Some(Tail {
            position: last_position.clone(),
            keeps: data.is_empty() || data.ends_with(b"\n"),
        });
        if format != Format::Json {
            match parse_documents(&data, format) {
                Ok(docs) => events.extend(
                    docs.into_iter()
                        .map(|d| Event::Value(d, "<stdin>:0".into())),
                ),
                Err(e) => {
                    say(sh, &format!("{tool}: Error running jq: {e}\n")).await;
                    return Err(1);
                }
            }
            continue;
        }
        if a.raw_input && a.slurp {
            text.extend_from_slice(&data);
            continue;
        }
        if !input::read_text(f, &data, &how, &mut events) {
            break;
        }
    }
    if a.raw_input && a.slurp {
        events.push(Event::Value(
            Val::TStr(Box::new(text.into())),
            last_position,
        ));
    } else if a.slurp {
        // The values make one array; the first parse error (or a file that did not open)
        // stays where it was.
        let mut values = Vec::new();
        let mut rest = Vec::new();
        let mut broken = false;
        for e in events {
            match e {
                Event::Value(v, _) if !broken => values.push(v),
                Event::Value(..) => {}
                Event::ParseError(m) => {
                    broken = true;
                    rest.push(Event::ParseError(m));
                }
                e => rest.push(e),
            }
        }
        if !broken {
            rest.push(Event::Value(Val::Arr(Rc::new(values)), last_position));
        }
        events = rest;
    }
    Ok((events, tail))
}

/// Where jq says it is once the inputs are used up: reading on past the end closes the last
/// file (`<unknown>`), except the first time when the text ended with a newline (or was
/// empty), as jq's line reader meets the end one read later.
struct Tail {
    position: Rc<str>,
    keeps: bool,
}

/// Where results go: standard output, or a buffer (`yq -i`).
enum Sink<'a> {
    Out(&'a mut Writer),
    Buffer(&'a mut Vec<u8>),
}

impl Sink<'_> {
    async fn put(&mut self, text: &[u8]) -> Result<(), Stop> {
        match self {
            Sink::Out(w) => w.write(text).await,
            Sink::Buffer(b) => {
                b.extend_from_slice(text);
                Ok(())
            }
        }
    }
}

/// `yq -i`: each file replaced by the results of its own documents.
async fn in_place(
    sh: &dyn Context,
    run: &Run<'_>,
    filter: &Compiled,
    files: &[String],
    format: Format,
) -> i32 {
    let tool = if format == Format::Toml {
        "tomlq"
    } else {
        "yq"
    };
    if files.iter().any(|f| f == "-") {
        say(
            sh,
            &format!("{tool}: -i/--in-place can only be used with filenames\n"),
        )
        .await;
        return 1;
    }
    let mut status = 0;
    for f in files {
        run.written.set(0);
        let data = match read_whole(sh, f).await {
            Ok(d) => d,
            Err(m) => {
                say(
                    sh,
                    &format!("{tool}: error: Could not open file {f}: {m}\n"),
                )
                .await;
                return 1;
            }
        };
        let docs = match parse_documents(&data, format) {
            Ok(d) => d,
            Err(e) => {
                say(sh, &format!("{tool}: Error running jq: {e}\n")).await;
                return 1;
            }
        };
        let events = docs
            .into_iter()
            .map(|d| Event::Value(d, "<stdin>:0".into()))
            .collect();
        let mut text = Vec::new();
        let s = run
            .main_loop(sh, filter, events, &mut Sink::Buffer(&mut text))
            .await;
        if let Err(e) = std::fs::write(sh.path(f), &text) {
            say(
                sh,
                &format!("{tool}: {f}: {}\n", shell_base::errno::io_message(&e)),
            )
            .await;
            return 1;
        }
        status = status.max(s);
    }
    status
}

/// The data jq's filters run with: their definitions, and the documents that `input` and
/// `inputs` take from the same stream the filter's own inputs come from.
struct WithInputs;

impl data::DataT for WithInputs {
    type V<'a> = Val;
    type Data<'a> = Data<'a>;
}

#[derive(Clone)]
struct Data<'a> {
    lut: &'a jaq_core::Lut<WithInputs>,
    inputs: Inputs<'a, Val>,
    /// What `stderr`, `debug` and `halt_error` write, passed on after each result.
    log: &'a Log,
    /// Where the last input taken came from (`data.json:3`), for `input_filename`.
    position: &'a RefCell<Option<Rc<str>>>,
}

/// Standard error's text from the filter, and how `debug` lays out its values.
struct Log {
    text: RefCell<Vec<u8>>,
    layout: Layout,
}

/// `stderr`, `debug` and `halt_error`'s message, written as jq writes them.
fn log_funs() -> impl Iterator<Item = jaq_core::native::Fun<WithInputs>> {
    fn log<'a>(
        cv: jaq_core::Cv<'a, WithInputs>,
        f: fn(&Log, &Val, &mut Vec<u8>),
    ) -> jaq_core::ValXs<'a, Val> {
        let (ctx, v) = cv;
        let log = ctx.data().log;
        f(log, &v, &mut log.text.borrow_mut());
        Box::new(std::iter::empty())
    }
    let funs: [jaq_core::native::Filter<jaq_core::RunPtr<WithInputs>>; 8] = [
        // What a `catch` is given: jaq's words for its errors made jq's.
        ("_jq_caught", jaq_core::native::v(0), |cv| {
            let v = match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => {
                    let text = String::from_utf8_lossy(s);
                    let words = message::jq_words(&text);
                    if words == text {
                        cv.1.clone()
                    } else {
                        Val::from(words)
                    }
                }
                v => v.clone(),
            };
            Box::new(std::iter::once(Ok(v)))
        }),
        // jq's `builtins`: `name/arity` of every filter a program can call.
        ("builtins", jaq_core::native::v(0), |_| {
            let defs = jq_defs().map(|d| (d.name, d.args.len()));
            let funs = jq_funs()
                .into_iter()
                .map(|(name, args, _)| (name, args.len()));
            let mut names: Vec<String> = defs
                .chain(funs)
                .filter(|(name, _)| !name.starts_with(['_', '@']) && !name.ends_with("_empty"))
                .map(|(name, arity)| format!("{name}/{arity}"))
                .collect();
            names.sort();
            names.dedup();
            let list = names.into_iter().map(Val::from).collect();
            Box::new(std::iter::once(Ok(Val::Arr(Rc::new(list)))))
        }),
        // jq's reader, with its depth limit and its messages.
        ("fromjson", jaq_core::native::v(0), |cv| {
            let result = match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => {
                    input::from_json(s).map_err(|m| jaq_core::Exn::from(jaq_core::Error::str(m)))
                }
                v => Err(jaq_core::Exn::from(jaq_core::Error::typ(
                    v.clone(),
                    "string",
                ))),
            };
            Box::new(std::iter::once(result))
        }),
        // jq's text of a value: its numbers as jq prints them (`1E+1000`, `1.0`).
        ("tojson", jaq_core::native::v(0), |cv| {
            let mut out = Vec::new();
            print::dump(&mut out, &print::Layout::compact(), &cv.1);
            let text = Val::TStr(Box::new(out.into()));
            Box::new(std::iter::once(Ok(text)))
        }),
        ("input_position", jaq_core::native::v(0), |cv| {
            let position = cv.0.data().position.borrow().clone();
            let v = match position.as_deref().and_then(|p| p.rsplit_once(':')) {
                None => Val::Null,
                Some((name, line)) => {
                    let name = Val::from(name.to_string());
                    let line = Val::from(line.parse::<isize>().unwrap_or(0));
                    Val::Arr(Rc::new(vec![name, line]))
                }
            };
            Box::new(std::iter::once(Ok(v)))
        }),
        ("stderr_empty", jaq_core::native::v(0), |cv| {
            log(cv, |_, v, out| match v {
                Val::TStr(s) | Val::BStr(s) => out.extend_from_slice(s),
                v => print::dump(out, &print::Layout::compact(), v),
            })
        }),
        ("debug_empty", jaq_core::native::v(0), |cv| {
            log(cv, |log, v, out| {
                let line = Val::Arr(Rc::new(vec![Val::from("DEBUG:".to_string()), v.clone()]));
                print::dump(out, &log.layout, &line);
                out.push(b'\n');
            })
        }),
        ("halt_error_message", jaq_core::native::v(0), |cv| {
            log(cv, |_, v, out| match v {
                Val::TStr(s) | Val::BStr(s) => out.extend_from_slice(s),
                Val::Null => {}
                v => {
                    print::dump(out, &print::Layout::compact(), v);
                    out.push(b'\n');
                }
            })
        }),
    ];
    funs.into_iter().map(jaq_core::native::run::<WithInputs>)
}

impl<'a> data::HasLut<'a, WithInputs> for Data<'a> {
    fn lut(&self) -> &'a jaq_core::Lut<WithInputs> {
        self.lut
    }
}

impl<'a> HasInputs<'a, Val> for Data<'a> {
    fn inputs(&self) -> Inputs<'a, Val> {
        self.inputs
    }
}

type Compiled = jaq_core::compile::Filter<jaq_core::Native<WithInputs>>;

/// One run of the filter over the inputs, as jq's `main` and `process` run it.
struct Run<'r> {
    a: &'r Args,
    layout: &'r Layout,
    vars: Vec<Val>,
    output: Format,
    /// Where the last input taken came from (`data.json:3`); `None` before the first.
    position: RefCell<Option<Rc<str>>>,
    tail: RefCell<Option<Tail>>,
    /// Results written so far (YAML puts `---` between documents).
    written: std::cell::Cell<usize>,
    /// How often the inputs were asked for past their end.
    over_reads: std::cell::Cell<u32>,
    log: Log,
}

/// How one input's run ended: jq's `ret`, and whether `halt` stopped everything.
struct Processed {
    ret: i32,
    halted: bool,
}

impl Run<'_> {
    /// Writes what the filter sent to standard error so far.
    async fn pass_log(&self, sh: &dyn Context) {
        let text = std::mem::take(&mut *self.log.text.borrow_mut());
        if !text.is_empty() {
            let _ = sh.io().stderr.write_all(&text).await;
        }
    }

    /// Runs the filter on each input (once on null with `-n`); jq's exit status.
    async fn main_loop(
        &self,
        sh: &dyn Context,
        filter: &Compiled,
        events: Vec<Event>,
        sink: &mut Sink<'_>,
    ) -> i32 {
        // Open failures are reported when reading reaches them; a parse error ends the
        // inputs, whether the main loop or `input` meets it.
        let failures = std::cell::Cell::new(0);
        let parse_error: RefCell<Option<String>> = RefCell::new(None);
        let pending: RefCell<Vec<String>> = RefCell::new(Vec::new());
        let events = RefCell::new(events.into_iter());
        let next_value = || -> Option<Val> {
            loop {
                let Some(event) = events.borrow_mut().next() else {
                    self.over_reads.set(self.over_reads.get() + 1);
                    if let Some(t) = &*self.tail.borrow() {
                        let keep = t.keeps && self.over_reads.get() == 1;
                        *self.position.borrow_mut() = Some(if keep {
                            t.position.clone()
                        } else {
                            "<unknown>".into()
                        });
                    }
                    return None;
                };
                match event {
                    Event::Value(v, pos) => {
                        *self.position.borrow_mut() = Some(pos);
                        return Some(v);
                    }
                    Event::OpenFailed(m) => {
                        failures.set(failures.get() + 1);
                        pending.borrow_mut().push(m);
                    }
                    Event::ParseError(m) => {
                        *parse_error.borrow_mut() = Some(m);
                        return None;
                    }
                }
            }
        };
        let stream: Box<dyn Iterator<Item = Result<Val, String>> + '_> =
            Box::new(std::iter::from_fn(|| next_value().map(Ok)));
        let stream = RcIter::new(stream);
        let stream: Inputs<'_, Val> = &stream;
        let mut ret = OK_NO_OUTPUT;
        // -1: no result yet; 0: the last was null or false; 1: another.
        let mut last_result = -1;
        if self.a.null_input {
            let p = self.process(sh, filter, Val::Null, stream, sink).await;
            ret = p.ret;
        } else {
            loop {
                if failures.get() > 0 {
                    break;
                }
                let next = stream.into_iter().next();
                let messages: Vec<String> = pending.borrow_mut().drain(..).collect();
                for m in messages {
                    say(sh, &format!("{m}\n")).await;
                }
                let Some(Ok(v)) = next else {
                    let parse_error = parse_error.borrow_mut().take();
                    if let Some(m) = parse_error {
                        say(sh, &format!("jq: parse error: {m}\n")).await;
                        ret = ERROR_UNKNOWN;
                    }
                    break;
                };
                let p = self.process(sh, filter, v, stream, sink).await;
                ret = p.ret;
                if ret == i32::MIN {
                    return 141;
                }
                if ret <= 0 && ret != OK_NO_OUTPUT {
                    last_result = i32::from(ret != OK_NULL_KIND);
                }
                if p.halted {
                    break;
                }
            }
        }
        let messages: Vec<String> = pending.borrow_mut().drain(..).collect();
        for m in messages {
            say(sh, &format!("{m}\n")).await;
        }
        if ret == i32::MIN {
            return 141;
        }
        if failures.get() > 0 {
            ret = ERROR_SYSTEM;
        }
        if self.a.exit_status {
            if ret != OK_NO_OUTPUT {
                return ret.abs();
            }
            return match last_result {
                -1 => 4,
                0 => 1,
                _ => 0,
            };
        }
        ret.max(0)
    }

    /// jq's `process`: the filter's results on one input, written; the error that ended
    /// it reported. `ret` is `i32::MIN` when the output's reader has gone.
    async fn process(
        &self,
        sh: &dyn Context,
        filter: &Compiled,
        input: Val,
        stream: Inputs<'_, Val>,
        sink: &mut Sink<'_>,
    ) -> Processed {
        let a = self.a;
        let mut ret = OK_NO_OUTPUT;
        let data = Data {
            lut: &filter.lut,
            inputs: stream,
            log: &self.log,
            position: &self.position,
        };
        let ctx = Ctx::<WithInputs>::new(data, Vars::new(self.vars.iter().cloned()));
        for result in filter.id.run((ctx, input)) {
            self.pass_log(sh).await;
            let v = match result {
                Ok(v) => v,
                Err(e) => {
                    // Standard error is not buffered and standard output is, as jq's: an
                    // error comes before the results that preceded it, unless 64 KiB of
                    // them had been written.
                    self.pass_log(sh).await;
                    let e = match e.get_halt() {
                        Ok(code) => {
                            return Processed {
                                ret: code,
                                halted: true,
                            };
                        }
                        Err(e) => e,
                    };
                    let position = self
                        .position
                        .borrow()
                        .clone()
                        .unwrap_or_else(|| "<unknown>".into());
                    say(sh, &message::uncaught(&e, &position)).await;
                    return Processed {
                        ret: ERROR_UNKNOWN,
                        halted: false,
                    };
                }
            };
            let mut text = Vec::new();
            match (&v, self.output) {
                (_, Format::Yaml | Format::Toml) => {
                    match write_document(&v, self.output, self.written.get() == 0) {
                        Ok(t) => text = t.into_bytes(),
                        Err(e) => {
                            say(sh, &format!("yq: Error running jq: {e}\n")).await;
                            ret = 1;
                            continue;
                        }
                    }
                }
                (Val::TStr(s), _) if a.raw => {
                    if a.ascii {
                        print::string(&mut text, s, true);
                    } else if a.nul && s.contains(&0) {
                        let position = self
                            .position
                            .borrow()
                            .clone()
                            .unwrap_or_else(|| "<unknown>".into());
                        say(
                            sh,
                            &format!("jq: error (at {position}): Cannot dump a string containing NUL with --raw-output0 option\n"),
                        )
                        .await;
                        return Processed {
                            ret: ERROR_UNKNOWN,
                            halted: false,
                        };
                    } else {
                        text.extend_from_slice(s);
                    }
                }
                _ => {
                    if a.seq {
                        text.push(0x1e);
                    }
                    print::dump(&mut text, self.layout, &v);
                }
            }
            ret = match (&v, a.raw) {
                (Val::TStr(_), true) => 0,
                (Val::Null | Val::Bool(false), _) => OK_NULL_KIND,
                _ => 0,
            };
            if !a.no_newline && self.output == Format::Json {
                text.push(b'\n');
            }
            if a.nul {
                text.push(0);
            }
            self.written.set(self.written.get() + 1);
            if sink.put(&text).await.is_err() {
                return Processed {
                    ret: i32::MIN,
                    halted: true,
                };
            }
        }
        self.pass_log(sh).await;
        Processed { ret, halted: false }
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn compat_definitions_parse() {
        assert!(jaq_core::load::parse(super::JQ_COMPAT, |p| p.defs()).is_some());
    }

    #[test]
    fn deep_and_bad_json_are_jq_errors() {
        use crate::testing::Native;
        let deep = "[".repeat(100_000);
        let ran = Native::new().run(&["jq", "."], &deep);
        assert_eq!(ran.status, 5);
        assert_eq!(
            ran.stderr,
            "jq: parse error: Exceeds depth limit for parsing at line 1, column 257\n"
        );
        let ran = Native::new().run(&["jq", "-n", "--argjson", "v", &deep, "$v"], "");
        assert_eq!(ran.status, 2, "{}", ran.stderr);
        let ran = Native::new().run(&["jq", "-n", "\"x\" | fromjson"], "");
        assert_eq!(
            ran.stderr,
            "jq: error (at <unknown>): Invalid numeric literal at EOF at line 1, column 1 (while parsing 'x')\n"
        );
        let ran = Native::new().run(&["jq", "-c", "fromjson"], &format!("{:?}", deep));
        assert_eq!(ran.status, 5, "{}", ran.stderr);
    }

    #[test]
    fn filters_json() {
        assert_eq!(
            stdout_of(&["jq", ".a"], "{\"a\": [1, 2]}"),
            "[\n  1,\n  2\n]\n"
        );
        assert_eq!(stdout_of(&["jq", "-c", "map(. * 2)"], "[1,2]"), "[2,4]\n");
        assert_eq!(stdout_of(&["jq", "-r", ".[]"], "[\"x\"]"), "x\n");
    }

    #[test]
    fn input_and_inputs_share_the_stream() {
        assert_eq!(
            stdout_of(&["jq", "-c", "[., input]"], "1 2 3 4"),
            "[1,2]\n[3,4]\n"
        );
        assert_eq!(stdout_of(&["jq", "-nc", "[inputs]"], "1 2 3"), "[1,2,3]\n");
        assert_eq!(stdout_of(&["jq", "-n", "input"], "5 6"), "5\n");
        let none = crate::testing::Native::new().run(&["jq", "-n", "input"], "");
        assert_eq!(none.status, 5);
        assert!(none.stderr.contains("): break"), "{}", none.stderr);
        assert_eq!(
            stdout_of(&["jq", "-nc", "reduce inputs as $x (0; . + $x)"], "1 2 3"),
            "6\n"
        );
    }
}
