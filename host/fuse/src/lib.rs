//! `computer-fuse`: a workspace's VFS mounted through FUSE ([`fuser`]), so that native
//! programs (a container's, or a person's on the host) read and write the same files as the
//! isolate and the tools, with nothing copied.
//!
//! - [`Mount::new`] serves a VFS directory (by default `/workspace`) at a host directory,
//!   with worker threads, the kernel checking permission bits against the files' owners
//!   (`default_permissions`), `allow_other` only when asked (a container's non-root user
//!   needs it; by default only the user who mounted can reach the mount), and a watchdog: a small process whose standard input is a pipe from this one, which unmounts
//!   when that pipe closes, so a killed process leaves no dead mount. (fusermount3's own
//!   `auto_unmount` left mounts behind on this kernel and hung fuser's unmount.)
//! - Every FUSE operation is one call of the VFS's inode API: lookup, getattr, setattr,
//!   readdir and readdirplus, open/create/read/write/flush/release/fsync, mkdir, unlink,
//!   rmdir, rename (with `RENAME_NOREPLACE` and `RENAME_EXCHANGE`), link, symlink, readlink,
//!   statfs, xattrs, fallocate. POSIX and BSD locks are the kernel's own (local to the host).
//!   FIFOs, sockets and device nodes are made with mknod and stored as inodes: the kernel
//!   makes the pipe behind a FIFO when one is opened, and never opens a device here (the
//!   mount is `nodev`). Permission bits and owners are enforced by the kernel; new files
//!   made through the mount belong to the caller.
//! - Coherence: the kernel trusts attributes and entries (and the absence of a name: negative
//!   entries) for a long TTL (60 s), keeps a file's cached pages across opens only while
//!   nothing but writes through the mount changed the file since its last open here
//!   (`pages.rs`; a directory's listing, cached by the kernel, likewise while the
//!   directory is unchanged), and an invalidator thread reads the VFS change log every 100 ms and
//!   tells the kernel to forget what others changed (the revisions the mount committed for
//!   the kernel's own requests are left out: metadata changes, and data written through
//!   the mount alone). A directory's entry is invalidated only when its name now
//!   names another inode than the one the kernel was given, so a directory in use is not
//!   detached. [`Mount::sync`] does the same at once (the container backend calls it before
//!   each command).
//! - [`clean_stale`] removes a mount whose server died (reads fail with ENOTCONN).

mod attr;
mod fs;
mod invalidate;
mod known;
mod own;
mod pages;

use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use computer_vfs::Vfs;
use fuser::{BackgroundSession, Config, MountOption, SessionACL};

use crate::attr::Inodes;
use crate::invalidate::Invalidator;

/// How a workspace is mounted.
#[derive(Debug, Clone)]
pub struct MountOptions {
    /// The VFS directory shown at the mount point.
    pub root: PathBuf,
    /// Let every user reach the mount (`allow_other`), not only the one who mounted it; the
    /// kernel still checks each file's permission bits. Default: false.
    pub allow_other: bool,
    /// Unmount when this process dies, however it dies (a watchdog process runs `umount -l`
    /// when this one is gone; [`clean_stale`] also removes a dead mount).
    pub auto_unmount: bool,
    /// Refuse writes (EROFS).
    pub read_only: bool,
    /// Worker threads serving requests.
    pub threads: usize,
    /// How long the kernel may cache attributes and entries: long, since the invalidator
    /// tells it of every change made by others (60 s by default).
    pub ttl: Duration,
    /// How often the change log is read for changes made by others.
    pub poll: Duration,
    /// The source name shown by `mount` and `/proc/mounts` ([`is_our_mount`] looks for the
    /// default, `computer`).
    pub fs_name: String,
}

impl Default for MountOptions {
    fn default() -> MountOptions {
        MountOptions {
            root: PathBuf::from("/workspace"),
            allow_other: false,
            auto_unmount: true,
            read_only: false,
            threads: 2,
            ttl: Duration::from_secs(60),
            poll: Duration::from_millis(100),
            fs_name: SOURCE.to_string(),
        }
    }
}

/// The source name our mounts show in `/proc/self/mountinfo` (their type is `fuse`, or
/// `fuse.computer` when mounted through fusermount3).
const SOURCE: &str = "computer";

/// A mounted workspace; unmounted when dropped.
pub struct Mount {
    mountpoint: PathBuf,
    session: Option<BackgroundSession>,
    invalidator: Arc<Invalidator>,
    /// Dropped to stop the watcher at once (not after its next poll).
    stop: Option<mpsc::Sender<()>>,
    watcher: Option<JoinHandle<()>>,
    watchdog: Option<Child>,
}

impl Mount {
    /// Mounts VFS directory `options.root` of `vfs` at `mountpoint` (an existing, empty host
    /// directory) and serves it from background threads.
    pub fn new(
        vfs: Arc<Vfs>,
        mountpoint: impl AsRef<Path>,
        options: &MountOptions,
    ) -> io::Result<Mount> {
        let mountpoint = mountpoint.as_ref().to_path_buf();
        let root = vfs.stat(&options.root).map_err(|e| e.to_io_error())?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a directory", options.root.display()),
            ));
        }
        let inodes = Inodes { root: root.ino };
        let seen = vfs.revision().map_err(|e| e.to_io_error())?;
        let known = Arc::new(known::KnownDirs::default());
        let own = Arc::new(own::OwnRevs::default());
        let fs = fs::VfsFs::new(
            Arc::clone(&vfs),
            inodes,
            options.ttl,
            Arc::clone(&known),
            Arc::clone(&own),
        );
        let mut config = Config::default();
        config.mount_options = vec![
            MountOption::FSName(options.fs_name.clone()),
            MountOption::Subtype("computer".to_string()),
            MountOption::NoDev,
            MountOption::NoSuid,
            MountOption::NoAtime,
            MountOption::DefaultPermissions,
            if options.read_only {
                MountOption::RO
            } else {
                MountOption::RW
            },
        ];
        if options.allow_other {
            config.acl = SessionACL::All;
        }
        config.n_threads = Some(options.threads.max(1));
        config.clone_fd = options.threads > 1;
        let session = fuser::spawn_mount(fs, &mountpoint, &config).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot mount at {}: {e}", mountpoint.display()),
            )
        })?;
        let watchdog = if options.auto_unmount {
            Some(watchdog(&mountpoint)?)
        } else {
            None
        };
        let invalidator = Arc::new(Invalidator::new(
            vfs,
            session.notifier(),
            inodes,
            known,
            own,
            options.root.clone(),
            seen,
        ));
        let (stop, stopped) = mpsc::channel::<()>();
        let watcher = {
            let (invalidator, poll) = (Arc::clone(&invalidator), options.poll);
            std::thread::Builder::new()
                .name("computer-fuse-invalidate".into())
                .spawn(move || {
                    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(poll) {
                        let _ = invalidator.run();
                    }
                })?
        };
        Ok(Mount {
            mountpoint,
            session: Some(session),
            invalidator,
            stop: Some(stop),
            watcher: Some(watcher),
            watchdog,
        })
    }

    /// Where it is mounted.
    pub fn mountpoint(&self) -> &Path {
        &self.mountpoint
    }

    /// Makes the kernel forget what changed in the VFS since it last looked (changes made by
    /// the isolate, the tools or other processes), now rather than at the next poll. Returns
    /// how many paths it named.
    pub fn sync(&self) -> io::Result<usize> {
        self.invalidator.run().map_err(|e| e.to_io_error())
    }

    /// Whether the mount is still served (it ends when someone unmounts it).
    pub fn is_served(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|s| !s.guard.is_finished())
    }

    /// Unmounts and waits for the serving threads to end.
    pub fn unmount(mut self) -> io::Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> io::Result<()> {
        drop(self.stop.take());
        if let Some(watcher) = self.watcher.take() {
            let _ = watcher.join();
        }
        // Stopped first: it must not unmount whatever is mounted there next.
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        match self.session.take() {
            Some(session) if session.guard.is_finished() => session.join(),
            Some(session) => match session.umount_and_join() {
                // Still busy a moment after its last user closed a file (seen in CI): detach it
                // as `umount -l` does; the kernel ends it once nothing holds it, and the serving
                // thread with it. fuser gave up the session, so nothing is left mounted.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => unmount_lazily(&self.mountpoint),
                other => other,
            },
            None => Ok(()),
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Starts the process that unmounts `mountpoint` when this one dies: it waits for the end of
/// its standard input, a pipe only this process holds. It runs in its own process group, so
/// that a Ctrl-C meant for this process does not stop it first.
fn watchdog(mountpoint: &Path) -> io::Result<Child> {
    Command::new("sh")
        // Only a dead mount is removed (another process may have mounted a live one there
        // since). Dead means a lookup fails with ENOTCONN, or ECONNABORTED when it was asked
        // while the dying server's last descriptor closed (the pipe may close first); a name
        // that does not exist is asked for because the kernel caches no failed lookups (the
        // root's attributes it may still have cached). A few tries cover that teardown.
        .args([
            "-c",
            "read _; for try in 1 2 3 4 5; do \
               if LC_ALL=C ls \"$0/.computer-probe\" 2>&1 | grep -qE 'not connected|connection abort'; \
               then exec umount -l \"$0\" 2>/dev/null; fi; sleep 0.2; done",
        ])
        .arg(mountpoint)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| io::Error::new(e.kind(), format!("cannot start the unmount watchdog: {e}")))
}

/// Whether `dir` is a FUSE mount whose server is gone (a lookup fails with ENOTCONN or
/// ECONNABORTED; the name looked up does not exist, so no cached answer can hide a dead
/// server).
pub fn is_stale(dir: &Path) -> bool {
    let probe = dir.join(".computer-probe");
    matches!(
        std::fs::symlink_metadata(probe),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOTCONN | libc::ECONNABORTED))
    )
}

/// Removes a dead mount at `dir` (lazily, as `umount -l` does). Returns whether there was one.
pub fn clean_stale(dir: &Path) -> io::Result<bool> {
    if !is_stale(dir) {
        return Ok(false);
    }
    unmount_lazily(dir)?;
    Ok(true)
}

/// Detaches the mount at `dir` (`umount -l`; `fusermount3 -uz` when not root).
pub fn unmount_lazily(dir: &Path) -> io::Result<()> {
    let tools: [(&str, &[&str]); 2] = [("umount", &["-l"]), ("fusermount3", &["-u", "-z"])];
    let mut last = None;
    for (tool, args) in tools {
        match Command::new(tool).args(args).arg(dir).output() {
            Ok(out) if out.status.success() => return Ok(()),
            Ok(out) => last = Some(String::from_utf8_lossy(&out.stderr).trim().to_string()),
            Err(e) => last = Some(format!("{tool}: {e}")),
        }
    }
    Err(io::Error::other(format!(
        "cannot unmount {}: {}",
        dir.display(),
        last.unwrap_or_default()
    )))
}

/// One line of a `/proc/PID/mountinfo` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountInfo {
    /// Where it is mounted (unescaped).
    pub mountpoint: PathBuf,
    /// The filesystem type (`fuse`, `fuse.computer`, `ext4`...).
    pub fstype: String,
    /// The source (`computer` for ours).
    pub source: String,
    /// Whether it propagates mounts to its peers (`shared:N` among the optional fields).
    pub shared: bool,
}

impl MountInfo {
    /// Whether this is a mount of this crate: FUSE, with the source `computer`.
    pub fn is_ours(&self) -> bool {
        (self.fstype == "fuse" || self.fstype.starts_with("fuse.")) && self.source == SOURCE
    }
}

/// The mounts a mountinfo table lists (this process's: `/proc/self/mountinfo`; a container's
/// as it reads it from inside).
pub fn parse_mountinfo(table: &str) -> Vec<MountInfo> {
    table
        .lines()
        .filter_map(|line| {
            // ID PARENT DEV ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
            let (head, tail) = line.split_once(" - ")?;
            let mut fields = head.split(' ');
            let mountpoint = fields.nth(4)?;
            let shared = fields.any(|f| f.starts_with("shared:"));
            let mut tail = tail.split(' ');
            Some(MountInfo {
                mountpoint: PathBuf::from(unescape(mountpoint)),
                fstype: tail.next()?.to_string(),
                source: tail.next()?.to_string(),
                shared,
            })
        })
        .collect()
}

/// This process's mounts (none if the table cannot be read).
pub fn mounts() -> Vec<MountInfo> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|t| parse_mountinfo(&t))
        .unwrap_or_default()
}

/// Whether `dir` is a mount of this crate.
pub fn is_our_mount(dir: &Path) -> bool {
    let Ok(dir) = dir.canonicalize() else {
        return false;
    };
    mounts().iter().any(|m| m.mountpoint == dir && m.is_ours())
}

/// `/proc/self/mountinfo` escapes space, tab, newline and backslash as octal.
fn unescape(field: &str) -> String {
    field
        .replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_give_mountpoint_type_source_and_sharing() {
        let table = "44 27 254:0 /tmp/m /tmp/m rw,relatime shared:2 - ext4 /dev/vda rw\n\
                     43 44 0:75 / /tmp/m/a\\040b rw,nosuid - fuse computer rw,user_id=0\n\
                     garbage\n";
        let mounts = parse_mountinfo(table);
        assert_eq!(mounts.len(), 2);
        assert_eq!(mounts[0].mountpoint, Path::new("/tmp/m"));
        assert!(mounts[0].shared && !mounts[0].is_ours());
        assert_eq!(mounts[1].mountpoint, Path::new("/tmp/m/a b"));
        assert!(!mounts[1].shared && mounts[1].is_ours());
    }
}
