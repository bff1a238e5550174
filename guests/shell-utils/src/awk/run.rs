//! Running a parsed program: variables and arrays, the record and its fields, statements
//! and expressions. Evaluation is async because `getline`, `print` and `system` go through
//! the shell's streams (pipes to other pipeline stages).

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use indexmap::IndexMap;

use super::ast::{special::*, *};
use super::format::sprintf;
use super::records::{FieldSep, RecordReader, RecordSep, compile};
use super::value::Value;
use crate::stream::{Stop, Writer};
use shell_base::Context;
use shell_base::errno::io_message;
use shell_base::io::{Input, Io, Output};

pub type Array = IndexMap<String, Value>;

/// A variable's storage.
#[derive(Clone, Default)]
pub(super) enum Cell {
    #[default]
    Uninit,
    Scalar(Value),
    Array(Rc<RefCell<Array>>),
    /// A parameter given an unused variable: becomes an array (shared with the caller) or a
    /// scalar by how the function uses it.
    Untyped(Rc<RefCell<Array>>),
}

/// Why evaluation stopped early.
pub enum Jump {
    Next,
    NextFile,
    Exit,
    Return(Value),
    Break,
    Continue,
    /// A fatal error: the message (awk exits 2).
    Fatal(String),
    /// Output could not be written (a closed pipe: 141).
    Stop(i32),
}

impl From<Stop> for Jump {
    fn from(s: Stop) -> Jump {
        Jump::Stop(s.0)
    }
}

pub(super) type Task<'a, T> = Pin<Box<dyn Future<Output = Result<T, Jump>> + 'a>>;

pub(super) fn fatal<T>(msg: impl Into<String>) -> Result<T, Jump> {
    Err(Jump::Fatal(msg.into()))
}

/// Where `print` output goes, by the name in the program.
enum Sink {
    Stdout,
    Stderr,
    File(std::io::BufWriter<std::fs::File>),
    /// `print | "cmd"`: collected, and fed to the command when closed.
    Pipe(Vec<u8>),
}

/// An input opened by `getline < file` or `cmd | getline` (with the command's status).
struct Source {
    reader: RecordReader,
    status: i32,
}

/// A resolved assignable place.
pub(super) enum Place {
    Var(Var),
    Field(usize),
    Element(Rc<RefCell<Array>>, String),
}

/// Most fields a record may be given by assigning `$n` or NF.
const MAX_FIELDS: usize = 1_000_000;

fn check_field_count(n: usize) -> Result<(), Jump> {
    if n > MAX_FIELDS {
        return fatal(format!(
            "field {n} is beyond awk's limit of {MAX_FIELDS} fields per record"
        ));
    }
    Ok(())
}

/// Deepest nesting of user function calls.
pub(super) const MAX_CALL_DEPTH: usize = 300;

pub struct Machine<'p, 's, 'b> {
    pub(super) prog: &'p Program,
    pub sh: &'s mut (dyn Context + 'b),
    pub(super) globals: Vec<Cell>,
    pub(super) frames: Vec<Vec<Cell>>,
    pub(super) record: String,
    /// The fields as where they are in `record` (until one is assigned: then `fields`).
    pub(super) spans: Vec<(usize, usize)>,
    pub(super) fields: Vec<String>,
    /// Whether `fields` holds the fields (else `spans` does).
    pub(super) owned: bool,
    pub(super) split_done: bool,
    pub(super) field_sep: Option<(String, bool, FieldSep)>,
    pub(super) record_sep: Option<(String, Rc<RecordSep>)>,
    // Kept in step with their variables (read for every conversion and print).
    pub(super) convfmt: String,
    pub(super) ofmt: String,
    pub(super) ofs: String,
    pub(super) ors: String,
    pub(super) subsep: String,
    /// Regexes are shared (`Rc`), never cloned: a cloned `Regex` starts with an empty cache,
    /// which costs more than a search.
    pub(super) literals: Vec<Rc<regex::Regex>>,
    pub(super) dynamic: HashMap<String, Rc<regex::Regex>>,
    pub out: Writer,
    outputs: IndexMap<String, Sink>,
    inputs: HashMap<String, Source>,
    pub(super) main: Option<RecordReader>,
    pub(super) next_arg: usize,
    pub(super) opened_operand: bool,
    /// Whether each rule's range pattern is open.
    pub ranges: Vec<bool>,
    pub status: i32,
    /// What a local refers to outside any function (never, by construction).
    pub(super) spare: Cell,
    /// Whether any of the program ran (errors then name its line).
    pub(super) ran_code: bool,
    /// Set when an error comes from opening the next input file.
    pub(super) between_records: bool,
    pub(super) seed: f64,
    pub(super) rand_state: u64,
}

impl<'p, 's, 'b> Machine<'p, 's, 'b> {
    pub fn new(prog: &'p Program, sh: &'s mut (dyn Context + 'b)) -> Result<Self, String> {
        let literals = prog
            .regexes
            .iter()
            .map(|r| compile(r).map(Rc::new))
            .collect::<Result<Vec<_>, _>>()?;
        let out = Writer::new(&sh.io().stdout);
        let mut m = Machine {
            prog,
            sh,
            globals: vec![Cell::Uninit; prog.globals.len()],
            frames: Vec::new(),
            record: String::new(),
            spans: Vec::new(),
            fields: Vec::new(),
            owned: false,
            split_done: true,
            field_sep: None,
            record_sep: None,
            convfmt: String::new(),
            ofmt: String::new(),
            ofs: String::new(),
            ors: String::new(),
            subsep: String::new(),
            literals,
            dynamic: HashMap::new(),
            out,
            outputs: IndexMap::new(),
            inputs: HashMap::new(),
            main: None,
            next_arg: 1,
            opened_operand: false,
            ranges: vec![false; prog.rules.len()],
            status: 0,
            ran_code: false,
            spare: Cell::Uninit,
            between_records: false,
            seed: 0.0,
            rand_state: 0x2545_f491_4f6c_dd1d,
        };
        for (slot, value) in [
            (FS, " "),
            (OFS, " "),
            (ORS, "\n"),
            (RS, "\n"),
            (SUBSEP, "\x1c"),
            (CONVFMT, "%.6g"),
            (OFMT, "%.6g"),
            (FILENAME, ""),
        ] {
            m.set_global(slot, Value::Str(value.into()));
        }
        for slot in [NR, FNR, RSTART] {
            m.set_global(slot, Value::Num(0.0));
        }
        m.set_global(RLENGTH, Value::Num(-1.0));
        let environ: Array =
            m.sh.environment()
                .into_iter()
                .map(|(k, v)| (k, Value::StrNum(v)))
                .collect();
        m.globals[ENVIRON] = Cell::Array(Rc::new(RefCell::new(environ)));
        Ok(m)
    }

    /// Sets ARGV and ARGC: `awk` and the operands.
    pub fn set_args(&mut self, operands: &[String]) {
        let mut argv = Array::new();
        argv.insert("0".into(), Value::Str("awk".into()));
        for (i, a) in operands.iter().enumerate() {
            argv.insert((i + 1).to_string(), Value::StrNum(a.clone()));
        }
        self.globals[ARGV] = Cell::Array(Rc::new(RefCell::new(argv)));
        self.set_global(ARGC, Value::Num((operands.len() + 1) as f64));
    }

    /// Assigns a variable by name (`-v` and `var=value` operands); unknown names are unused.
    pub fn assign_by_name(&mut self, name: &str, value: Value) -> Result<(), Jump> {
        if let Some(slot) = self.prog.globals.iter().position(|g| g == name) {
            self.set_var(Var::Global(slot), value)?;
        }
        Ok(())
    }

    // ---- variables ----

    pub(super) fn set_global(&mut self, slot: usize, value: Value) {
        match slot {
            CONVFMT => self.convfmt = value.to_str("%.6g").into_owned(),
            OFMT => self.ofmt = value.to_str("%.6g").into_owned(),
            OFS => self.ofs = value.to_str(&self.convfmt).into_owned(),
            ORS => self.ors = value.to_str(&self.convfmt).into_owned(),
            SUBSEP => self.subsep = value.to_str(&self.convfmt).into_owned(),
            // The current record keeps the separator it was read with.
            FS | RS => self.split_fields(),
            _ => {}
        }
        self.globals[slot] = Cell::Scalar(value);
    }

    pub(super) fn cell(&mut self, var: Var) -> &mut Cell {
        match var {
            Var::Global(i) => &mut self.globals[i],
            // The parser makes locals only inside function bodies, which run in a frame; the
            // spare cell keeps a broken invariant from being a crash.
            Var::Local(i) => match self.frames.last_mut().and_then(|f| f.get_mut(i)) {
                Some(cell) => cell,
                None => &mut self.spare,
            },
        }
    }

    pub(super) fn var_name(&self, var: Var) -> String {
        match var {
            Var::Global(i) => self.prog.globals[i].clone(),
            Var::Local(i) => format!("parameter #{}", i + 1),
        }
    }

    pub(super) fn get_var(&mut self, var: Var) -> Result<Value, Jump> {
        if var == Var::Global(NF) {
            return Ok(Value::Num(self.field_count() as f64));
        }
        match self.cell(var) {
            Cell::Uninit | Cell::Untyped(_) => Ok(Value::Uninit),
            Cell::Scalar(v) => Ok(v.clone()),
            Cell::Array(_) => fatal(format!(
                "attempt to use array `{}' in a scalar context",
                self.var_name(var)
            )),
        }
    }

    pub(super) fn set_var(&mut self, var: Var, value: Value) -> Result<(), Jump> {
        match var {
            Var::Global(NF) => self.set_nf(value.to_num()),
            Var::Global(slot) if slot < special::NAMES.len() => {
                if let Cell::Array(_) = self.globals[slot] {
                    return fatal(format!(
                        "attempt to use array `{}' in a scalar context",
                        self.var_name(var)
                    ));
                }
                self.set_global(slot, value);
                Ok(())
            }
            _ => {
                let cell = self.cell(var);
                if let Cell::Array(_) = cell {
                    return fatal(format!(
                        "attempt to use array `{}' in a scalar context",
                        self.var_name(var)
                    ));
                }
                *cell = Cell::Scalar(value);
                Ok(())
            }
        }
    }

    pub(super) fn array(&mut self, var: Var) -> Result<Rc<RefCell<Array>>, Jump> {
        let cell = self.cell(var);
        match cell {
            Cell::Array(a) => Ok(Rc::clone(a)),
            Cell::Untyped(a) => {
                let a = Rc::clone(a);
                *cell = Cell::Array(Rc::clone(&a));
                Ok(a)
            }
            Cell::Uninit => {
                let a = Rc::new(RefCell::new(Array::new()));
                *cell = Cell::Array(Rc::clone(&a));
                Ok(a)
            }
            Cell::Scalar(_) => fatal(format!(
                "attempt to use scalar `{}' as an array",
                self.var_name(var)
            )),
        }
    }

    pub(super) fn is_array(&mut self, var: Var) -> bool {
        matches!(self.cell(var), Cell::Array(_))
    }

    // ---- the record ----

    /// Makes `text` the record ($0), split when a field is next read.
    pub fn set_record(&mut self, text: String) {
        self.record = text;
        self.split_done = false;
        self.owned = false;
    }

    pub(super) fn split_fields(&mut self) {
        if self.split_done {
            return;
        }
        self.split_done = true;
        self.owned = false;
        self.spans.clear();
        let paragraph = matches!(&self.globals[RS], Cell::Scalar(v) if v.to_str("%.6g").is_empty());
        let stale = {
            let fs = match &self.globals[FS] {
                Cell::Scalar(v) => v.to_str(&self.convfmt),
                _ => " ".into(),
            };
            !matches!(&self.field_sep, Some((f, p, _)) if *f == fs && *p == paragraph)
        };
        if stale {
            let fs = match &self.globals[FS] {
                Cell::Scalar(v) => v.to_str(&self.convfmt).into_owned(),
                _ => " ".into(),
            };
            // An invalid FS regex splits nothing (gawk stops at the assignment instead).
            let sep = FieldSep::new(&fs, paragraph).unwrap_or(FieldSep::Chars);
            self.field_sep = Some((fs, paragraph, sep));
        }
        if let Some((_, _, sep)) = &self.field_sep {
            sep.split_ranges(&self.record, &mut self.spans);
        }
    }

    /// NF.
    pub(super) fn field_count(&mut self) -> usize {
        self.split_fields();
        if self.owned {
            self.fields.len()
        } else {
            self.spans.len()
        }
    }

    /// Makes the fields owned strings (before one of them changes).
    fn own_fields(&mut self) {
        self.split_fields();
        if !self.owned {
            self.fields.clear();
            let record = &self.record;
            self.fields
                .extend(self.spans.iter().map(|(a, b)| record[*a..*b].to_string()));
            self.owned = true;
        }
    }

    pub(super) fn get_field(&mut self, i: usize) -> Value {
        if i == 0 {
            return Value::StrNum(self.record.clone());
        }
        self.split_fields();
        let field = if self.owned {
            self.fields.get(i - 1).cloned()
        } else {
            self.spans
                .get(i - 1)
                .map(|(a, b)| self.record[*a..*b].to_string())
        };
        match field {
            Some(f) => Value::StrNum(f),
            None => Value::Uninit,
        }
    }

    pub(super) fn set_field(&mut self, i: usize, text: String) -> Result<(), Jump> {
        if i == 0 {
            self.set_record(text);
            return Ok(());
        }
        check_field_count(i)?;
        self.own_fields();
        if self.fields.len() < i {
            self.fields.resize(i, String::new());
        }
        self.fields[i - 1] = text;
        self.rebuild_record();
        Ok(())
    }

    pub(super) fn set_nf(&mut self, n: f64) -> Result<(), Jump> {
        let n = n.max(0.0) as usize;
        check_field_count(n)?;
        self.own_fields();
        self.fields.resize(n, String::new());
        self.rebuild_record();
        Ok(())
    }

    pub(super) fn rebuild_record(&mut self) {
        self.record = self.fields.join(&self.ofs);
    }

    pub(super) fn field_index(&self, v: &Value) -> Result<usize, Jump> {
        let n = v.to_num();
        if n < 0.0 {
            return fatal(format!("attempt to access field {}", n as i64));
        }
        Ok(n as usize)
    }

    // ---- regexes ----

    pub(super) fn regex_of<'x>(&'x mut self, e: &'p Expr) -> Task<'x, Rc<regex::Regex>> {
        Box::pin(async move {
            if let Expr::Regex(i) = e {
                return Ok(Rc::clone(&self.literals[*i]));
            }
            let text = self.operand(e).await?.into_string(&self.convfmt);
            self.dynamic_regex(&text)
        })
    }

    pub(super) fn dynamic_regex(&mut self, text: &str) -> Result<Rc<regex::Regex>, Jump> {
        if let Some(re) = self.dynamic.get(text) {
            return Ok(Rc::clone(re));
        }
        let re = Rc::new(compile(text).map_err(Jump::Fatal)?);
        if self.dynamic.len() > 1000 {
            self.dynamic.clear();
        }
        self.dynamic.insert(text.to_string(), Rc::clone(&re));
        Ok(re)
    }

    // ---- statements ----

    pub fn exec_block<'x>(&'x mut self, body: &'p [Stmt]) -> Task<'x, ()> {
        self.ran_code = true;
        Box::pin(async move {
            for s in body {
                // Expression statements (most of them) skip a boxed `exec`.
                match s {
                    Stmt::Expr(e) => {
                        self.operand(e).await?;
                    }
                    other => self.exec(other).await?,
                }
            }
            Ok(())
        })
    }

    pub(super) fn exec<'x>(&'x mut self, s: &'p Stmt) -> Task<'x, ()> {
        Box::pin(async move {
            match s {
                Stmt::Expr(e) => {
                    self.operand(e).await?;
                }
                Stmt::Print(args, dest) => {
                    let mut text = String::new();
                    if args.is_empty() {
                        text.push_str(&self.record);
                    }
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            text.push_str(&self.ofs);
                        }
                        let v = self.operand(a).await?;
                        text.push_str(&v.to_str(&self.ofmt));
                    }
                    text.push_str(&self.ors);
                    self.output(dest, text.as_bytes()).await?;
                }
                Stmt::Printf(args, dest) => {
                    if args.is_empty() {
                        return fatal("printf: no arguments");
                    }
                    let text = self.format(args).await?;
                    self.output(dest, text.as_bytes()).await?;
                }
                Stmt::If(cond, then, other) => {
                    if self.operand(cond).await?.is_true() {
                        self.exec(then).await?;
                    } else if let Some(other) = other {
                        self.exec(other).await?;
                    }
                }
                Stmt::While(cond, body) => {
                    while self.operand(cond).await?.is_true() {
                        if self.loop_body(body).await? {
                            break;
                        }
                    }
                }
                Stmt::Do(body, cond) => loop {
                    if self.loop_body(body).await? || !self.operand(cond).await?.is_true() {
                        break;
                    }
                },
                Stmt::For(init, cond, step, body) => {
                    if let Some(init) = init {
                        self.exec(init).await?;
                    }
                    loop {
                        if let Some(cond) = cond
                            && !self.operand(cond).await?.is_true()
                        {
                            break;
                        }
                        if self.loop_body(body).await? {
                            break;
                        }
                        if let Some(step) = step {
                            self.exec(step).await?;
                        }
                    }
                }
                Stmt::ForIn(key, array, body) => {
                    let keys: Vec<String> = self.array(*array)?.borrow().keys().cloned().collect();
                    for k in keys {
                        self.set_var(*key, Value::StrNum(k))?;
                        if self.loop_body(body).await? {
                            break;
                        }
                    }
                }
                Stmt::Block(body) => self.exec_block(body).await?,
                Stmt::Next => return Err(Jump::Next),
                Stmt::NextFile => return Err(Jump::NextFile),
                Stmt::Exit(code) => {
                    if let Some(code) = code {
                        self.status = self.operand(code).await?.to_num() as i32;
                    }
                    return Err(Jump::Exit);
                }
                Stmt::Return(value) => {
                    let v = match value {
                        Some(v) => self.operand(v).await?,
                        None => Value::Uninit,
                    };
                    return Err(Jump::Return(v));
                }
                Stmt::Break => return Err(Jump::Break),
                Stmt::Continue => return Err(Jump::Continue),
                Stmt::Delete(var, subscripts) => {
                    let array = self.array(*var)?;
                    match subscripts {
                        Some(subs) => {
                            let key = self.subscript(subs).await?;
                            array.borrow_mut().swap_remove(&key);
                        }
                        None => array.borrow_mut().clear(),
                    }
                }
            }
            Ok(())
        })
    }

    /// Runs a loop body; `true` when the loop should stop (`break`).
    pub(super) async fn loop_body(&mut self, body: &'p Stmt) -> Result<bool, Jump> {
        match self.exec(body).await {
            Ok(()) | Err(Jump::Continue) => Ok(false),
            Err(Jump::Break) => Ok(true),
            Err(other) => Err(other),
        }
    }

    pub(super) async fn format(&mut self, args: &'p [Expr]) -> Result<String, Jump> {
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.operand(a).await?);
        }
        let fmt = values[0].to_str(&self.convfmt).into_owned();
        sprintf(&fmt, &values[1..], &self.convfmt).map_err(Jump::Fatal)
    }

    pub(super) async fn output(
        &mut self,
        dest: &'p Option<(Redirect, Expr)>,
        data: &[u8],
    ) -> Result<(), Jump> {
        let Some((mode, target)) = dest else {
            return Ok(self.out.write(data).await?);
        };
        let name = self.operand(target).await?.into_string(&self.convfmt);
        if !self.outputs.contains_key(&name) {
            let sink = match (mode, name.as_str()) {
                (Redirect::Pipe, _) => Sink::Pipe(Vec::new()),
                (_, "/dev/stdout" | "-") => Sink::Stdout,
                (_, "/dev/stderr") => Sink::Stderr,
                _ => {
                    let path = self.sh.path(&name);
                    let file = if *mode == Redirect::Append {
                        std::fs::OpenOptions::new()
                            .append(true)
                            .create(true)
                            .open(&path)
                    } else {
                        std::fs::File::create(&path)
                    };
                    match file {
                        Ok(f) => Sink::File(std::io::BufWriter::new(f)),
                        Err(e) => {
                            return fatal(format!(
                                "can't redirect to `{name}' ({})",
                                io_message(&e)
                            ));
                        }
                    }
                }
            };
            self.outputs.insert(name.clone(), sink);
        }
        match self.outputs.get_mut(&name) {
            Some(Sink::Stdout) => self.out.write(data).await?,
            Some(Sink::Stderr) => {
                self.out.flush().await?;
                let _ = self.sh.io().stderr.write_all(data).await;
            }
            Some(Sink::File(f)) => {
                use std::io::Write;
                if let Err(e) = f.write_all(data) {
                    return fatal(format!("write to `{name}' failed ({})", io_message(&e)));
                }
            }
            Some(Sink::Pipe(buf)) => {
                if buf.len() + data.len() > crate::stream::MEMORY_LIMIT {
                    return fatal(format!(
                        "output to pipe `{name}' larger than the {} MiB awk holds in memory",
                        crate::stream::MEMORY_LIMIT >> 20
                    ));
                }
                buf.extend_from_slice(data);
            }
            None => {}
        }
        Ok(())
    }

    /// Closes an output or input by name; the command's status for pipes, -1 if not open.
    pub(super) async fn close(&mut self, name: &str) -> Result<i32, Jump> {
        if let Some(sink) = self.outputs.shift_remove(name) {
            return self.close_sink(name, sink).await;
        }
        if let Some(source) = self.inputs.remove(name) {
            return Ok(source.status);
        }
        Ok(-1)
    }

    async fn close_sink(&mut self, name: &str, sink: Sink) -> Result<i32, Jump> {
        match sink {
            Sink::File(mut f) => {
                use std::io::Write;
                Ok(if f.flush().is_ok() { 0 } else { -1 })
            }
            Sink::Pipe(data) => {
                self.out.flush().await?;
                let stdout = self.sh.io().stdout.clone();
                Ok(self.run_shell(name, Input::bytes(data), stdout).await)
            }
            Sink::Stdout => {
                self.out.flush().await?;
                Ok(0)
            }
            Sink::Stderr => Ok(0),
        }
    }

    /// Flushes and closes every output (at exit).
    pub async fn close_all(&mut self) -> Result<(), Jump> {
        while let Some((name, sink)) = self.outputs.shift_remove_index(0) {
            self.close_sink(&name, sink).await?;
        }
        self.out.flush().await?;
        Ok(())
    }

    /// Runs `cmd` in a subshell with these streams; its status.
    pub(super) async fn run_shell(&mut self, cmd: &str, stdin: Input, stdout: Output) -> i32 {
        let io = Io {
            stdin,
            stdout,
            ..self.sh.io().clone()
        };
        self.sh.run_script(cmd, io).await
    }

    // ---- input ----

    pub(super) fn record_sep(&mut self) -> Result<Rc<RecordSep>, Jump> {
        {
            let rs = match &self.globals[RS] {
                Cell::Scalar(v) => v.to_str(&self.convfmt),
                _ => "\n".into(),
            };
            if let Some((cached, sep)) = &self.record_sep
                && *cached == rs
            {
                return Ok(Rc::clone(sep));
            }
        }
        let rs = match &self.globals[RS] {
            Cell::Scalar(v) => v.to_str(&self.convfmt).into_owned(),
            _ => "\n".into(),
        };
        let sep = Rc::new(RecordSep::new(&rs).map_err(Jump::Fatal)?);
        self.record_sep = Some((rs, Rc::clone(&sep)));
        Ok(sep)
    }

    /// The next record of the main input (the operands, or stdin), or `None` at the end.
    pub async fn next_main_record(&mut self) -> Result<Option<String>, Jump> {
        loop {
            if self.main.is_none() && !self.open_next_operand().await? {
                return Ok(None);
            }
            let sep = self.record_sep()?;
            let Some(reader) = self.main.as_mut() else {
                return Ok(None);
            };
            match reader.next(&sep).await {
                Ok(Some(record)) => {
                    self.bump(NR);
                    self.bump(FNR);
                    return Ok(Some(record));
                }
                Ok(None) => self.main = None,
                Err(e) => {
                    let name = self.get_var(Var::Global(FILENAME))?.into_string("%.6g");
                    return fatal(format!(
                        "error reading input file `{name}': {}",
                        io_message(&e)
                    ));
                }
            }
        }
    }

    /// How many records the main input gave so far (NR, unless the program set it).
    pub fn records_read(&self) -> f64 {
        match &self.globals[NR] {
            Cell::Scalar(v) => v.to_num(),
            _ => 0.0,
        }
    }

    /// Where an error happened, for its message: `None` before any code ran, then the
    /// input file and record number once a record was read.
    pub fn error_context(&self) -> Option<Option<(String, f64)>> {
        if !self.ran_code {
            return None;
        }
        if self.records_read() == 0.0 || self.between_records {
            return Some(None);
        }
        let scalar = |slot: usize| match &self.globals[slot] {
            Cell::Scalar(v) => v.clone(),
            _ => Value::Uninit,
        };
        let file = scalar(FILENAME).into_string("%.6g");
        let file = if file.is_empty() {
            "-".to_string()
        } else {
            file
        };
        Some(Some((file, scalar(FNR).to_num())))
    }

    /// A rule without an action: prints the record.
    pub async fn print_record(&mut self) -> Result<(), Jump> {
        self.out.write(self.record.as_bytes()).await?;
        self.out.write(self.ors.as_bytes()).await?;
        Ok(())
    }

    /// Ends the current input file (`nextfile`).
    pub fn skip_file(&mut self) {
        self.main = None;
    }

    pub(super) fn bump(&mut self, slot: usize) {
        let n = match &self.globals[slot] {
            Cell::Scalar(v) => v.to_num(),
            _ => 0.0,
        };
        self.globals[slot] = Cell::Scalar(Value::Num(n + 1.0));
    }

    pub(super) async fn open_next_operand(&mut self) -> Result<bool, Jump> {
        loop {
            let argc = self.get_var(Var::Global(ARGC))?.to_num().max(0.0) as usize;
            if self.next_arg >= argc {
                break;
            }
            let i = self.next_arg;
            self.next_arg += 1;
            let arg = {
                let argv = self.array(Var::Global(ARGV))?;
                let argv = argv.borrow();
                match argv.get(&i.to_string()) {
                    Some(v) => v.to_str(&self.convfmt).into_owned(),
                    None => continue,
                }
            };
            if arg.is_empty() {
                continue;
            }
            if let Some((name, value)) = super::operand_assignment(&arg) {
                self.assign_by_name(name, Value::StrNum(value))?;
                continue;
            }
            self.opened_operand = true;
            let input = if arg == "-" || arg == "/dev/stdin" {
                self.sh.io().stdin.clone()
            } else {
                // Open, then ask the open file what it is: one path lookup.
                let file = match std::fs::File::open(self.sh.path(&arg)) {
                    Ok(f) => f,
                    Err(e) => {
                        // Opening is between records: gawk names no input place.
                        self.between_records = true;
                        return fatal(format!(
                            "cannot open file `{arg}' for reading: {}",
                            io_message(&e)
                        ));
                    }
                };
                if file.metadata().is_ok_and(|m| m.is_dir()) {
                    self.out.flush().await?;
                    let warning = format!(
                        "awk: warning: command line argument `{arg}' is a directory: skipped\n"
                    );
                    let _ = self.sh.io().stderr.write_all(warning.as_bytes()).await;
                    continue;
                }
                Input::File(Rc::new(RefCell::new(file)))
            };
            self.set_global(FILENAME, Value::Str(arg));
            self.set_global(FNR, Value::Num(0.0));
            self.main = Some(RecordReader::new(input));
            return Ok(true);
        }
        if self.opened_operand {
            return Ok(false);
        }
        self.opened_operand = true;
        self.main = Some(RecordReader::new(self.sh.io().stdin.clone()));
        Ok(true)
    }

    pub(super) async fn getline(
        &mut self,
        source: &'p super::ast::Source,
        target: &'p Option<Box<Expr>>,
    ) -> Result<Value, Jump> {
        use super::ast::Source as From;
        let record = match source {
            From::Main => match self.next_main_record().await? {
                Some(r) => r,
                None => return Ok(Value::Num(0.0)),
            },
            From::File(name) | From::Command(name) => {
                let name = self.operand(name).await?.into_string(&self.convfmt);
                if !self.inputs.contains_key(&name) {
                    let opened = match source {
                        From::Command(_) => {
                            self.out.flush().await?;
                            let captured = Rc::new(RefCell::new(Vec::new()));
                            let stdin = self.sh.io().stdin.clone();
                            let status = self
                                .run_shell(&name, stdin, Output::Capture(Rc::clone(&captured)))
                                .await;
                            let data = std::mem::take(&mut *captured.borrow_mut());
                            Some(Source {
                                reader: RecordReader::new(Input::bytes(data)),
                                status,
                            })
                        }
                        _ => match crate::stream::open(self.sh, &name) {
                            Ok(input) => Some(Source {
                                reader: RecordReader::new(input),
                                status: 0,
                            }),
                            Err(_) => None,
                        },
                    };
                    let Some(opened) = opened else {
                        return Ok(Value::Num(-1.0));
                    };
                    self.inputs.insert(name.clone(), opened);
                }
                let sep = self.record_sep()?;
                let Some(source) = self.inputs.get_mut(&name) else {
                    return Ok(Value::Num(-1.0));
                };
                match source.reader.next(&sep).await {
                    Ok(Some(r)) => r,
                    Ok(None) => return Ok(Value::Num(0.0)),
                    Err(_) => return Ok(Value::Num(-1.0)),
                }
            }
        };
        // The main input counted NR and FNR already; a file counts nothing.
        if let From::Command(_) = source {
            self.bump(NR);
        }
        match target {
            Some(t) => {
                let place = self.place(t).await?;
                self.assign(place, Value::StrNum(record))?;
            }
            None => self.set_record(record),
        }
        Ok(Value::Num(1.0))
    }

    /// `system(cmd)`: runs the command with awk's streams (output flushed first).
    pub(super) async fn system(&mut self, cmd: &str) -> Result<i32, Jump> {
        self.out.flush().await?;
        let stdin = self.sh.io().stdin.clone();
        let stdout = self.sh.io().stdout.clone();
        Ok(self.run_shell(cmd, stdin, stdout).await)
    }

    /// The next number of `rand()`, in [0, 1) (xorshift64*).
    pub(super) fn random(&mut self) -> f64 {
        let mut x = self.rand_state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rand_state = x;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `srand(seed)`: the previous seed.
    pub(super) fn reseed(&mut self, seed: f64) -> f64 {
        let previous = std::mem::replace(&mut self.seed, seed);
        self.rand_state = seed.to_bits() ^ 0x9e37_79b9_7f4a_7c15;
        if self.rand_state == 0 {
            self.rand_state = 1;
        }
        previous
    }
}
