//! The environment and small utilities: `env`, `printenv`, `which`, `whoami`, `hostname`,
//! `uname`, `sleep`, `nl`, `paste`.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, invalid_option, open};
use crate::builtins::out;
use crate::exec::Interp;

/// `env [-i] [-u NAME] [NAME=VALUE...] [COMMAND [ARGS...]]`.
pub async fn env(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut i = 1;
    let mut clear = false;
    let mut unset = Vec::new();
    let mut sets = Vec::new();
    while i < argv.len() {
        let a = &argv[i];
        match a.as_str() {
            "-i" | "-" | "--ignore-environment" => clear = true,
            "-u" => {
                i += 1;
                unset.extend(argv.get(i).cloned());
            }
            "--" => {
                i += 1;
                break;
            }
            _ if a.contains('=') && !a.starts_with('=') => sets.push(a.clone()),
            _ => break,
        }
        i += 1;
    }
    if i >= argv.len() {
        let mut vars: Vec<(String, String)> = if clear {
            Vec::new()
        } else {
            sh.shell.environment()
        };
        vars.retain(|(k, _)| !unset.contains(k));
        for s in &sets {
            if let Some((k, v)) = s.split_once('=') {
                vars.retain(|(x, _)| x != k);
                vars.push((k.to_string(), v.to_string()));
            }
        }
        let text: String = vars.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        return out(sh, &text).await;
    }
    // Run the command with the changed environment, in a copy of the shell.
    let mut sub = sh.shell.clone();
    if clear {
        for v in sub.vars.values_mut() {
            v.attrs.exported = false;
        }
    }
    for u in &unset {
        sub.vars.remove(u);
    }
    for s in &sets {
        if let Some((k, v)) = s.split_once('=') {
            sub.set(k, v.to_string());
            if let Some(var) = sub.vars.get_mut(k) {
                var.attrs.exported = true;
            }
        }
    }
    let io = sh.io.clone();
    let mut interp = Interp::new(&mut sub, io);
    let _ = interp.run_argv(argv[i..].to_vec()).await;
    interp.shell.status
}

/// `printenv [NAME...]`.
pub async fn printenv(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let vars = sh.shell.environment();
    if argv.len() == 1 {
        let text: String = vars.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        return out(sh, &text).await;
    }
    let mut status = 0;
    let mut text = String::new();
    for name in &argv[1..] {
        match vars.iter().find(|(k, _)| k == name) {
            Some((_, v)) => {
                text.push_str(v);
                text.push('\n');
            }
            None => status = 1,
        }
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

/// `which [-a] NAME...`: the shell's commands live in `/usr/bin`.
pub async fn which(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut status = 0;
    let mut text = String::new();
    for name in argv[1..].iter().filter(|a| !a.starts_with('-')) {
        if super::find(name).is_some() {
            text.push_str(&format!("/usr/bin/{name}\n"));
        } else if name.contains('/') && sh.shell.path(name).is_file() {
            text.push_str(&format!("{name}\n"));
        } else {
            status = 1;
        }
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

/// `whoami`.
pub async fn whoami(sh: &mut Interp<'_>, _argv: &[String]) -> i32 {
    let user = sh.shell.get("USER").unwrap_or("user").to_string();
    out(sh, &format!("{user}\n")).await
}

/// `id [-u|-g|-G] [-n] [USER]`: the workspace's one user (uid and gid 1000, named by
/// `$USER`).
pub async fn id(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let user = sh.shell.get("USER").unwrap_or("user").to_string();
    let (flags, operands) = super::stream::split_flags(argv);
    if let Some(other) = operands.first()
        && *other != user
    {
        return complain(sh, &format!("id: '{other}': no such user")).await;
    }
    let names = flags.contains('n');
    let line = if flags.contains('u') || flags.contains('g') || flags.contains('G') {
        if names { user } else { "1000".to_string() }
    } else {
        format!("uid=1000({user}) gid=1000({user}) groups=1000({user})")
    };
    out(sh, &format!("{line}\n")).await
}

/// `hostname`.
pub async fn hostname(sh: &mut Interp<'_>, _argv: &[String]) -> i32 {
    let host = sh.shell.get("HOSTNAME").unwrap_or("computer").to_string();
    out(sh, &format!("{host}\n")).await
}

/// `uname [-asnrvmo]`: the isolate is a WASI machine.
pub async fn uname(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let flags: String = argv[1..]
        .iter()
        .filter_map(|a| a.strip_prefix('-'))
        .collect();
    let host = sh.shell.get("HOSTNAME").unwrap_or("computer").to_string();
    let all = flags.contains('a');
    let mut parts = Vec::new();
    if flags.is_empty() || all || flags.contains('s') {
        parts.push("WASI".to_string());
    }
    if all || flags.contains('n') {
        parts.push(host);
    }
    if all || flags.contains('r') {
        parts.push("0.2".into());
    }
    if all || flags.contains('v') {
        parts.push("computer".into());
    }
    if all || flags.contains('m') {
        parts.push("wasm32".into());
    }
    if all || flags.contains('o') {
        parts.push("WASI".into());
    }
    out(sh, &format!("{}\n", parts.join(" "))).await
}

/// `sleep DURATION...` (`s m h d` suffixes); the run's time limit still applies.
pub async fn sleep(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut total = 0.0f64;
    if argv.len() < 2 {
        return complain(
            sh,
            "sleep: missing operand\nTry 'sleep --help' for more information.",
        )
        .await;
    }
    for a in &argv[1..] {
        match parse_duration(a) {
            Some(v) => total += v,
            None => {
                return complain(sh, &format!("sleep: invalid time interval '{a}'\nTry 'sleep --help' for more information.")).await;
            }
        }
    }
    let mut wait = std::time::Duration::from_secs_f64(total.min(1e9));
    if let Some(deadline) = sh.shell.deadline {
        // Under `timeout`, sleep only until the deadline.
        wait = wait.min(deadline.saturating_duration_since(std::time::Instant::now()));
    }
    std::thread::sleep(wait);
    0
}

/// `timeout [-s SIGNAL] [-k DURATION] [--preserve-status] DURATION COMMAND [ARG]...`.
///
/// There are no processes to kill: the command is stopped before its next command (a
/// script's next step) once the time is up, and `sleep` wakes at the deadline; a single
/// long-running built-in command finishes its work. Past the deadline the status is 124.
pub async fn timeout(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut i = 1;
    let mut preserve = false;
    while let Some(a) = argv.get(i) {
        match a.as_str() {
            "-s" | "--signal" | "-k" | "--kill-after" => i += 1,
            "--preserve-status" => preserve = true,
            "--foreground" | "-v" | "--verbose" => {}
            "--" => {
                i += 1;
                break;
            }
            s if s.starts_with("--signal=") || s.starts_with("--kill-after=") => {}
            s if s.starts_with("-s") || s.starts_with("-k") => {}
            s if s.starts_with('-')
                && s.len() > 1
                && !s[1..].starts_with(|c: char| c.is_ascii_digit()) =>
            {
                return invalid_option(sh, "timeout", &s[1..]).await + 124;
            }
            _ => break,
        }
        i += 1;
    }
    let Some(duration) = argv.get(i) else {
        return complain(
            sh,
            "timeout: missing operand\nTry 'timeout --help' for more information.",
        )
        .await
            + 124;
    };
    let Some(seconds) = parse_duration(duration) else {
        return complain(sh, &format!("timeout: invalid time interval '{duration}'\nTry 'timeout --help' for more information.")).await + 124;
    };
    let command = argv[i + 1..].to_vec();
    if command.is_empty() {
        return complain(sh, "Try 'timeout --help' for more information.").await + 124;
    }
    let saved = sh.shell.deadline;
    let start = std::time::Instant::now();
    if seconds > 0.0 {
        let mine = start + std::time::Duration::from_secs_f64(seconds.min(1e9));
        sh.shell.deadline = Some(saved.map_or(mine, |d| d.min(mine)));
    }
    // The command runs as a child would: its `exit` ends only it.
    let _ = sh.run_argv(command).await;
    let status = sh.shell.status;
    sh.shell.deadline = saved;
    let timed_out = seconds > 0.0 && start.elapsed().as_secs_f64() >= seconds;
    if timed_out && !preserve {
        super::TIMED_OUT
    } else if timed_out {
        128 + 15
    } else {
        status
    }
}

/// A duration as `sleep` and `timeout` read it: a number with `s`, `m`, `h` or `d`.
fn parse_duration(text: &str) -> Option<f64> {
    let (num, mult) = match text.chars().last()? {
        's' => (&text[..text.len() - 1], 1.0),
        'm' => (&text[..text.len() - 1], 60.0),
        'h' => (&text[..text.len() - 1], 3600.0),
        'd' => (&text[..text.len() - 1], 86400.0),
        _ => (text, 1.0),
    };
    num.parse::<f64>()
        .ok()
        .filter(|v| *v >= 0.0)
        .map(|v| v * mult)
}

/// `nl [-b a|t] [-w N] [-s SEP] [FILE]`.
pub async fn nl(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut all = false;
    let mut width = 6usize;
    let mut sep = "\t".to_string();
    // `-n ln|rn|rz`, `-v START`, `-i INCREMENT`.
    let mut format = "rn".to_string();
    let (mut start, mut step) = (1i64, 1i64);
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        let mut value = |inline: &str| -> String {
            if !inline.is_empty() {
                return inline.to_string();
            }
            i += 1;
            argv.get(i).cloned().unwrap_or_default()
        };
        if let Some(v) = a.strip_prefix("-b") {
            all = value(v) == "a";
        } else if let Some(v) = a.strip_prefix("-w") {
            width = value(v).parse().unwrap_or(6);
        } else if let Some(v) = a.strip_prefix("-s") {
            sep = value(v);
        } else if let Some(v) = a.strip_prefix("-n") {
            format = value(v);
        } else if let Some(v) = a.strip_prefix("-v") {
            start = value(v).parse().unwrap_or(1);
        } else if let Some(v) = a.strip_prefix("-i") {
            step = value(v).parse().unwrap_or(1);
        } else {
            files.push(a.to_string());
        }
        i += 1;
    }
    let files = files_or_stdin(files);
    let mut w = Writer::new(&sh.io.stdout);
    let mut n = start;
    let mut status = 0;
    for f in files {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => {
                status = complain(sh, &format!("nl: {m}")).await;
                continue;
            }
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let blank = line == b"\n" || line.is_empty();
            // Unnumbered lines get blanks where the number and separator would be.
            let prefix = if blank && !all {
                " ".repeat(width + sep.chars().count())
            } else {
                let number = match format.as_str() {
                    "ln" => format!("{n:<width$}"),
                    "rz" => format!("{n:0>width$}"),
                    _ => format!("{n:>width$}"),
                };
                n += step;
                format!("{number}{sep}")
            };
            if let Err(Stop(s)) = w.write_str(&prefix).await {
                return s;
            }
            if let Err(Stop(s)) = w.write(&line).await {
                return s;
            }
        }
    }
    match w.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// `paste [-d LIST] [-s] FILE...`.
pub async fn paste(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut delims: Vec<char> = vec!['\t'];
    let mut serial = false;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        let a = if a.starts_with("-s") && a.len() > 2 {
            // `-sd+`: clustered.
            serial = true;
            format!("-{}", &a[2..])
        } else {
            a.to_string()
        };
        let a = a.as_str();
        if a == "-s" || a == "--serial" {
            serial = true;
        } else if let Some(v) = a.strip_prefix("-d") {
            let v = if v.is_empty() {
                i += 1;
                argv.get(i).cloned().unwrap_or_default()
            } else {
                v.to_string()
            };
            delims = v
                .replace("\\t", "\t")
                .replace("\\n", "\n")
                .replace("\\0", "")
                .chars()
                .collect();
            if delims.is_empty() {
                delims = vec!['\0'];
            }
        } else {
            files.push(a.to_string());
        }
        i += 1;
    }
    let files = files_or_stdin(files);
    let mut contents: Vec<Vec<String>> = Vec::new();
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("paste: {m}")).await,
        };
        let mut lines = Lines::new(input);
        let mut v = Vec::new();
        while let Ok(Some(l)) = lines.next().await {
            v.push(String::from_utf8_lossy(l.strip_suffix(b"\n").unwrap_or(&l)).into_owned());
        }
        contents.push(v);
    }
    // `paste - -`: the one standard input is dealt out line by line to each `-`.
    let dashes: Vec<usize> = (0..files.len()).filter(|k| files[*k] == "-").collect();
    if dashes.len() > 1 {
        let all: Vec<String> = dashes
            .iter()
            .flat_map(|k| std::mem::take(&mut contents[*k]))
            .collect();
        for (j, line) in all.into_iter().enumerate() {
            contents[dashes[j % dashes.len()]].push(line);
        }
    }
    let join = |items: &[String]| -> String {
        let mut s = String::new();
        for (k, it) in items.iter().enumerate() {
            if k > 0 {
                let d = delims[(k - 1) % delims.len()];
                if d != '\0' {
                    s.push(d);
                }
            }
            s.push_str(it);
        }
        s
    };
    let mut text = String::new();
    if serial {
        for c in &contents {
            text.push_str(&join(c));
            text.push('\n');
        }
    } else {
        let rows = contents.iter().map(Vec::len).max().unwrap_or(0);
        for r in 0..rows {
            let row: Vec<String> = contents
                .iter()
                .map(|c| c.get(r).cloned().unwrap_or_default())
                .collect();
            text.push_str(&join(&row));
            text.push('\n');
        }
    }
    out(sh, &text).await
}
