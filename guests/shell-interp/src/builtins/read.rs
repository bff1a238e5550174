//! `read` (`-r -a -d -n -N -u -p -s -t`): a line of input into variables, split on IFS.

use crate::interp::Builtin;
use crate::interp::Interp;
use shell_base::io::Input;

/// Splits a line into at most `n` fields on IFS, bash's way: IFS whitespace runs and single
/// other IFS characters separate; the last field keeps the rest (without trailing IFS
/// whitespace). `escaped` marks characters a backslash protected.
fn split_fields(text: &[char], escaped: &[bool], ifs: &str, n: usize) -> Vec<String> {
    let is_ws = |i: usize| !escaped[i] && ifs.contains(text[i]) && text[i].is_whitespace();
    let is_sep = |i: usize| !escaped[i] && ifs.contains(text[i]);
    let mut fields = Vec::new();
    let mut i = 0;
    while i < text.len() && is_ws(i) {
        i += 1;
    }
    while i < text.len() {
        if fields.len() + 1 == n {
            let mut end = text.len();
            while end > i && is_ws(end - 1) {
                end -= 1;
            }
            fields.push(text[i..end].iter().collect());
            return fields;
        }
        let start = i;
        while i < text.len() && !is_sep(i) {
            i += 1;
        }
        fields.push(text[start..i].iter().collect());
        // One separator: whitespace around at most one non-whitespace IFS character.
        while i < text.len() && is_ws(i) {
            i += 1;
        }
        if i < text.len() && is_sep(i) && !is_ws(i) {
            i += 1;
            while i < text.len() && is_ws(i) {
                i += 1;
            }
        }
    }
    fields
}

/// `read [-r] [-a ARRAY] [-d DELIM] [-n N] [-N N] [-p PROMPT] [-s] [-t SECS] [NAME...]`.
pub async fn read(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let mut raw = false;
    let mut array: Option<String> = None;
    let mut delim = Some(b'\n');
    let mut max: Option<usize> = None;
    let mut exact = false;
    let mut from: Option<Input> = None;
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if !a.starts_with('-') || a == "-" || !names.is_empty() {
            names.push(a.clone());
            i += 1;
            continue;
        }
        let mut chars = a[1..].chars();
        while let Some(c) = chars.next() {
            let value = |i: &mut usize, rest: &str| -> Option<String> {
                if !rest.is_empty() {
                    Some(rest.to_string())
                } else {
                    *i += 1;
                    args.get(*i).cloned()
                }
            };
            match c {
                'r' => raw = true,
                's' | 'e' => {}
                'a' | 'd' | 'n' | 'N' | 'p' | 't' | 'u' | 'i' => {
                    let rest: String = chars.by_ref().collect();
                    let Some(v) = value(&mut i, &rest) else {
                        sh.error(&format!("read: -{c}: option requires an argument"))
                            .await;
                        return 2;
                    };
                    match c {
                        'a' => array = Some(v),
                        'd' => delim = Some(v.bytes().next().unwrap_or(0)),
                        'n' | 'N' => {
                            let Ok(n) = v.parse::<usize>() else {
                                sh.error(&format!("read: {v}: invalid number")).await;
                                return 2;
                            };
                            max = Some(n);
                            exact = c == 'N';
                        }
                        'u' => match v
                            .parse::<i32>()
                            .ok()
                            .and_then(|n| sh.io.get(n))
                            .and_then(|f| f.input)
                        {
                            Some(input) => from = Some(input),
                            None => {
                                sh.error(&format!(
                                    "read: {v}: invalid file descriptor: Bad file descriptor"
                                ))
                                .await;
                                return 1;
                            }
                        },
                        // The prompt shows only on a terminal, which this never is.
                        _ => {}
                    }
                }
                _ => {
                    sh.error(&format!("read: -{c}: invalid option")).await;
                    sh.raw_error("read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]").await;
                    return 2;
                }
            }
        }
        i += 1;
    }
    if exact {
        delim = None;
    }
    let input = from.unwrap_or_else(|| sh.io.stdin.clone());
    let mut text: Vec<char> = Vec::new();
    let mut escaped: Vec<bool> = Vec::new();
    let mut eof;
    loop {
        let (bytes, end) =
            read_record(&input, delim, max.map(|m| m.saturating_sub(text.len()))).await;
        eof = end;
        let chunk = String::from_utf8_lossy(&bytes).into_owned();
        let mut chars = chunk.chars().peekable();
        let mut continued = false;
        while let Some(c) = chars.next() {
            if c == '\\' && !raw {
                match chars.next() {
                    Some(n) => {
                        text.push(n);
                        escaped.push(true);
                    }
                    // A backslash before the delimiter joins the next line.
                    None => continued = !eof,
                }
                continue;
            }
            text.push(c);
            escaped.push(false);
        }
        if !continued || max.is_some_and(|m| text.len() >= m) {
            break;
        }
    }
    let ifs = sh.shell.ifs();
    let result = if let Some(name) = array {
        let fields = split_fields(&text, &escaped, &ifs, usize::MAX);
        sh.shell.vars.remove(&name);
        sh.shell.assign_array(
            &name,
            fields.into_iter().map(|f| (None, f)).collect(),
            false,
        )
    } else if names.is_empty() {
        // REPLY keeps the line whole (leading and trailing whitespace too).
        sh.shell.assign("REPLY", text.iter().collect(), false)
    } else {
        let fields = if exact {
            vec![text.iter().collect()]
        } else {
            split_fields(&text, &escaped, &ifs, names.len())
        };
        let mut r = Ok(());
        for (k, name) in names.iter().enumerate() {
            let v = fields.get(k).cloned().unwrap_or_default();
            if let Err(e) = sh.shell.assign(name, v, false) {
                r = Err(e);
            }
        }
        r
    };
    if let Err(msg) = result {
        sh.error(&format!("read: {msg}")).await;
        return 1;
    }
    eof as i32
}

/// Reads up to `delim` (consumed, not returned) or `max` bytes, a byte at a time so the rest
/// stays for the next reader. `true` when end of input came first.
pub(crate) async fn read_record(
    input: &Input,
    delim: Option<u8>,
    max: Option<usize>,
) -> (Vec<u8>, bool) {
    let mut data = Vec::new();
    loop {
        if max.is_some_and(|m| data.len() >= m) {
            return (data, false);
        }
        let byte = match input {
            Input::Pipe(p) => p.read(1).await,
            other => {
                let mut b = [0u8; 1];
                let n = match other {
                    Input::Stdin => std::io::Read::read(&mut std::io::stdin(), &mut b).unwrap_or(0),
                    Input::File(f) => {
                        std::io::Read::read(&mut *f.borrow_mut(), &mut b).unwrap_or(0)
                    }
                    Input::Bytes(c) => {
                        std::io::Read::read(&mut *c.borrow_mut(), &mut b).unwrap_or(0)
                    }
                    _ => 0,
                };
                b[..n].to_vec()
            }
        };
        let Some(&b) = byte.first() else {
            return (data, true);
        };
        if Some(b) == delim {
            return (data, false);
        }
        data.push(b);
    }
}

/// `read`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "read",
    run: status!(read),
    usage: "[-rs] [-a array] [-d delim] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [name ...]",
    about: "Read a line from the standard input and split it into fields",
    special: false,
    declaration: None,
};
