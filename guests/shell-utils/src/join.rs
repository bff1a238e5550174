//! `join`: join lines of two files on a common field.

use super::stream::complain;
use crate::layout::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, value};

/// `-o`'s list of fields: `0` (the join field) or `FILE.FIELD`, by commas or blanks.
fn output_format(spec: &str) -> Result<Vec<(usize, usize)>, lexopt::Error> {
    spec.split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|f| match f {
            "0" => Some((0, 0)),
            f => {
                let (file, field) = f.split_once('.')?;
                let file = file.parse().ok().filter(|n: &usize| (1..=2).contains(n))?;
                let field = field.parse().ok().filter(|n: &usize| *n > 0)?;
                Some((file, field))
            }
        })
        .collect::<Option<_>>()
        .ok_or_else(|| plain(format!("invalid field specifier: '{spec}'")))
}

/// `join [-t CHAR] [-1 F] [-2 F] [-j F] [-a 1|2] [-v 1|2] [-e TEXT] [-o LIST] [-i] FILE1 FILE2`.
pub async fn join(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut sep: Option<char> = None;
    let (mut f1, mut f2) = (1usize, 1usize);
    let (mut unpaired, mut only) = (vec![false; 2], vec![false; 2]);
    let mut empty: Option<String> = None;
    let mut format: Option<Vec<(usize, usize)>> = None;
    let mut ignore_case = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        let field = |v: String| match v.parse::<usize>() {
            Ok(f) if f > 0 => Ok(f),
            _ => Err(plain(format!("invalid field number: '{v}'"))),
        };
        let file_number = |v: String| match v.parse::<usize>() {
            Ok(n @ 1..=2) => Ok(n - 1),
            _ => Err(plain("invalid file number")),
        };
        while let Some(arg) = p.next()? {
            match arg {
                Short('t') => sep = value(&mut p)?.chars().next(),
                Short('1') => f1 = field(value(&mut p)?)?,
                Short('2') => f2 = field(value(&mut p)?)?,
                Short('j') => {
                    let f = field(value(&mut p)?)?;
                    (f1, f2) = (f, f);
                }
                Short('a') => unpaired[file_number(value(&mut p)?)?] = true,
                Short('v') => only[file_number(value(&mut p)?)?] = true,
                Short('e') => empty = Some(value(&mut p)?),
                Short('o') => format = Some(output_format(&value(&mut p)?)?),
                Short('i') | Long("ignore-case") => ignore_case = true,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "join", e, 1).await;
    }
    if files.len() != 2 {
        let msg = match files.as_slice() {
            [] => "missing operand".to_string(),
            [one] => format!("missing operand after '{one}'"),
            [_, _, extra, ..] => format!("extra operand '{extra}'"),
            _ => "missing operand".to_string(),
        };
        return complain(
            sh,
            &format!("join: {msg}\nTry 'join --help' for more information."),
        )
        .await;
    }
    let mut tables = Vec::new();
    for f in &files {
        match read_lines(sh, "join", vec![f.clone()]).await {
            Ok(l) => tables.push(l),
            Err(s) => return s,
        }
    }
    let split = |line: &str| -> Vec<String> {
        match sep {
            Some(c) => line.split(c).map(str::to_string).collect(),
            None => line.split_whitespace().map(str::to_string).collect(),
        }
    };
    let rows: Vec<Vec<Vec<String>>> = tables
        .iter()
        .map(|t| t.iter().map(|l| split(l)).collect())
        .collect();
    let keys = [f1, f2];
    let key = |row: &[String], which: usize| -> String {
        let k = row.get(keys[which] - 1).cloned().unwrap_or_default();
        if ignore_case { k.to_lowercase() } else { k }
    };
    let out_sep = sep.map(String::from).unwrap_or_else(|| " ".into());
    let fill = empty.clone().unwrap_or_default();
    let render = |left: Option<&Vec<String>>, right: Option<&Vec<String>>| -> String {
        let join_key = left
            .map(|r| r.get(keys[0] - 1).cloned().unwrap_or_default())
            .or_else(|| right.map(|r| r.get(keys[1] - 1).cloned().unwrap_or_default()))
            .unwrap_or_default();
        let mut parts = Vec::new();
        match &format {
            Some(spec) => {
                for (file, field) in spec {
                    let value = match (file, left, right) {
                        (0, _, _) => Some(join_key.clone()),
                        (1, Some(r), _) => r.get(field - 1).cloned(),
                        (2, _, Some(r)) => r.get(field - 1).cloned(),
                        _ => None,
                    };
                    parts.push(value.unwrap_or_else(|| fill.clone()));
                }
            }
            None => {
                parts.push(join_key);
                for (which, row) in [(0, left), (1, right)] {
                    if let Some(r) = row {
                        for (k, v) in r.iter().enumerate() {
                            if k != keys[which] - 1 {
                                parts.push(v.clone());
                            }
                        }
                    }
                }
            }
        }
        parts.join(&out_sep) + "\n"
    };
    let mut text = String::new();
    let (mut a, mut b) = (0, 0);
    let (left, right) = (&rows[0], &rows[1]);
    while a < left.len() || b < right.len() {
        let order = match (left.get(a), right.get(b)) {
            (Some(l), Some(r)) => key(l, 0).cmp(&key(r, 1)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                if unpaired[0] || only[0] {
                    text.push_str(&render(Some(&left[a]), None));
                }
                a += 1;
            }
            std::cmp::Ordering::Greater => {
                if unpaired[1] || only[1] {
                    text.push_str(&render(None, Some(&right[b])));
                }
                b += 1;
            }
            std::cmp::Ordering::Equal => {
                // Every pairing of the lines that share this key.
                let k = key(&left[a], 0);
                let a_end = (a..left.len())
                    .find(|&x| key(&left[x], 0) != k)
                    .unwrap_or(left.len());
                let b_end = (b..right.len())
                    .find(|&x| key(&right[x], 1) != k)
                    .unwrap_or(right.len());
                if !only[0] && !only[1] {
                    for l in &left[a..a_end] {
                        for r in &right[b..b_end] {
                            text.push_str(&render(Some(l), Some(r)));
                        }
                    }
                }
                a = a_end;
                b = b_end;
            }
        }
    }
    write_all(sh, &text).await
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn joins_on_the_first_field() {
        let mut ctx = Native::new();
        ctx.write("a", "1 x\n2 y\n").write("b", "1 p\n3 q\n");
        assert_eq!(ctx.run(&["join", "a", "b"], "").stdout, "1 x p\n");
    }
}
