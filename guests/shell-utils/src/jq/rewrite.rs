//! Where jq's meaning is not jaq's, the program's parsed tree is changed and written back as
//! jq text, fully parenthesized, and loaded instead of the original:
//! - updates through null: jaq refuses `{} | .a.b = 1` (it will not update null, by design)
//!   and does not grow arrays (`.[3] = 1` on `[]`), where jq creates the objects and arrays
//!   on the way. Each `=`, `|=`, `op=` and `//=` becomes a call that runs jaq's own update
//!   first and, only when that fails for one of these two reasons, jq's definition over
//!   `setpath` (`_jq_assign`, `_jq_modify` in the compatibility definitions);
//! - what a `catch` is given goes through `_jq_caught` (jq's words for jaq's errors);
//! - a division whose divisor may be zero refuses it, as jq does (jaq gives infinity);
//! - destructuring alternatives (`?//`, marked by destructure.rs) are expanded.

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::ops::Math;
use jaq_core::path::{Opt, Part, Path};

use super::destructure;

/// The program with jq's meaning where jaq's differs (see above), or `None` when nothing
/// needed changing (or it does not parse).
pub fn program(code: &str) -> Option<String> {
    let term: Term<&str> = jaq_core::load::parse(code, |p| p.term())?;
    let mut found = false;
    let term = transform(term, &mut found);
    if !found {
        return None;
    }
    let mut out = String::new();
    write(&term, &mut out);
    Some(out)
}

type T<'s> = Term<&'s str>;

fn call<'s>(name: &'s str, args: Vec<T<'s>>) -> T<'s> {
    Term::Call(name, args)
}

fn transform<'s>(t: T<'s>, found: &mut bool) -> T<'s> {
    let mut go = |t: T<'s>| transform(t, found);
    match t {
        Term::BinOp(l, BinaryOp::Pipe(Some(p)), r) if destructure::alternatives(&p).is_some() => {
            let alternatives = destructure::alternatives(&p).unwrap_or_default().to_vec();
            let (l, r) = (go(*l), go(*r));
            *found = true;
            destructure::pipe(l, &alternatives, r)
        }
        Term::Fold(kw, xs, p, args) if destructure::alternatives(&p).is_some() => {
            let alternatives = destructure::alternatives(&p).unwrap_or_default().to_vec();
            let (xs, args) = (go(*xs), args.into_iter().map(&mut go).collect());
            *found = true;
            destructure::fold(kw, xs, &alternatives, args)
        }
        Term::BinOp(l, op, r) => {
            let (l, r) = (go(*l), go(*r));
            match op {
                BinaryOp::Assign => {
                    *found = true;
                    call("_jq_assign", vec![l, r])
                }
                BinaryOp::Update => {
                    *found = true;
                    call("_jq_modify", vec![l, r])
                }
                BinaryOp::UpdateMath(m) => {
                    *found = true;
                    let x = Term::Var("$__jq_x");
                    let f = Term::BinOp(Box::new(Term::Id), BinaryOp::Math(m), Box::new(x));
                    bind_then_modify(l, r, f)
                }
                BinaryOp::UpdateAlt => {
                    *found = true;
                    let x = Term::Var("$__jq_x");
                    let f = Term::BinOp(Box::new(Term::Id), BinaryOp::Alt, Box::new(x));
                    bind_then_modify(l, r, f)
                }
                BinaryOp::Math(Math::Div) if !plain_divisor(&r) => {
                    *found = true;
                    checked_division(l, r)
                }
                op => Term::BinOp(Box::new(l), op, Box::new(r)),
            }
        }
        Term::Str(fmt, parts) => Term::Str(
            fmt,
            parts
                .into_iter()
                .map(|p| match p {
                    StrPart::Term(t) => StrPart::Term(go(t)),
                    p => p,
                })
                .collect(),
        ),
        Term::Arr(t) => Term::Arr(t.map(|t| Box::new(go(*t)))),
        Term::Obj(kvs) => Term::Obj(
            kvs.into_iter()
                .map(|(k, v)| (go(k), v.map(&mut go)))
                .collect(),
        ),
        Term::Neg(t) => Term::Neg(Box::new(go(*t))),
        Term::Label(x, t) => Term::Label(x, Box::new(go(*t))),
        Term::Fold(kw, xs, pat, args) => Term::Fold(
            kw,
            Box::new(go(*xs)),
            pat,
            args.into_iter().map(&mut go).collect(),
        ),
        // What a `catch` gets is in jq's words (`_jq_caught`), as an uncaught error's is.
        Term::TryCatch(t, c) => {
            let (t, c) = (go(*t), c.map(|c| go(*c)));
            let c = c.map(|c| {
                *found = true;
                let caught = Box::new(call("_jq_caught", Vec::new()));
                Box::new(Term::BinOp(caught, BinaryOp::Pipe(None), Box::new(c)))
            });
            Term::TryCatch(Box::new(t), c)
        }
        Term::IfThenElse(branches, e) => Term::IfThenElse(
            branches.into_iter().map(|(c, t)| (go(c), go(t))).collect(),
            e.map(|e| Box::new(go(*e))),
        ),
        Term::Def(defs, t) => Term::Def(
            defs.into_iter()
                .map(|d| Def {
                    name: d.name,
                    args: d.args,
                    body: go(d.body),
                })
                .collect(),
            Box::new(go(*t)),
        ),
        Term::Call(name, args) => Term::Call(name, args.into_iter().map(&mut go).collect()),
        Term::Path(t, Path(parts)) => Term::Path(
            Box::new(go(*t)),
            Path(
                parts
                    .into_iter()
                    .map(|(part, opt)| {
                        let part = match part {
                            Part::Index(i) => Part::Index(go(i)),
                            Part::Range(a, b) => Part::Range(a.map(&mut go), b.map(&mut go)),
                        };
                        (part, opt)
                    })
                    .collect(),
            ),
        ),
        t => t,
    }
}

/// A divisor that cannot be zero: a literal string or a number other than 0.
fn plain_divisor(r: &T) -> bool {
    match r {
        Term::Str(..) => true,
        Term::Num(n) => n.parse::<f64>().is_ok_and(|n| n != 0.0),
        _ => false,
    }
}

/// `l / r` refusing a zero divisor as jq does (jaq gives infinity or NaN): `r` is evaluated
/// first, as jq's operators do.
fn checked_division<'s>(l: T<'s>, r: T<'s>) -> T<'s> {
    let (n, d) = (Term::Var("$__jq_n"), Term::Var("$__jq_d"));
    let divide = Term::BinOp(
        Box::new(n.clone()),
        BinaryOp::Math(Math::Div),
        Box::new(d.clone()),
    );
    let body = call("_jq_divide", vec![n, d, divide]);
    let body = Term::BinOp(
        Box::new(l),
        BinaryOp::Pipe(Some(Pattern::Var("$__jq_n"))),
        Box::new(body),
    );
    Term::BinOp(
        Box::new(r),
        BinaryOp::Pipe(Some(Pattern::Var("$__jq_d"))),
        Box::new(body),
    )
}

/// `r as $__jq_x | _jq_modify(l; f)`: the right side is evaluated on the input, as jq does.
fn bind_then_modify<'s>(l: T<'s>, r: T<'s>, f: T<'s>) -> T<'s> {
    Term::BinOp(
        Box::new(r),
        BinaryOp::Pipe(Some(Pattern::Var("$__jq_x"))),
        Box::new(call("_jq_modify", vec![l, f])),
    )
}

fn paren(t: &T, out: &mut String) {
    out.push('(');
    write(t, out);
    out.push(')');
}

fn string(parts: &[StrPart<&str, T>], out: &mut String) {
    out.push('"');
    for p in parts {
        match p {
            StrPart::Str(s) => out.push_str(s),
            StrPart::Char('"') => out.push_str("\\\""),
            StrPart::Char('\\') => out.push_str("\\\\"),
            StrPart::Char(c) if (*c as u32) < 0x20 || *c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", *c as u32));
            }
            StrPart::Char(c) => out.push(*c),
            StrPart::Term(t) => {
                out.push_str("\\(");
                write(t, out);
                out.push(')');
            }
        }
    }
    out.push('"');
}

fn pattern(p: &Pattern<&str>, out: &mut String) {
    match p {
        Pattern::Var(x) => out.push_str(x),
        Pattern::Arr(ps) => {
            out.push('[');
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                pattern(p, out);
            }
            out.push(']');
        }
        Pattern::Obj(entries) => {
            out.push('{');
            for (i, (k, p)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                paren(k, out);
                out.push_str(": ");
                pattern(p, out);
            }
            out.push('}');
        }
    }
}

fn args(ts: &[T], out: &mut String) {
    if ts.is_empty() {
        return;
    }
    out.push('(');
    for (i, t) in ts.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        write(t, out);
    }
    out.push(')');
}

/// The term as jq text, every operand in parentheses.
fn write(t: &T, out: &mut String) {
    match t {
        Term::Id => out.push('.'),
        Term::Recurse => out.push_str(".."),
        Term::Num(n) => out.push_str(n),
        Term::Str(fmt, parts) => {
            if let Some(f) = fmt {
                out.push_str(f);
                out.push(' ');
            }
            string(parts, out);
        }
        Term::Arr(None) => out.push_str("[]"),
        Term::Arr(Some(t)) => {
            out.push('[');
            write(t, out);
            out.push(']');
        }
        Term::Obj(kvs) => {
            out.push('{');
            for (i, (k, v)) in kvs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match (k, v) {
                    (k, Some(v)) => {
                        paren(k, out);
                        out.push_str(": ");
                        paren(v, out);
                    }
                    (k, None) => write(k, out),
                }
            }
            out.push('}');
        }
        Term::Neg(t) => {
            out.push('-');
            paren(t, out);
        }
        Term::BinOp(l, op, r) => {
            paren(l, out);
            match op {
                BinaryOp::Pipe(None) => out.push_str(" | "),
                BinaryOp::Pipe(Some(p)) => {
                    out.push_str(" as ");
                    pattern(p, out);
                    out.push_str(" | ");
                }
                BinaryOp::Comma => out.push_str(", "),
                BinaryOp::Alt => out.push_str(" // "),
                BinaryOp::Or => out.push_str(" or "),
                BinaryOp::And => out.push_str(" and "),
                BinaryOp::Math(m) => out.push_str(&format!(" {} ", m.as_str())),
                BinaryOp::Cmp(c) => out.push_str(&format!(" {} ", c.as_str())),
                BinaryOp::Assign => out.push_str(" = "),
                BinaryOp::Update => out.push_str(" |= "),
                BinaryOp::UpdateMath(m) => out.push_str(&format!(" {}= ", m.as_str())),
                BinaryOp::UpdateAlt => out.push_str(" //= "),
            }
            paren(r, out);
        }
        Term::Label(x, t) => {
            out.push_str("label ");
            out.push_str(x);
            out.push_str(" | ");
            paren(t, out);
        }
        Term::Break(x) => {
            out.push_str("break ");
            out.push_str(x);
        }
        Term::Fold(kw, xs, pat, fold_args) => {
            out.push_str(kw);
            out.push(' ');
            paren(xs, out);
            out.push_str(" as ");
            pattern(pat, out);
            out.push(' ');
            args(fold_args, out);
        }
        Term::TryCatch(t, c) => {
            out.push_str("try ");
            paren(t, out);
            if let Some(c) = c {
                out.push_str(" catch ");
                paren(c, out);
            }
        }
        Term::IfThenElse(branches, e) => {
            for (i, (c, t)) in branches.iter().enumerate() {
                out.push_str(if i == 0 { "if " } else { " elif " });
                paren(c, out);
                out.push_str(" then ");
                paren(t, out);
            }
            if let Some(e) = e {
                out.push_str(" else ");
                paren(e, out);
            }
            out.push_str(" end");
        }
        Term::Def(defs, t) => {
            for d in defs {
                out.push_str("def ");
                out.push_str(d.name);
                if !d.args.is_empty() {
                    out.push('(');
                    out.push_str(&d.args.join("; "));
                    out.push(')');
                }
                out.push_str(": ");
                write(&d.body, out);
                out.push_str("; ");
            }
            write(t, out);
        }
        Term::Call(name, call_args) => {
            out.push_str(name);
            args(call_args, out);
        }
        Term::Var(x) => out.push_str(x),
        Term::Path(t, Path(parts)) => {
            paren(t, out);
            for (part, opt) in parts {
                match part {
                    Part::Index(i) => {
                        out.push('[');
                        write(i, out);
                        out.push(']');
                    }
                    Part::Range(a, b) => {
                        out.push('[');
                        if let Some(a) = a {
                            paren(a, out);
                        }
                        if a.is_some() || b.is_some() {
                            out.push(':');
                        }
                        if let Some(b) = b {
                            paren(b, out);
                        }
                        out.push(']');
                    }
                }
                if let Opt::Optional = opt {
                    out.push('?');
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::program as rewrite;

    #[test]
    fn updates_become_calls_and_the_rest_is_kept() {
        assert_eq!(rewrite(".a | .b"), None);
        assert_eq!(
            rewrite(".a.b = 1").as_deref(),
            Some(r#"_jq_assign((.)["a"]["b"]; 1)"#)
        );
        assert_eq!(
            rewrite(r#".x += 2 | "s\n\(.x)""#).as_deref(),
            Some(
                r#"((2) as $__jq_x | (_jq_modify((.)["x"]; (.) + ($__jq_x)))) | ("s\u000a\((.)["x"])")"#
            )
        );
    }
}
