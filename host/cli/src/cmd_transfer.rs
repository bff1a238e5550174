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
    /// A host folder, or a .tar / .tar.gz archive.
    src: PathBuf,
    /// Where in the workspace (default: /workspace/<folder name> for a folder, /workspace for
    /// an archive). A folder's contents become DEST; an archive is extracted into DEST.
    dest: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The workspace folder or file to export (default: /workspace), then the host folder or
    /// .tar / .tar.gz archive to write.
    #[arg(num_args = 1..=2, required = true, value_names = ["SRC", "DEST"])]
    paths: Vec<PathBuf>,
}

pub fn import(ws: &Workspace, args: ImportArgs) -> Result<ExitCode> {
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
    warn_skipped(&stats);
    Ok(ExitCode::SUCCESS)
}

pub fn export(ws: &Workspace, args: ExportArgs) -> Result<ExitCode> {
    let (src, dest) = match args.paths.as_slice() {
        [dest] => (PathBuf::from(computer::DEFAULT_CWD), dest.clone()),
        [src, dest] => (ws.resolve(src), dest.clone()),
        _ => unreachable!("clap allows one or two paths"),
    };
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
    format!("{} ({})", parts.join(", "), human_size(s.bytes))
}

fn warn_skipped(stats: &TransferStats) {
    for path in stats.skipped.iter().take(10) {
        eprintln!(
            "computer: skipped {}: devices, FIFOs and sockets have no place in a workspace",
            path.display()
        );
    }
    if stats.skipped.len() > 10 {
        eprintln!(
            "computer: ... and {} more skipped",
            stats.skipped.len() - 10
        );
    }
}

/// A progress bar on stderr; invisible when stderr is not a terminal.
struct Bar(ProgressBar);

impl Bar {
    fn new() -> Bar {
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
        if let Some(total) = p.bytes_total {
            self.0.set_length(total);
        }
        self.0.set_position(p.bytes_done);
        self.0.set_message(shorten(p.current));
    }

    fn finish(&self) {
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
