//! `computer import s3://...` and `computer export ... s3://...`: buckets through
//! `computer-bucket`, with the same progress bar as folders and archives.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use computer::Workspace;
use computer_bucket::{BucketConfig, BucketProgress, BucketStats};

use crate::cmd_transfer::Bar;
use crate::format::human_size;

fn show(bar: &Bar) -> impl FnMut(&BucketProgress<'_>) + Send + '_ {
    move |p| bar.set(p.bytes_done, Some(p.bytes_total), p.current)
}

/// Imports the objects under `url` into `dest`.
pub fn import(ws: &Workspace, url: &str, dest: &Path) -> Result<ExitCode> {
    let started = Instant::now();
    let bar = Bar::new();
    let stats =
        computer_bucket::import_blocking(ws, url, dest, &BucketConfig::default(), &mut show(&bar));
    bar.finish();
    let stats = stats.with_context(|| format!("import {url}"))?;
    println!(
        "imported {} objects ({}) from {url} into {} in {:.2} s",
        stats.transferred,
        human_size(stats.bytes),
        dest.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Exports `src` to `url`; with `delete`, removes objects `src` does not hold.
pub fn export(ws: &Workspace, src: &Path, url: &str, delete: bool) -> Result<ExitCode> {
    let started = Instant::now();
    let bar = Bar::new();
    let stats = computer_bucket::export_blocking(
        ws,
        src,
        url,
        delete,
        &BucketConfig::default(),
        &mut show(&bar),
    );
    bar.finish();
    let stats = stats.with_context(|| format!("export {} to {url}", src.display()))?;
    println!(
        "exported {} to {url} in {:.2} s",
        summary(&stats),
        started.elapsed().as_secs_f64()
    );
    for path in stats.skipped.iter().take(10) {
        eprintln!(
            "computer: skipped {}: only regular files are stored in buckets (not symbolic links, FIFOs, sockets or devices)",
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Uploads snapshot `name` to `url`.
pub fn push(ws: &Workspace, name: &str, url: &str) -> Result<computer_bucket::PushStats> {
    computer_bucket::push_blocking(ws, name, url, &BucketConfig::default())
        .with_context(|| format!("snapshot push {name} {url}"))
}

/// Restores snapshot `name` from `url` into the new workspace file `path`.
pub fn pull(name: &str, url: &str, path: &Path) -> Result<()> {
    computer_bucket::pull_blocking(name, url, path, &BucketConfig::default())
        .with_context(|| format!("snapshot pull {name} {url}"))?;
    Ok(())
}

fn summary(s: &BucketStats) -> String {
    let mut text = format!(
        "{} files uploaded ({}), {} unchanged",
        s.transferred,
        human_size(s.bytes),
        s.unchanged
    );
    if s.deleted > 0 {
        text.push_str(&format!(", {} deleted", s.deleted));
    }
    text
}
