//! `printf`/`sprintf` formats, as awk reads them: the C conversions, `%c` of a number is
//! that character, `%d` truncates, and too few arguments is an error.

use shell_base::format::{Spec, float, integer, pad, truncate};

use super::value::Value;

/// Formats `args` by `fmt`; the error is gawk's message for too few arguments.
pub fn sprintf(fmt: &str, args: &[Value], convfmt: &str) -> Result<String, String> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut args = args.iter();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if chars.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let mut spec = Spec::with_flags(&chars, &mut i);
        let mut missing = false;
        let mut number = |i: &mut usize| -> Option<i64> {
            if chars.get(*i) == Some(&'*') {
                *i += 1;
                return match args.next() {
                    Some(v) => Some(v.to_num() as i64),
                    None => {
                        missing = true;
                        None
                    }
                };
            }
            let from = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            (*i > from).then(|| {
                chars[from..*i]
                    .iter()
                    .collect::<String>()
                    .parse()
                    .unwrap_or(i64::MAX)
            })
        };
        if let Some(w) = number(&mut i) {
            if w < 0 {
                spec.left = true;
            }
            spec.width = Some((w.unsigned_abs() as usize).min(shell_base::format::MAX_FIELD));
        }
        if chars.get(i) == Some(&'.') {
            i += 1;
            spec.precision = Some(
                (number(&mut i).unwrap_or(0).max(0) as usize).min(shell_base::format::MAX_FIELD),
            );
        }
        while chars
            .get(i)
            .is_some_and(|c| matches!(c, 'h' | 'l' | 'L' | 'q' | 'j' | 'z' | 't'))
        {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            // A lone `%` at the end is printed as is.
            out.extend(&chars[start..]);
            break;
        };
        if !matches!(
            conv,
            'd' | 'i'
                | 'o'
                | 'u'
                | 'x'
                | 'X'
                | 'e'
                | 'E'
                | 'f'
                | 'F'
                | 'g'
                | 'G'
                | 'a'
                | 'A'
                | 'c'
                | 's'
        ) {
            // Not a conversion: printed as written.
            out.extend(&chars[start..=i]);
            i += 1;
            continue;
        }
        i += 1;
        let arg = if missing { None } else { args.next() };
        let Some(arg) = arg else {
            // gawk shows the format with a caret under the conversion that ran out.
            return Err(format!(
                "not enough arguments to satisfy format string\n\t`{fmt}'\n\t{}^ ran out for this one",
                " ".repeat(start + 1)
            ));
        };
        let text = match conv {
            's' => pad(&spec, &truncate(&arg.to_str(convfmt), spec.precision)),
            'c' => {
                let ch = match arg {
                    Value::Num(n) => char::from_u32(*n as u32)
                        .map(String::from)
                        .unwrap_or_default(),
                    other => other
                        .to_str(convfmt)
                        .chars()
                        .next()
                        .map(String::from)
                        .unwrap_or_default(),
                };
                pad(&spec, &ch)
            }
            'd' | 'i' | 'o' | 'u' | 'x' | 'X' => {
                let n = arg.to_num();
                if !n.is_finite() {
                    let body = shell_base::format::float(&Spec::default(), 'f', n);
                    pad(&spec, &body)
                } else {
                    integer(
                        &spec,
                        conv,
                        n.trunc().clamp(i64::MIN as f64, i64::MAX as f64) as i64,
                    )
                }
            }
            _ => float(&spec, conv, arg.to_num()),
        };
        out.push_str(&text);
    }
    Ok(out)
}
