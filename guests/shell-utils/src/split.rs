//! `split`: split a file into pieces.

use super::stream::{MEMORY_LIMIT, complain, invalid_option, open, read_all_limited};
use shell_base::Context;

/// `split [-l N | -b SIZE | -n CHUNKS] [-d] [-a LEN] [--additional-suffix=S] [FILE [PREFIX]]`.
pub async fn split(sh: &mut dyn Context, argv: &[String]) -> i32 {
    enum By {
        Lines(usize),
        Bytes(usize),
        Chunks(usize),
    }
    let mut by = By::Lines(1000);
    let (mut numeric, mut suffix_len, mut extra) = (false, 2usize, String::new());
    let mut operands = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].clone();
        let value = |i: &mut usize| -> String {
            if a.len() > 2 && !a.starts_with("--") {
                a[2..].to_string()
            } else {
                *i += 1;
                argv.get(*i).cloned().unwrap_or_default()
            }
        };
        let bad = |what: &str, v: &str| format!("split: invalid number of {what}: '{v}'");
        match a.as_str() {
            s if s.starts_with("--additional-suffix=") => extra = s[20..].to_string(),
            "-d" | "--numeric-suffixes" => numeric = true,
            s if s.starts_with("-l") => {
                let v = value(&mut i);
                match v.parse() {
                    Ok(n) if n > 0 => by = By::Lines(n),
                    _ => return complain(sh, &bad("lines", &v)).await,
                }
            }
            s if s.starts_with("-b") => {
                let v = value(&mut i);
                match super::stream::parse_size(&v) {
                    Some(n) if n > 0 => by = By::Bytes(n),
                    _ => return complain(sh, &bad("bytes", &v)).await,
                }
            }
            s if s.starts_with("-n") => {
                let v = value(&mut i);
                match v.parse() {
                    Ok(n) if n > 0 => by = By::Chunks(n),
                    _ => return complain(sh, &bad("chunks", &v)).await,
                }
            }
            s if s.starts_with("-a") => {
                let v = value(&mut i);
                match v.parse() {
                    Ok(n) if n > 0 => suffix_len = n,
                    _ => {
                        return complain(sh, &format!("split: invalid suffix length: '{v}'")).await;
                    }
                }
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return invalid_option(sh, "split", &s[1..]).await;
            }
            _ => operands.push(a.clone()),
        }
        i += 1;
    }
    let file = operands.first().cloned().unwrap_or_else(|| "-".into());
    let prefix = operands.get(1).cloned().unwrap_or_else(|| "x".into());
    let input = match open(sh, &file) {
        Ok(i) => i,
        Err(m) => return complain(sh, &format!("split: {m}")).await,
    };
    let data = match read_all_limited(&input, MEMORY_LIMIT, &format!("split: {file}")).await {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let pieces: Vec<&[u8]> = match by {
        By::Bytes(n) => data.chunks(n).collect(),
        By::Chunks(n) => {
            let size = data.len() / n;
            (0..n)
                .map(|k| {
                    let start = k * size;
                    let end = if k + 1 == n { data.len() } else { start + size };
                    &data[start..end]
                })
                .collect()
        }
        By::Lines(n) => {
            let mut pieces = Vec::new();
            let mut start = 0;
            let mut count = 0;
            for (k, b) in data.iter().enumerate() {
                if *b == b'\n' {
                    count += 1;
                    if count == n {
                        pieces.push(&data[start..=k]);
                        start = k + 1;
                        count = 0;
                    }
                }
            }
            if start < data.len() {
                pieces.push(&data[start..]);
            }
            pieces
        }
    };
    for (k, piece) in pieces.iter().enumerate() {
        let Some(suffix) = suffix(k, suffix_len, numeric) else {
            return complain(sh, "split: output file suffixes exhausted").await;
        };
        let name = format!("{prefix}{suffix}{extra}");
        if let Err(e) = std::fs::write(sh.path(&name), piece) {
            return complain(
                sh,
                &format!("split: {name}: {}", shell_base::errno::io_message(&e)),
            )
            .await;
        }
    }
    0
}

/// The `k`th suffix: `aa`, `ab`, ... (or `00`, `01`, ... with `-d`).
fn suffix(mut k: usize, len: usize, numeric: bool) -> Option<String> {
    let (base, first) = if numeric { (10, b'0') } else { (26, b'a') };
    let mut digits = vec![first; len];
    for d in digits.iter_mut().rev() {
        *d = first + (k % base) as u8;
        k /= base;
    }
    (k == 0).then(|| String::from_utf8_lossy(&digits).into_owned())
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn pieces_of_n_lines() {
        let mut ctx = Native::new();
        assert_eq!(ctx.run(&["split", "-l", "2"], "1\n2\n3\n").status, 0);
        assert_eq!(
            (ctx.read("xaa"), ctx.read("xab")),
            ("1\n2\n".into(), "3\n".into())
        );
    }
}
