//! `computer import` and `computer export`, with a progress bar on a terminal.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use computer::{Progress, TransferStats, Workspace};
use indicatif::{ProgressBar, ProgressStyle};

use crate::format::human_size;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A host folder, a .tar / .tar.gz archive, or s3://BUCKET/PREFIX (credentials and
    /// endpoint from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL,
    /// AWS_ALLOW_HTTP).
    src: PathBuf,
    /// Where in the workspace (default: /workspace/<folder name> for a folder, /workspace for
    /// an archive). A folder's contents become DEST; an archive is extracted into DEST.
    dest: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The workspace folder or file to export (default: /workspace), then the host folder,
    /// .tar / .tar.gz archive or s3://BUCKET/PREFIX to write.
    #[arg(num_args = 1..=2, required = true, value_names = ["SRC", "DEST"])]
    paths: Vec<PathBuf>,
    /// For s3:// destinations: delete objects under the prefix that SRC does not hold (sync).
    #[arg(long)]
    delete: bool,
}

pub fn import(ws: &Workspace, args: ImportArgs) -> Result<ExitCode> {
    let src = args.src.to_string_lossy();
    if computer_bucket::BucketUrl::is_bucket(&src) {
        let dest = ws.resolve(
            args.dest
                .unwrap_or_else(|| PathBuf::from(computer::DEFAULT_CWD)),
        );
        return crate::cmd_bucket::import(ws, &src, &dest);
    }
    let dest = match args.dest {
        Some(dest) => ws.resolve(dest),
        None if args.src.is_dir() => {
            let name = std::fs::canonicalize(&args.src)
                .with_context(|| format!("import {}", args.src.display()))?
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("import"));
            ws.resolve(name)
        }
        None => PathBuf::from(computer::DEFAULT_CWD),
    };
    let started = Instant::now();
    let bar = Bar::new();
    let stats = ws
        .import(&args.src, &dest, &mut |p| bar.update(p))
        .with_context(|| format!("import {}", args.src.display()));
    bar.finish();
    let stats = stats?;
    println!(
        "imported {} into {} in {:.2} s",
        summary(&stats),
        dest.display(),
        started.elapsed().as_secs_f64()
    );
    warn_skipped(
        &stats,
        "sockets (and archive entries of other kinds) are not imported",
    );
    Ok(ExitCode::SUCCESS)
}

pub fn export(ws: &Workspace, args: ExportArgs) -> Result<ExitCode> {
    let (src, dest) = match args.paths.as_slice() {
        [dest] => (PathBuf::from(computer::DEFAULT_CWD), dest.clone()),
        [src, dest] => (ws.resolve(src), dest.clone()),
        _ => anyhow::bail!("export takes SRC and DEST, or DEST alone"),
    };
    let dest_text = dest.to_string_lossy();
    if computer_bucket::BucketUrl::is_bucket(&dest_text) {
        return crate::cmd_bucket::export(ws, &src, &dest_text, args.delete);
    }
    if args.delete {
        anyhow::bail!("--delete is for s3:// destinations (a folder export writes only)");
    }
    let started = Instant::now();
    let bar = Bar::new();
    let stats = ws
        .export(&src, &dest, &mut |p| bar.update(p))
        .with_context(|| format!("export {}", src.display()));
    bar.finish();
    let stats = stats?;
    println!(
        "exported {} to {} in {:.2} s",
        summary(&stats),
        dest.display(),
        started.elapsed().as_secs_f64()
    );
    warn_skipped(
        &stats,
        "sockets are not exported, and device nodes are never made on the host",
    );
    Ok(ExitCode::SUCCESS)
}

fn summary(s: &TransferStats) -> String {
    let mut parts = vec![
        format!("{} files", s.files),
        format!("{} directories", s.dirs),
    ];
    if s.symlinks > 0 {
        parts.push(format!("{} symlinks", s.symlinks));
    }
    if s.hard_links > 0 {
        parts.push(format!("{} hard links", s.hard_links));
    }
    if s.specials > 0 {
        parts.push(format!("{} FIFOs and device nodes", s.specials));
    }
    format!("{} ({})", parts.join(", "), human_size(s.bytes))
}

fn warn_skipped(stats: &TransferStats, why: &str) {
    for path in stats.skipped.iter().take(10) {
        eprintln!("computer: skipped {}: {why}", path.display());
    }
    if stats.skipped.len() > 10 {
        eprintln!(
            "computer: ... and {} more skipped",
            stats.skipped.len() - 10
        );
    }
}

/// A progress bar on stderr; invisible when stderr is not a terminal.
pub(crate) struct Bar(ProgressBar);

impl Bar {
    pub(crate) fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar(bar)
    }

    fn update(&self, p: &Progress<'_>) {
        self.set(p.bytes_done, p.bytes_total, p.current);
    }

    /// Shows `done` of `total` bytes, working on `current`.
    pub(crate) fn set(&self, done: u64, total: Option<u64>, current: &Path) {
        if let Some(total) = total {
            self.0.set_length(total);
        }
        self.0.set_position(done);
        self.0.set_message(shorten(current));
    }

    pub(crate) fn finish(&self) {
        self.0.finish_and_clear();
    }
}

fn shorten(path: &Path) -> String {
    let s = path.display().to_string();
    if s.chars().count() > 40 {
        let tail: String = s
            .chars()
            .rev()
            .take(39)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("…{tail}")
    } else {
        s
    }
}
