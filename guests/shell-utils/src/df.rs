//! `df`: how full the workspace is, from the host's usage of it.

use super::stream::complain;
use crate::fileinfo::{human_size, si_size};
use shell_base::args::{bad_usage, parser};

use shell_base::Context;
use shell_base::errno::io_message;

/// `df [-hHkTiP] [FILE...]`: one line, the workspace (mounted on `/`).
pub async fn df(sh: &mut dyn Context, argv: &[String]) -> i32 {
    use lexopt::prelude::*;
    let (mut human, mut si, mut inodes, mut with_type) = (false, false, false, false);
    let mut operands = Vec::new();
    let mut p = parser(argv);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "df", e, 1).await,
        };
        match arg {
            Short('h') | Long("human-readable") => human = true,
            Short('H') | Long("si") => si = true,
            Short('i') | Long("inodes") => inodes = true,
            Short('T') | Long("print-type") => with_type = true,
            Short('k') | Short('P') | Long("portability") | Short('a') | Long("all")
            | Short('l') | Long("local") => {}
            Value(v) => operands.push(v.to_string_lossy().into_owned()),
            other => return bad_usage(sh, "df", other.unexpected(), 1).await,
        }
    }
    let mut status = 0;
    let mut lines = 0;
    for f in &operands {
        if let Err(e) = std::fs::metadata(sh.path(f)) {
            status = complain(sh, &format!("df: {f}: {}", io_message(&e))).await;
        } else {
            lines += 1;
        }
    }
    if !operands.is_empty() && lines == 0 {
        return status;
    }
    let u = match shell_base::host::current().usage() {
        Ok(u) => u,
        Err(e) => {
            let e = shell_base::errno::io_message(&e);
            return complain(sh, &format!("df: cannot read the workspace's usage: {e}")).await;
        }
    };
    let bs = u64::from(u.block_size);
    let shown = |blocks: u64| -> String {
        let bytes = blocks * bs;
        if human {
            human_size(bytes)
        } else if si {
            si_size(bytes)
        } else {
            bytes.div_ceil(1024).to_string()
        }
    };
    let percent = |used: u64, free: u64| match used + free {
        0 => "-".to_string(),
        all => format!("{}%", (used * 100).div_ceil(all)),
    };
    let (header, row): ([&str; 4], [String; 4]) = if inodes {
        let used = u.files;
        let total = used.saturating_add(u.files_free);
        (
            ["Inodes", "IUsed", "IFree", "IUse%"],
            [
                total.to_string(),
                used.to_string(),
                u.files_free.to_string(),
                percent(used, u.files_free),
            ],
        )
    } else {
        let used = u.blocks - u.blocks_free;
        let size_header = if human || si { "Size" } else { "1K-blocks" };
        let avail_header = if human || si { "Avail" } else { "Available" };
        (
            [size_header, "Used", avail_header, "Use%"],
            [
                shown(u.blocks),
                shown(used),
                shown(u.blocks_free),
                percent(used, u.blocks_free),
            ],
        )
    };
    // (header, value, left-aligned)
    let mut columns = vec![("Filesystem", "workspace".to_string(), true)];
    if with_type {
        columns.push(("Type", "computer".into(), true));
    }
    columns.extend(header.into_iter().zip(row).map(|(h, v)| (h, v, false)));
    let (mut top, mut bottom) = (String::new(), String::new());
    for (h, v, left) in &columns {
        let w = h.len().max(v.len());
        if *left {
            top.push_str(&format!("{h:<w$} "));
            bottom.push_str(&format!("{v:<w$} "));
        } else {
            top.push_str(&format!("{h:>w$} "));
            bottom.push_str(&format!("{v:>w$} "));
        }
    }
    let text = format!("{top}Mounted on\n{bottom}/\n");
    let _ = sh.io().stdout.write_all(text.as_bytes()).await;
    status
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn natively_there_is_no_workspace_to_measure() {
        let ran = Native::new().run(&["df"], "");
        assert_eq!(ran.status, 1);
        assert!(
            ran.stderr
                .starts_with("df: cannot read the workspace's usage"),
            "{}",
            ran.stderr
        );
    }
}
