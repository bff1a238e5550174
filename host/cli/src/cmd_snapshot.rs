//! `computer snapshot ...`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;
use computer::Workspace;

use crate::format::{datetime, human_size};

#[derive(Debug, Subcommand)]
pub enum SnapshotCommand {
    /// Snapshot the whole workspace (cheap: content is shared, not copied).
    Create {
        /// A name for it.
        name: String,
    },
    /// List snapshots.
    List,
    /// Delete a snapshot.
    Delete {
        /// Its name.
        name: String,
    },
    /// Replace the whole workspace with a snapshot (the snapshot stays).
    Restore {
        /// Its name.
        name: String,
    },
    /// Upload a snapshot (taken now if missing) to s3://BUCKET/PREFIX: only the content
    /// chunks the bucket lacks, and a manifest.
    Push {
        /// The snapshot.
        name: String,
        /// Where: s3://BUCKET/PREFIX (AWS_* variables give the endpoint and credentials).
        bucket: String,
    },
    /// Restore a snapshot from s3://BUCKET/PREFIX into a new workspace file.
    Pull {
        /// The snapshot.
        name: String,
        /// Where it is: s3://BUCKET/PREFIX.
        bucket: String,
        /// The new workspace file (must not exist).
        new_workspace: PathBuf,
    },
    /// Write a snapshot out as a new, independent workspace file.
    Fork {
        /// The snapshot.
        name: String,
        /// The new workspace file (must not exist).
        new_workspace: PathBuf,
    },
}

pub fn run(ws: &Workspace, cmd: SnapshotCommand) -> Result<ExitCode> {
    match cmd {
        SnapshotCommand::Create { name } => {
            let info = ws
                .snapshot(&name)
                .with_context(|| format!("snapshot create {name}"))?;
            println!(
                "created snapshot {} at revision {} ({} inodes, {})",
                info.name,
                info.rev,
                info.inodes,
                human_size(info.bytes)
            );
        }
        SnapshotCommand::List => {
            let list = ws.snapshots().context("snapshot list")?;
            if !list.is_empty() {
                println!(
                    "{:<24} {:<17} {:>8} {:>8} {:>10}",
                    "NAME", "CREATED (UTC)", "REV", "INODES", "SIZE"
                );
            }
            for s in list {
                println!(
                    "{:<24} {:<17} {:>8} {:>8} {:>10}",
                    s.name,
                    datetime(s.created, false),
                    s.rev,
                    s.inodes,
                    human_size(s.bytes)
                );
            }
        }
        SnapshotCommand::Delete { name } => {
            ws.delete_snapshot(&name)
                .with_context(|| format!("snapshot delete {name}"))?;
        }
        SnapshotCommand::Restore { name } => {
            ws.restore(&name)
                .with_context(|| format!("snapshot restore {name}"))?;
        }
        SnapshotCommand::Fork {
            name,
            new_workspace,
        } => {
            ws.fork(&name, &new_workspace)
                .with_context(|| format!("snapshot fork {name} {}", new_workspace.display()))?;
            println!("forked snapshot {name} into {}", new_workspace.display());
        }
        SnapshotCommand::Push { name, bucket } => {
            let started = std::time::Instant::now();
            let stats = crate::cmd_bucket::push(ws, &name, &bucket)?;
            println!(
                "pushed snapshot {name} to {bucket}: {} entries, {} of {} chunks uploaded ({}) in {:.2} s",
                stats.entries,
                stats.chunks_uploaded,
                stats.chunks,
                human_size(stats.bytes_uploaded),
                started.elapsed().as_secs_f64()
            );
        }
        SnapshotCommand::Pull {
            name,
            bucket,
            new_workspace,
        } => {
            crate::cmd_bucket::pull(&name, &bucket, &new_workspace)?;
            println!(
                "pulled snapshot {name} from {bucket} into {}",
                new_workspace.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
