//! A child process for the crash and multi-process tests of the workspace store.
//!
//! - `vfs-writer crash DB`: commits numbered writes forever, printing `ack N` after each commit.
//! - `vfs-writer concurrent DB ID COUNT`: writes, renames and appends COUNT entries tagged ID.

use std::io::Write;

use computer_tests::crash_data;
use computer_vfs::{OpenFlags, Vfs};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let result = match args.get(1).map(String::as_str) {
        Some("crash") if args.len() == 3 => crash(&args[2]),
        Some("concurrent") if args.len() == 5 => concurrent(&args[2], &args[3], &args[4]),
        _ => Err("usage: vfs-writer crash DB | concurrent DB ID COUNT".into()),
    };
    if let Err(e) = result {
        eprintln!("vfs-writer: {e}");
        std::process::exit(1);
    }
}

fn crash(db: &str) -> Result<(), Box<dyn std::error::Error>> {
    let vfs = Vfs::open(db)?;
    vfs.create_dir_all("/workspace/crash")?;
    // Resume after the last logged write (a file written just before a kill is rewritten).
    let start = match vfs.read_file("/workspace/crash.log") {
        Ok(log) => log.iter().filter(|b| **b == b'\n').count() as u64,
        Err(computer_vfs::VfsError::NotFound) => 0,
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::stdout().lock();
    for i in start.. {
        let path = format!("/workspace/crash/{i:08}.dat");
        if i % 3 == 0 {
            // Through a handle: buffered, committed by release.
            let st = vfs.write_file(&path, b"")?;
            let fh = vfs.open_file(st.ino, OpenFlags::WRITE)?;
            let data = crash_data(i);
            for (n, piece) in data.chunks(4096).enumerate() {
                vfs.write(fh, (n * 4096) as u64, piece)?;
            }
            vfs.release(fh)?;
        } else {
            vfs.write_file(&path, crash_data(i))?;
        }
        vfs.append("/workspace/crash.log", format!("{i}\n"))?;
        writeln!(out, "ack {i}")?;
        out.flush()?;
    }
    Ok(())
}

fn concurrent(db: &str, id: &str, count: &str) -> Result<(), Box<dyn std::error::Error>> {
    let vfs = Vfs::open(db)?;
    vfs.create_dir_all("/workspace/conc")?;
    for i in 0..count.parse::<u64>()? {
        let tmp = format!("/workspace/conc/tmp-{id}-{i}");
        vfs.write_file(&tmp, format!("{id} {i}"))?;
        vfs.rename(&tmp, format!("/workspace/conc/done-{id}-{i}"))?;
        vfs.append("/workspace/conc/shared.log", format!("{id}-{i}\n"))?;
    }
    println!("done");
    Ok(())
}
