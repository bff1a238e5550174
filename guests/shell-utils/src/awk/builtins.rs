//! The built-in functions: strings (in characters, not bytes), regex substitution, math,
//! random numbers, and `system`/`close`/`fflush`.

use super::ast::{Builtin, Expr, special};
use super::records::FieldSep;
use super::run::{Jump, Machine, fatal};
use super::value::Value;

impl<'p> Machine<'p, '_, '_> {
    pub async fn builtin(&mut self, b: Builtin, args: &'p [Expr]) -> Result<Value, Jump> {
        let arity = |min: usize, max: usize| -> Result<(), Jump> {
            if args.len() < min || args.len() > max {
                return fatal(format!(
                    "{} called with {} argument{}, accepts {}",
                    name(b),
                    args.len(),
                    if args.len() == 1 { "" } else { "s" },
                    if min == max {
                        min.to_string()
                    } else {
                        format!("{min} to {max}")
                    }
                ));
            }
            Ok(())
        };
        match b {
            Builtin::Length => {
                arity(0, 1)?;
                let Some(arg) = args.first() else {
                    return Ok(Value::Num(self.record.chars().count() as f64));
                };
                if let Expr::Var(v) = arg
                    && self.is_array(*v)
                {
                    return Ok(Value::Num(self.array(*v)?.borrow().len() as f64));
                }
                let s = self.operand(arg).await?;
                Ok(Value::Num(s.to_str(&self.convfmt).chars().count() as f64))
            }
            Builtin::Substr => {
                arity(2, 3)?;
                let s = self.operand(&args[0]).await?.into_string(&self.convfmt);
                let start = self.operand(&args[1]).await?.to_num();
                let len = match args.get(2) {
                    Some(n) => Some(self.operand(n).await?.to_num()),
                    None => None,
                };
                Ok(Value::Str(substr(&s, start, len)))
            }
            Builtin::Index => {
                arity(2, 2)?;
                let s = self.operand(&args[0]).await?.into_string(&self.convfmt);
                let t = self.operand(&args[1]).await?.into_string(&self.convfmt);
                let at = match s.find(&t) {
                    Some(i) => s[..i].chars().count() + 1,
                    None => 0,
                };
                Ok(Value::Num(at as f64))
            }
            Builtin::Split => {
                arity(2, 3)?;
                let s = self.operand(&args[0]).await?.into_string(&self.convfmt);
                let Expr::Var(target) = &args[1] else {
                    return fatal("split: second argument is not an array");
                };
                let sep = match args.get(2) {
                    Some(Expr::Regex(i)) => FieldSep::Regex(std::rc::Rc::clone(&self.literals[*i])),
                    Some(e) => {
                        let fs = self.operand(e).await?.into_string(&self.convfmt);
                        if fs.chars().count() > 1 {
                            // A regex: compiled once, from the cache.
                            FieldSep::Regex(self.dynamic_regex(&fs)?)
                        } else {
                            FieldSep::new(&fs, false).map_err(Jump::Fatal)?
                        }
                    }
                    None => {
                        let fs = self.get_var(super::ast::Var::Global(special::FS))?;
                        FieldSep::new(&fs.to_str(&self.convfmt), false).map_err(Jump::Fatal)?
                    }
                };
                let mut parts = Vec::new();
                sep.split(&s, &mut parts);
                let array = self.array(*target)?;
                let mut array = array.borrow_mut();
                array.clear();
                let n = parts.len();
                for (i, p) in parts.into_iter().enumerate() {
                    array.insert((i + 1).to_string(), Value::StrNum(p));
                }
                Ok(Value::Num(n as f64))
            }
            Builtin::Sub | Builtin::Gsub => {
                arity(2, 3)?;
                let re = self.regex_of(&args[0]).await?;
                let replacement = self.operand(&args[1]).await?.into_string(&self.convfmt);
                let place = match args.get(2) {
                    Some(target) => self.place(target).await?,
                    None => super::run::Place::Field(0),
                };
                let text = self.read(&place)?.into_string(&self.convfmt);
                let (result, count) = substitute(&re, &text, &replacement, b == Builtin::Gsub);
                if count > 0 {
                    self.assign(place, Value::Str(result))?;
                }
                Ok(Value::Num(count as f64))
            }
            Builtin::Match => {
                arity(2, 2)?;
                let s = self.operand(&args[0]).await?.into_string(&self.convfmt);
                let re = self.regex_of(&args[1]).await?;
                let (start, len) = match re.find(&s) {
                    Some(m) => (
                        s[..m.start()].chars().count() as f64 + 1.0,
                        m.as_str().chars().count() as f64,
                    ),
                    None => (0.0, -1.0),
                };
                self.set_var(super::ast::Var::Global(special::RSTART), Value::Num(start))?;
                self.set_var(super::ast::Var::Global(special::RLENGTH), Value::Num(len))?;
                Ok(Value::Num(start))
            }
            Builtin::Sprintf => {
                if args.is_empty() {
                    return fatal("sprintf called with no arguments");
                }
                Ok(Value::Str(self.format(args).await?))
            }
            Builtin::Sin
            | Builtin::Cos
            | Builtin::Exp
            | Builtin::Log
            | Builtin::Sqrt
            | Builtin::Int => {
                arity(1, 1)?;
                let x = self.operand(&args[0]).await?.to_num();
                Ok(Value::Num(match b {
                    Builtin::Sin => x.sin(),
                    Builtin::Cos => x.cos(),
                    Builtin::Exp => x.exp(),
                    Builtin::Log => x.ln(),
                    Builtin::Sqrt => x.sqrt(),
                    _ => x.trunc(),
                }))
            }
            Builtin::Atan2 => {
                arity(2, 2)?;
                let y = self.operand(&args[0]).await?.to_num();
                let x = self.operand(&args[1]).await?.to_num();
                Ok(Value::Num(y.atan2(x)))
            }
            Builtin::Rand => {
                arity(0, 0)?;
                Ok(Value::Num(self.random()))
            }
            Builtin::Srand => {
                arity(0, 1)?;
                let seed = match args.first() {
                    Some(e) => self.operand(e).await?.to_num(),
                    None => std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_secs() as f64)
                        .unwrap_or(0.0),
                };
                Ok(Value::Num(self.reseed(seed)))
            }
            Builtin::Tolower | Builtin::Toupper => {
                arity(1, 1)?;
                let s = self.operand(&args[0]).await?.into_string(&self.convfmt);
                Ok(Value::Str(if b == Builtin::Tolower {
                    s.to_lowercase()
                } else {
                    s.to_uppercase()
                }))
            }
            Builtin::System => {
                arity(1, 1)?;
                let cmd = self.operand(&args[0]).await?.into_string(&self.convfmt);
                Ok(Value::Num(self.system(&cmd).await? as f64))
            }
            Builtin::Close => {
                arity(1, 2)?;
                let name = self.operand(&args[0]).await?.into_string(&self.convfmt);
                Ok(Value::Num(self.close(&name).await? as f64))
            }
            Builtin::Fflush => {
                arity(0, 1)?;
                self.out.flush().await?;
                Ok(Value::Num(0.0))
            }
            Builtin::Gensub => {
                arity(3, 4)?;
                let re = self.regex_of(&args[0]).await?;
                let replacement = self.operand(&args[1]).await?.into_string(&self.convfmt);
                let how = self.operand(&args[2]).await?.into_string(&self.convfmt);
                let text = match args.get(3) {
                    Some(t) => self.operand(t).await?.into_string(&self.convfmt),
                    None => self.record.clone(),
                };
                // "g" or "G": every match; else the Nth (a number below 1 counts as 1).
                let which = if how.starts_with(['g', 'G']) {
                    None
                } else {
                    Some(Value::StrNum(how).to_num().max(1.0) as usize)
                };
                Ok(Value::Str(gensub(&re, &text, &replacement, which)))
            }
            Builtin::Asort | Builtin::Asorti => {
                arity(1, 2)?;
                let Expr::Var(source) = &args[0] else {
                    return fatal(format!("{}: first argument not an array", name(b)));
                };
                let dest = match args.get(1) {
                    Some(Expr::Var(d)) => *d,
                    Some(_) => return fatal(format!("{}: second argument not an array", name(b))),
                    None => *source,
                };
                let src = self.array(*source)?;
                let mut items: Vec<Value> = if b == Builtin::Asort {
                    src.borrow().values().cloned().collect()
                } else {
                    src.borrow().keys().map(|k| Value::Str(k.clone())).collect()
                };
                // gawk's order: numbers (by value) before strings (by bytes).
                items.sort_by(|x, y| {
                    sort_key(x)
                        .partial_cmp(&sort_key(y))
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
                let out = self.array(dest)?;
                let mut out = out.borrow_mut();
                out.clear();
                let n = items.len();
                for (i, v) in items.into_iter().enumerate() {
                    out.insert((i + 1).to_string(), v);
                }
                Ok(Value::Num(n as f64))
            }
            Builtin::Systime => {
                arity(0, 0)?;
                Ok(Value::Num(now_secs() as f64))
            }
            Builtin::Strftime => {
                arity(0, 3)?;
                let format = match args.first() {
                    Some(f) => self.operand(f).await?.into_string(&self.convfmt),
                    None => "%a %b %e %H:%M:%S %Z %Y".to_string(),
                };
                let when = match args.get(1) {
                    Some(t) => self.operand(t).await?.to_num() as i64,
                    None => now_secs(),
                };
                Ok(Value::Str(crate::date::format(when, 0, &format)))
            }
            Builtin::Mktime => {
                arity(1, 2)?;
                let spec = self.operand(&args[0]).await?.into_string(&self.convfmt);
                Ok(Value::Num(mktime(&spec).map_or(-1.0, |t| t as f64)))
            }
        }
    }
}

fn name(b: Builtin) -> String {
    format!("{b:?}").to_lowercase()
}

/// `substr` as gawk computes it: positions truncated, a start before 1 counts from 1.
fn substr(s: &str, start: f64, len: Option<f64>) -> String {
    let from = if start.is_nan() {
        1.0
    } else {
        start.trunc().max(1.0)
    };
    let count = match len {
        Some(n) if n.is_nan() || n < 1.0 => return String::new(),
        Some(n) => n.trunc().min(1e15) as usize,
        None => usize::MAX,
    };
    s.chars()
        .skip((from as usize).saturating_sub(1))
        .take(count)
        .collect()
}

/// Replaces the first (or every) match: `&` is the match, `\&` a literal `&`, `\\` a
/// backslash. An empty match right after a replaced match is skipped, as in gawk.
pub fn substitute(
    re: &regex::Regex,
    text: &str,
    replacement: &str,
    global: bool,
) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut pos = 0;
    let mut last_end: Option<usize> = None;
    while pos <= text.len() {
        let Some(m) = re.find_at(text, pos) else {
            break;
        };
        if m.start() == m.end() && last_end == Some(m.start()) {
            // Copy one character and look again after it.
            match text[m.start()..].chars().next() {
                Some(c) => {
                    out.push_str(&text[pos..m.start() + c.len_utf8()]);
                    pos = m.start() + c.len_utf8();
                    continue;
                }
                None => break,
            }
        }
        out.push_str(&text[pos..m.start()]);
        expand_replacement(replacement, m.as_str(), &mut out);
        count += 1;
        last_end = Some(m.end());
        if m.start() == m.end() {
            match text[m.end()..].chars().next() {
                Some(c) => {
                    out.push(c);
                    pos = m.end() + c.len_utf8();
                }
                None => {
                    pos = text.len() + 1;
                }
            }
        } else {
            pos = m.end();
        }
        if !global {
            break;
        }
    }
    if pos <= text.len() {
        out.push_str(&text[pos..]);
    }
    (out, count)
}

fn expand_replacement(replacement: &str, matched: &str, out: &mut String) {
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some('&') => {
                    out.push('&');
                    chars.next();
                }
                Some('\\') => {
                    out.push('\\');
                    chars.next();
                }
                _ => out.push('\\'),
            },
            '&' => out.push_str(matched),
            c => out.push(c),
        }
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// `mktime("YYYY MM DD HH MM SS")` in UTC; out-of-range parts carry over, as in C's mktime.
fn mktime(spec: &str) -> Option<i64> {
    let parts: Vec<i64> = spec
        .split_whitespace()
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    if parts.len() < 6 {
        return None;
    }
    let (y, mo, d, h, mi, s) = (parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]);
    // Days from the civil date (months carried into years first).
    let months = y * 12 + (mo - 1);
    let (y, m) = (months.div_euclid(12), months.rem_euclid(12) + 1);
    let (yy, mm) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468 + (d - 1);
    Some(days * 86_400 + h * 3600 + mi * 60 + s)
}

/// asort's order: numbers first, by value; then strings, by bytes.
fn sort_key(v: &Value) -> (u8, f64, String) {
    match v {
        Value::Num(n) => (0, *n, String::new()),
        Value::StrNum(s) if super::value::looks_numeric(s) => {
            (0, Value::StrNum(s.clone()).to_num(), String::new())
        }
        other => (1, 0.0, other.to_str("%.6g").into_owned()),
    }
}

/// gawk's `gensub`: `\\0` or `&` is the match, `\\1`..`\\9` its groups; every match (`which`
/// None) or only the Nth.
fn gensub(re: &regex::Regex, text: &str, replacement: &str, which: Option<usize>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (n, caps) in re.captures_iter(text).enumerate() {
        let Some(m) = caps.get(0) else { continue };
        if which.is_some_and(|w| w != n + 1) {
            continue;
        }
        out.push_str(&text[last..m.start()]);
        let mut chars = replacement.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.peek().copied() {
                    Some(d @ '0'..='9') => {
                        chars.next();
                        let group = d as usize - '0' as usize;
                        out.push_str(caps.get(group).map_or("", |g| g.as_str()));
                    }
                    Some('&') => {
                        chars.next();
                        out.push('&');
                    }
                    Some('\\') => {
                        chars.next();
                        out.push('\\');
                    }
                    _ => out.push('\\'),
                },
                '&' => out.push_str(m.as_str()),
                c => out.push(c),
            }
        }
        last = m.end();
        if which.is_some() {
            break;
        }
    }
    out.push_str(&text[last..]);
    out
}
