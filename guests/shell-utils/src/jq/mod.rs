//! `jq` over jaq (jaq-core, jaq-std, jaq-json): filters, paths and the standard library,
//! with jq's options `-r -j -c -n -s -R -e -S --tab --indent N --arg --argjson --args
//! --jsonargs` (and `$ARGS`), and jq 1.6's
//! output layout. `yq` and `tomlq` (the jq wrappers Debian ships as `yq`) run the same
//! filters over YAML and TOML documents (see `yaml.rs`).

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};
use shell_base::args::{parser, plain, string, value};

use crate::stream::{MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open, read_all_limited};
mod yaml;

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::errno::io_message;
use yaml::{Format, parse_documents, write_document};

struct Options {
    raw: bool,
    join: bool,
    compact: bool,
    null_input: bool,
    slurp: bool,
    /// `-R`: each line of input is a string (with `-s`, all of it is one).
    raw_input: bool,
    exit_status: bool,
    sort_keys: bool,
    indent: String,
    vars: Vec<(String, Val)>,
    /// What the inputs are, and what the results are written as.
    input: Format,
    output: Format,
    /// `yq -i`: each file is replaced by the results of its own documents.
    in_place: bool,
}

/// jq 1.6 filters that jaq lacks, defined in jq itself.
const JQ_COMPAT: &str = r#"
def @csv: if type != "array" then error("\(type) (\(tojson)) cannot be csv-formatted, only an array can be")
  else map(if type == "string" then "\"" + gsub("\""; "\"\"") + "\""
    elif type == "number" or type == "boolean" then tostring
    elif . == null then ""
    else error("\(type) (\(tojson)) is not valid in a csv row") end) | join(",") end;
def @tsv: if type != "array" then error("\(type) (\(tojson)) cannot be tsv-formatted, only an array can be")
  else map(if type == "string" then gsub("\\\\"; "\\\\") | gsub("\t"; "\\t") | gsub("\n"; "\\n") | gsub("\r"; "\\r")
    elif . == null then "" else tostring end) | join("\t") end;
def input: label $out | (inputs | ., break $out), error("No more inputs");
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def fromstream(f): {x: null, e: false} as $init
  | foreach f as $i ($init;
      if .e then $init else . end
      | if $i | length == 2
        then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
        else setpath(["e"]; $i[0] | length == 1) end;
      if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input | if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;
"#;

fn jq_compat_defs() -> impl Iterator<Item = jaq_core::load::parse::Def<&'static str>> {
    jaq_core::load::parse(JQ_COMPAT, |p| p.defs())
        .unwrap_or_default()
        .into_iter()
}

/// `jq [OPTIONS] FILTER [FILE...]`; as `yq` YAML in (`-y` YAML out, `-i` in place), as
/// `tomlq` TOML in (`-t` TOML out).
pub async fn jq(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let tool = argv[0].as_str();
    let wrapper = tool != "jq";
    let input = match tool {
        "yq" => Format::Yaml,
        "tomlq" => Format::Toml,
        _ => Format::Json,
    };
    let mut o = Options {
        raw: false,
        join: false,
        compact: false,
        null_input: false,
        slurp: false,
        raw_input: false,
        exit_status: false,
        sort_keys: false,
        indent: "  ".into(),
        vars: Vec::new(),
        input,
        output: Format::Json,
        in_place: false,
    };
    let mut filter: Option<String> = None;
    let mut files = Vec::new();
    let usage = "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq";
    // `--arg NAME VALUE` and `--argjson NAME JSON`, in order.
    let mut args: Vec<(bool, String, String)> = Vec::new();
    // After `--args` (strings) or `--jsonargs` (JSON texts), operands past the filter are
    // `$ARGS.positional`, not files.
    let mut positional_kind: Option<bool> = None;
    let mut positional: Vec<String> = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('r') | Long("raw-output") => o.raw = true,
                Short('j') | Long("join-output") => (o.raw, o.join) = (true, true),
                Short('c') | Long("compact-output") => o.compact = true,
                Short('n') | Long("null-input") => o.null_input = true,
                Short('s') | Long("slurp") => o.slurp = true,
                Short('R') | Long("raw-input") => o.raw_input = true,
                Long("args") => positional_kind = Some(false),
                Long("jsonargs") => positional_kind = Some(true),
                Short('e') | Long("exit-status") => o.exit_status = true,
                Short('S') | Long("sort-keys") => o.sort_keys = true,
                // Never a terminal, so never colours; output is UTF-8 either way.
                Short('M' | 'C' | 'a')
                | Long("monochrome-output" | "color-output" | "ascii-output") => {}
                Short('y' | 'Y') | Long("yaml-output" | "yaml-roundtrip") if wrapper => {
                    o.output = Format::Yaml
                }
                Short('t') | Long("toml-output") if wrapper => o.output = Format::Toml,
                Short('i') | Long("in-place") if wrapper => o.in_place = true,
                Long("indentless-lists" | "indentless") if wrapper => {}
                Short('w') | Long("width") if wrapper => {
                    p.value()?;
                }
                Long("tab") => o.indent = "\t".into(),
                Long("indent") => {
                    let n: usize = value(&mut p)?.parse().unwrap_or(2);
                    o.indent = " ".repeat(n.min(7));
                }
                Long(name @ ("arg" | "argjson")) => {
                    let json = name == "argjson";
                    let (Ok(name), Ok(v)) = (value(&mut p), value(&mut p)) else {
                        let a = if json { "--argjson" } else { "--arg" };
                        return Err(plain(format!(
                            "error: {a} takes two parameters (e.g. {a} varname value)"
                        )));
                    };
                    args.push((json, name, v));
                }
                Value(v) if filter.is_none() => filter = Some(string(v)),
                Value(v) if positional_kind.is_some() => positional.push(string(v)),
                Value(v) => files.push(string(v)),
                Short(c) => return Err(plain(format!("Unknown option: -{c}"))),
                Long(l) => return Err(plain(format!("Unknown option: --{l}"))),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return complain(sh, &format!("jq: {e}\n{usage}")).await + 1;
    }
    let json_arg = |text: &str| jaq_json::read::parse_single(text.as_bytes()).ok();
    let mut named = jaq_json::Map::default();
    let mut listed = Vec::new();
    for text in positional {
        if positional_kind == Some(true) {
            let Some(v) = json_arg(&text) else {
                return complain(
                    sh,
                    &format!("jq: Invalid JSON text passed to --jsonargs\n{usage}"),
                )
                .await
                    + 1;
            };
            listed.push(v);
        } else {
            listed.push(Val::from(text));
        }
    }
    for (json, name, value) in args {
        let v = if !json {
            Val::from(value)
        } else {
            match jaq_json::read::parse_single(value.as_bytes()) {
                Ok(v) => v,
                Err(_) => {
                    return complain(
                        sh,
                        &format!("jq: Invalid JSON text passed to --argjson\n{usage}"),
                    )
                    .await
                        + 1;
                }
            }
        };
        named.insert(Val::from(name.clone()), v.clone());
        o.vars.push((name, v));
    }
    let mut all = jaq_json::Map::default();
    all.insert(
        Val::from("positional".to_string()),
        Val::Arr(std::rc::Rc::new(listed)),
    );
    all.insert(Val::from("named".to_string()), Val::obj(named));
    o.vars.push(("ARGS".into(), Val::obj(all)));
    let Some(code) = filter else {
        return complain(
            sh,
            &format!("Usage:\tjq [OPTIONS] FILTER [FILES...]\n{usage}"),
        )
        .await
            + 1;
    };
    // Parse and compile.
    let names: Vec<String> = o.vars.iter().map(|(n, _)| format!("${n}")).collect();
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .chain(jq_compat_defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        // jaq's `input` gives nothing at the end of the inputs, where jq's is an error: only
        // `inputs` is jaq's (JQ_COMPAT defines `input` on it).
        .chain(
            jaq_std::input::funs()
                .into_vec()
                .into_iter()
                .filter(|(name, ..)| *name == "inputs")
                .map(jaq_core::native::run),
        )
        .chain(jaq_json::funs());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let program = File {
        code: code.as_str(),
        path: (),
    };
    let modules = match loader.load(&arena, program) {
        Ok(m) => m,
        Err(_) => {
            return complain(
                sh,
                &format!("jq: error: syntax error in the filter: {code}\njq: 1 compile error"),
            )
            .await
                + 2;
        }
    };
    let filter = match Compiler::default()
        .with_funs(funs)
        .with_global_vars(names.iter().map(String::as_str))
        .compile(modules)
    {
        Ok(f) => f,
        Err(_) => {
            return complain(
                sh,
                &format!("jq: error: cannot compile the filter: {code}\njq: 1 compile error"),
            )
            .await
                + 2;
        }
    };
    // With -n the inputs are read only for `input` and `inputs`, so that `jq -n 1` does not
    // wait on a standard input no one closes.
    let files = if o.null_input && !o.slurp && !code.contains("input") {
        Vec::new()
    } else {
        files_or_stdin(files)
    };
    let mut out = Writer::new(&sh.io().stdout);
    if o.in_place {
        if files.iter().any(|f| f == "-") {
            return complain(
                sh,
                &format!("{tool}: -i/--in-place can only be used with filenames"),
            )
            .await
                + 1;
        }
        let mut status = 0;
        for f in &files {
            let docs = match read_documents(sh, f, &o, tool).await {
                Ok(d) => d,
                Err(m) => return complain(sh, &m).await + 1,
            };
            let mut text = Vec::new();
            let s = run_filter(sh, &filter, &o, docs, &mut Sink::Buffer(&mut text)).await;
            if let Err(e) = std::fs::write(sh.path(f), &text) {
                return complain(sh, &format!("{tool}: {f}: {}", io_message(&e))).await + 1;
            }
            status = status.max(s);
        }
        return status;
    }
    let mut docs = Vec::new();
    for f in &files {
        match read_documents(sh, f, &o, tool).await {
            Ok(d) => docs.extend(d),
            // jq says 2 for unreadable input; the wrappers 1.
            Err(m) => return complain(sh, &m).await + i32::from(!wrapper),
        }
    }
    if o.raw_input && o.slurp {
        // `-Rs`: every input's text as one string.
        let mut text = Vec::new();
        for d in &docs {
            if let Val::TStr(b) = d {
                text.extend_from_slice(b);
            }
        }
        docs = vec![Val::TStr(Box::new(text.into()))];
    }
    let status = run_filter(sh, &filter, &o, docs, &mut Sink::Out(&mut out)).await;
    if let Err(Stop(s)) = out.flush().await {
        return s;
    }
    status
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

/// The documents of one input, read as the tool reads them.
async fn read_documents(
    sh: &dyn Context,
    f: &str,
    o: &Options,
    tool: &str,
) -> Result<Vec<Val>, String> {
    let input = open(sh, f).map_err(|m| format!("{tool}: error: Could not open file {m}"))?;
    let data = read_all_limited(&input, MEMORY_LIMIT, tool).await?;
    if o.raw_input {
        if o.slurp {
            return Ok(vec![Val::TStr(Box::new(data.into()))]);
        }
        let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        if data.ends_with(b"\n") || data.is_empty() {
            lines.pop();
        }
        return Ok(lines
            .into_iter()
            .map(|l| Val::TStr(Box::new(l.to_vec().into())))
            .collect());
    }
    if o.input != Format::Json {
        return parse_documents(&data, o.input)
            .map_err(|e| format!("{tool}: Error running jq: {e}"));
    }
    jaq_json::read::parse_many(&data)
        .map(|v| v.map_err(|e| format!("jq: error (at {f}): cannot parse JSON: {e}")))
        .collect()
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

/// Runs the compiled filter over the documents, writing each result; the status.
async fn run_filter(
    sh: &dyn Context,
    filter: &jaq_core::compile::Filter<jaq_core::Native<WithInputs>>,
    o: &Options,
    docs: Vec<Val>,
    sink: &mut Sink<'_>,
) -> i32 {
    // With -n the filter runs once, on null, and `inputs` has every document; otherwise each
    // document the filter has not taken with `input` is the next run's.
    let (first, docs): (Option<Val>, Vec<Val>) = if o.slurp && !o.raw_input {
        (Some(Val::Arr(std::rc::Rc::new(docs))), Vec::new())
    } else if o.null_input && !o.slurp {
        (Some(Val::Null), docs)
    } else if o.null_input {
        (Some(Val::Null), Vec::new())
    } else {
        (None, docs)
    };
    let once = first.is_some();
    let stream = RcIter::new(docs.into_iter().map(Ok));
    let stream: Inputs<'_, Val> = &stream;
    let mut next = first;
    let mut last: Option<Val> = None;
    let mut status = 0;
    let mut count = 0;
    let pp = jaq_json::write::Pp {
        indent: if o.compact {
            None
        } else {
            Some(o.indent.clone())
        },
        sort_keys: o.sort_keys,
        // jq puts a space after `:` when it indents.
        sep_space: !o.compact,
        ..Default::default()
    };
    let mut runs = 0;
    while let Some(input) = next.take().or_else(|| stream.into_iter().next()?.ok()) {
        runs += 1;
        if once && runs > 1 {
            break;
        }
        let data = Data {
            lut: &filter.lut,
            inputs: stream,
        };
        let ctx = Ctx::<WithInputs>::new(data, Vars::new(o.vars.iter().map(|(_, v)| v.clone())));
        for result in filter.id.run((ctx, input)) {
            match result {
                Ok(v) => {
                    let mut text = Vec::new();
                    match (&v, o.output) {
                        (_, Format::Yaml | Format::Toml) => {
                            match write_document(&v, o.output, count == 0) {
                                Ok(t) => text = t.into_bytes(),
                                Err(e) => {
                                    let _ = sink.put(b"").await;
                                    complain(sh, &format!("{}: Error running jq: {e}", "yq")).await;
                                    status = 1;
                                    continue;
                                }
                            }
                        }
                        (Val::TStr(s), _) if o.raw => text.extend_from_slice(s),
                        _ => {
                            let _ = jaq_json::write::write(&mut text, &pp, 0, &v);
                        }
                    }
                    if !o.join && o.output == Format::Json {
                        text.push(b'\n');
                    }
                    count += 1;
                    if let Err(Stop(s)) = sink.put(&text).await {
                        return s;
                    }
                    last = Some(v);
                }
                Err(e) => {
                    let e = match e.get_halt() {
                        Ok(code) => return code,
                        Err(e) => e,
                    };
                    let msg = match e.get_err() {
                        Ok(err) => format!("{err}"),
                        Err(_) => "error".to_string(),
                    };
                    if let Sink::Out(w) = sink
                        && let Err(Stop(s)) = w.flush().await
                    {
                        return s;
                    }
                    complain(sh, &format!("jq: error (at <stdin>:0): {msg}")).await;
                    status = 5;
                }
            }
        }
    }
    if status != 0 {
        return status;
    }
    if o.exit_status {
        return match last {
            None => 4,
            Some(Val::Null) | Some(Val::Bool(false)) => 1,
            Some(_) => 0,
        };
    }
    0
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

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
        assert!(none.stderr.contains("No more inputs"), "{}", none.stderr);
        assert_eq!(
            stdout_of(&["jq", "-nc", "reduce inputs as $x (0; . + $x)"], "1 2 3"),
            "6\n"
        );
    }
}
