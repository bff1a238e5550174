//! `look`: print the lines of a sorted file that begin with a string (util-linux's).

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, usage, value};

use crate::stream::{Stop, Writer, complain, read_file};

/// The word list `look` searches when given no file.
const WORDS: &str = "/usr/share/dict/words";

/// `look [-df] [-t CHAR] STRING [FILE]...`: without a file, searches the word list, ignoring
/// case and punctuation (`-d -f`, as util-linux's does).
pub async fn look(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut dict, mut fold) = (false, false);
    let mut term = None;
    let mut words = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('a') | Long("alternative") => {}
                Short('d') | Long("alphanum") => dict = true,
                Short('f') | Long("ignore-case") => fold = true,
                Short('t') | Long("terminate") => term = value(&mut p)?.chars().next(),
                Value(v) => words.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        if words.is_empty() {
            return Err(usage("bad usage"));
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "look", e, 1).await;
    }
    let mut key = words.remove(0);
    if words.is_empty() {
        words.push(WORDS.into());
        (dict, fold) = (true, true);
    }
    if let Some(t) = term
        && let Some(at) = key.find(t)
    {
        key.truncate(at + t.len_utf8());
    }
    let norm = |bytes: &[u8]| -> Vec<u8> {
        bytes
            .iter()
            .filter(|b| !dict || b.is_ascii_alphanumeric() || **b == b' ' || **b == b'\t')
            .map(|b| if fold { b.to_ascii_lowercase() } else { *b })
            .collect()
    };
    let key = norm(key.as_bytes());
    let mut out = Writer::new(&sh.io().stdout);
    let mut found = false;
    for file in &words {
        let data = match read_file(sh, "look", file).await {
            Ok(d) => d,
            Err(m) => {
                return complain(sh, &m).await;
            }
        };
        // The file is sorted: skip the lines before the key, print those that start with it.
        let mut lines = data.split_inclusive(|b| *b == b'\n').peekable();
        while lines
            .next_if(|l| norm(l.strip_suffix(b"\n").unwrap_or(l)) < key)
            .is_some()
        {}
        for line in lines {
            if !norm(line).starts_with(&key) {
                break;
            }
            found = true;
            let w = out.write(line).await;
            let w = if line.ends_with(b"\n") {
                w
            } else {
                w.and(out.write(b"\n").await)
            };
            if let Err(Stop(s)) = w {
                return s;
            }
        }
    }
    match out.flush().await {
        Ok(()) => i32::from(!found),
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn lines_that_begin_with_the_string() {
        let mut ctx = Native::new();
        ctx.write("w", "apple\nbanana\nband\nbandit\ncar\n");
        assert_eq!(ctx.run(&["look", "band", "w"], "").stdout, "band\nbandit\n");
        assert_eq!(ctx.run(&["look", "zzz", "w"], "").status, 1);
    }
}
