//! `envsubst`: substitute environment variables in text (GNU gettext's).

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, usage};

use crate::stream::{MEMORY_LIMIT, Stop, Writer, complain, read_all_limited};

/// `envsubst [-v] [SHELL-FORMAT]`: copies stdin with `$NAME` and `${NAME}` replaced by the
/// exported variable's value (empty when unset), or only the names SHELL-FORMAT mentions.
/// `-v` lists the names SHELL-FORMAT mentions.
pub async fn envsubst(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut list = false;
    let mut format = None;
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('v') | Long("variables") => list = true,
                Value(v) if format.is_none() => format = Some(string(v)),
                Value(v) => return Err(usage(format!("too many arguments: '{}'", string(v)))),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "envsubst", e, 1).await;
    }
    if list {
        let Some(format) = format else {
            return complain(sh, "envsubst: missing arguments").await;
        };
        let names: String = references(format.as_bytes())
            .into_iter()
            .map(|(_, _, name)| format!("{name}\n"))
            .collect();
        return crate::stream::out(sh, &names).await;
    }
    let only: Option<Vec<String>> = format.map(|f| {
        references(f.as_bytes())
            .into_iter()
            .map(|(_, _, name)| name)
            .collect()
    });
    let env = sh.environment();
    let data = match read_all_limited(&sh.io().stdin, MEMORY_LIMIT, "envsubst").await {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let mut text = Vec::with_capacity(data.len());
    let mut at = 0;
    for (start, end, name) in references(&data) {
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        text.extend_from_slice(&data[at..start]);
        if let Some((_, v)) = env.iter().find(|(n, _)| *n == name) {
            text.extend_from_slice(v.as_bytes());
        }
        at = end;
    }
    text.extend_from_slice(&data[at..]);
    let mut out = Writer::new(&sh.io().stdout);
    match out.write(&text).await.and(out.flush().await) {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

/// The `$NAME` and `${NAME}` in `text`: where each starts and ends, and the name.
fn references(text: &[u8]) -> Vec<(usize, usize, String)> {
    let name_char =
        |b: u8, first: bool| b == b'_' || b.is_ascii_alphabetic() || !first && b.is_ascii_digit();
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'$' {
            i += 1;
            continue;
        }
        let braced = text.get(i + 1) == Some(&b'{');
        let from = i + 1 + usize::from(braced);
        let mut end = from;
        while end < text.len() && name_char(text[end], end == from) {
            end += 1;
        }
        let closed = !braced || text.get(end) == Some(&b'}');
        if end > from && closed {
            let name = String::from_utf8_lossy(&text[from..end]).into_owned();
            let stop = end + usize::from(braced);
            found.push((i, stop, name));
            i = stop;
        } else {
            i += 1;
        }
    }
    found
}

#[cfg(all(test, unix))]
mod tests {
    use super::references;

    #[test]
    fn finds_plain_and_braced_names() {
        let names: Vec<String> = references(b"$A ${B}x $1 ${C:-d} $ $_e")
            .into_iter()
            .map(|r| r.2)
            .collect();
        assert_eq!(names, ["A", "B", "_e"]);
    }
}
