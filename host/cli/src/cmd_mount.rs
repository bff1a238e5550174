//! `computer mount DIR` and `computer umount DIR`: the workspace on the host through FUSE, for
//! people and their programs (editors, compilers, git) while agents work in it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use computer::Workspace;
use computer_fuse::{Mount, MountOptions};

/// `computer mount` arguments.
#[derive(Debug, clap::Args)]
pub struct MountArgs {
    /// The host directory to mount at (created if missing; must be empty).
    dir: PathBuf,
    /// The workspace directory to show there.
    #[arg(long, default_value = "/workspace")]
    root: PathBuf,
    /// Refuse writes.
    #[arg(long)]
    read_only: bool,
    /// Let other local users reach the mount (FUSE's `allow_other`); each file's owner and
    /// permission bits still decide what they may do. Without it only this user gets in.
    #[arg(long)]
    allow_other: bool,
}

/// `computer umount` arguments.
#[derive(Debug, clap::Args)]
pub struct UmountArgs {
    /// The directory a `computer mount` serves (or served, if it died).
    dir: PathBuf,
}

/// Mounts, then serves until Ctrl-C, SIGTERM or `computer umount DIR`.
pub fn mount(ws: &Workspace, args: MountArgs) -> anyhow::Result<ExitCode> {
    let dir = &args.dir;
    if computer_fuse::clean_stale(dir)? {
        eprintln!(
            "computer mount: removed the dead mount left at {}",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    let not_empty = std::fs::read_dir(dir)
        .with_context(|| format!("read {}", dir.display()))?
        .next()
        .is_some();
    if not_empty {
        bail!(
            "{} is not empty: mount on an empty directory (nothing under it would be reachable)",
            dir.display()
        );
    }
    let options = MountOptions {
        root: args.root.clone(),
        read_only: args.read_only,
        allow_other: args.allow_other,
        ..MountOptions::default()
    };
    let mount = Mount::new(ws.vfs(), dir, &options)?;
    eprintln!(
        "computer mount: {} of the workspace is at {}; Ctrl-C or `computer umount {}` unmounts",
        args.root.display(),
        dir.display(),
        dir.display()
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    runtime.block_on(async {
        let unmounted_elsewhere = async {
            while mount.is_served() {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        tokio::select! {
            _ = crate::cmd_serve::stop_signal() => {}
            _ = unmounted_elsewhere => {}
        }
    });
    mount.unmount().context("unmount")?;
    eprintln!("computer mount: unmounted {}", dir.display());
    Ok(ExitCode::SUCCESS)
}

/// Unmounts a `computer mount`, or removes one whose process died.
pub fn umount(args: UmountArgs) -> anyhow::Result<ExitCode> {
    let dir = &args.dir;
    if !computer_fuse::is_our_mount(dir) && !computer_fuse::is_stale(dir) {
        bail!("{} is not a computer mount", dir.display());
    }
    computer_fuse::unmount_lazily(dir)?;
    Ok(ExitCode::SUCCESS)
}
