//! The parsed program. Names are resolved while parsing: globals and a function's
//! parameters are slots, user functions are indices.

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Var {
    Global(usize),
    Local(usize),
}

/// The special variables, at fixed global slots.
pub mod special {
    pub const NR: usize = 0;
    pub const NF: usize = 1;
    pub const FNR: usize = 2;
    pub const FS: usize = 3;
    pub const OFS: usize = 4;
    pub const ORS: usize = 5;
    pub const RS: usize = 6;
    pub const SUBSEP: usize = 7;
    pub const CONVFMT: usize = 8;
    pub const OFMT: usize = 9;
    pub const RSTART: usize = 10;
    pub const RLENGTH: usize = 11;
    pub const FILENAME: usize = 12;
    pub const ENVIRON: usize = 13;
    pub const ARGC: usize = 14;
    pub const ARGV: usize = 15;
    pub const NAMES: &[&str] = &[
        "NR", "NF", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT", "OFMT", "RSTART",
        "RLENGTH", "FILENAME", "ENVIRON", "ARGC", "ARGV",
    ];
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
}

/// Where `getline` reads from.
#[derive(Debug)]
pub enum Source {
    /// The main input (the next record).
    Main,
    File(Box<Expr>),
    Command(Box<Expr>),
}

#[derive(Debug)]
pub enum Expr {
    Num(f64),
    Str(String),
    /// A regex literal: as a value, whether it matches `$0`. The index is the program's
    /// table of compiled literals.
    Regex(usize),
    Var(Var),
    Field(Box<Expr>),
    Index(Var, Vec<Expr>),
    In(Vec<Expr>, Var),
    /// `target op= value` (`None`: plain `=`).
    Assign(Box<Expr>, Option<BinOp>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// `a ~ b` (or `!~` when the flag is set).
    Match(bool, Box<Expr>, Box<Expr>),
    Concat(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Plus(Box<Expr>),
    /// `++x`/`x--`...: the target, the step, and whether the new value is the result.
    Incr(Box<Expr>, f64, bool),
    Call(usize, Vec<Expr>),
    Builtin(Builtin, Vec<Expr>),
    Getline(Source, Option<Box<Expr>>),
    /// A parenthesized expression (kept so `print (a) > f` and `(x) in a` parse).
    Group(Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Builtin {
    Length,
    Substr,
    Index,
    Split,
    Sub,
    Gsub,
    Match,
    Sprintf,
    Sin,
    Cos,
    Atan2,
    Exp,
    Log,
    Sqrt,
    Int,
    Rand,
    Srand,
    Tolower,
    Toupper,
    System,
    Close,
    Fflush,
    // gawk's.
    Gensub,
    Asort,
    Asorti,
    Systime,
    Strftime,
    Mktime,
}

impl Builtin {
    pub fn from_name(name: &str) -> Option<Builtin> {
        Some(match name {
            "length" => Builtin::Length,
            "substr" => Builtin::Substr,
            "index" => Builtin::Index,
            "split" => Builtin::Split,
            "sub" => Builtin::Sub,
            "gsub" => Builtin::Gsub,
            "match" => Builtin::Match,
            "sprintf" => Builtin::Sprintf,
            "sin" => Builtin::Sin,
            "cos" => Builtin::Cos,
            "atan2" => Builtin::Atan2,
            "exp" => Builtin::Exp,
            "log" => Builtin::Log,
            "sqrt" => Builtin::Sqrt,
            "int" => Builtin::Int,
            "rand" => Builtin::Rand,
            "srand" => Builtin::Srand,
            "tolower" => Builtin::Tolower,
            "toupper" => Builtin::Toupper,
            "system" => Builtin::System,
            "close" => Builtin::Close,
            "fflush" => Builtin::Fflush,
            "gensub" => Builtin::Gensub,
            "asort" => Builtin::Asort,
            "asorti" => Builtin::Asorti,
            "systime" => Builtin::Systime,
            "strftime" => Builtin::Strftime,
            "mktime" => Builtin::Mktime,
            _ => return None,
        })
    }
}

/// Where `print` output goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Redirect {
    Truncate,
    Append,
    Pipe,
}

#[derive(Debug)]
pub enum Stmt {
    Expr(Expr),
    Print(Vec<Expr>, Option<(Redirect, Expr)>),
    Printf(Vec<Expr>, Option<(Redirect, Expr)>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    Do(Box<Stmt>, Expr),
    For(
        Option<Box<Stmt>>,
        Option<Expr>,
        Option<Box<Stmt>>,
        Box<Stmt>,
    ),
    ForIn(Var, Var, Box<Stmt>),
    Block(Vec<Stmt>),
    Next,
    NextFile,
    Exit(Option<Expr>),
    Return(Option<Expr>),
    Break,
    Continue,
    /// `delete a[i]`, or the whole array without subscripts.
    Delete(Var, Option<Vec<Expr>>),
}

#[derive(Debug)]
pub enum Pattern {
    All,
    Expr(Expr),
    /// `from, to`: the index is the rule's slot for whether the range is open.
    Range(Expr, Expr),
}

#[derive(Debug)]
pub struct Rule {
    pub pattern: Pattern,
    /// `None`: print the record.
    pub action: Option<Vec<Stmt>>,
}

#[derive(Debug)]
pub struct Function {
    pub name: String,
    pub params: usize,
    pub body: Vec<Stmt>,
}

#[derive(Debug, Default)]
pub struct Program {
    pub begin: Vec<Vec<Stmt>>,
    pub rules: Vec<Rule>,
    pub end: Vec<Vec<Stmt>>,
    pub functions: Vec<Function>,
    pub globals: Vec<String>,
    /// Regex literals, by `Expr::Regex` index.
    pub regexes: Vec<String>,
}
