//! [`Host`]: what the shell asks of whoever runs it beyond `wasi:filesystem`: the inode's
//! owner and mode, links, the workspace's usage, git, and commands for another backend. In
//! the component these are our WIT imports (`guests/shell/src/host.rs`); natively, for unit
//! tests, [`Native`] answers from the machine's own file system.

/// A file's inode, as `stat` shows it (the WIT's `file-info`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FileInfo {
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub nlink: u32,
    pub size: u64,
    pub ino: u64,
    /// Nanoseconds since the epoch.
    pub atime: i64,
    pub mtime: i64,
    pub ctime: i64,
}

impl FileInfo {
    /// What the standard library tells of an inode, where the host cannot (a path in a
    /// read-only layer): its type, size and times, read-only or not, no owner.
    pub fn from_std(m: &std::fs::Metadata) -> FileInfo {
        let kind = Kind::of(m.file_type());
        let perm = match (kind, m.permissions().readonly()) {
            (Kind::Dir, false) => 0o755,
            (Kind::Dir, true) => 0o555,
            (_, false) => 0o644,
            (_, true) => 0o444,
        };
        let nanos = |t: std::io::Result<std::time::SystemTime>| {
            t.ok()
                .map_or(0, |t| match t.duration_since(std::time::UNIX_EPOCH) {
                    Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
                    Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
                })
        };
        FileInfo {
            mode: kind.mode_bits() | perm,
            nlink: 1,
            size: m.len(),
            atime: nanos(m.accessed()),
            mtime: nanos(m.modified()),
            ctime: nanos(m.modified()),
            ..FileInfo::default()
        }
    }

    /// The inode's type, from its mode.
    pub fn kind(&self) -> Kind {
        Kind::of_mode(self.mode)
    }
}

/// The workspace's space, as `df` shows it (the WIT's `fs-usage`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FsUsage {
    pub block_size: u32,
    pub blocks: u64,
    pub blocks_free: u64,
    pub files: u64,
    pub files_free: u64,
}

/// What a command run elsewhere printed and returned.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Finished {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: i32,
}

/// Why the host's git did not run a command.
#[derive(Clone, Debug, PartialEq)]
pub enum GitError {
    /// Not a command the host's git has: another backend may run the real git.
    Unsupported(String),
    /// It failed; the message follows `fatal: `.
    Failed(String),
}

/// An HTTP request the host sends through the workspace's network policy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Redirects to follow (each checked by the policy); 0 returns the redirect.
    pub max_redirects: u32,
    pub timeout_ms: Option<u64>,
    pub max_bytes: Option<u64>,
}

/// A response's status line and headers (names in lower case).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HttpHead {
    pub version: String,
    pub status: u16,
    pub reason: String,
    pub headers: Vec<(String, String)>,
}

impl HttpHead {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The final response, after the redirects followed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HttpResponse {
    pub redirects: Vec<HttpHead>,
    pub head: HttpHead,
    pub body: Vec<u8>,
    pub url: String,
}

/// Why a request got no response; each message says why.
#[derive(Clone, Debug, PartialEq)]
pub enum HttpError {
    InvalidUrl(String),
    /// The workspace's network policy refused it.
    Refused(String),
    Resolve(String),
    Connect(String),
    Tls(String),
    Timeout(String),
    TooLarge(String),
    TooManyRedirects(String),
    /// The host's limit on requests.
    Limit(String),
    Failed(String),
}

impl HttpError {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            HttpError::InvalidUrl(m)
            | HttpError::Refused(m)
            | HttpError::Resolve(m)
            | HttpError::Connect(m)
            | HttpError::Tls(m)
            | HttpError::Timeout(m)
            | HttpError::TooLarge(m)
            | HttpError::TooManyRedirects(m)
            | HttpError::Limit(m)
            | HttpError::Failed(m) => m,
        }
    }
}

/// Why the host did not run a command.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecError {
    /// No backend has it.
    NotFound,
    /// A backend has it but could not run it (unavailable, a limit, a bad request).
    Refused(String),
}

/// A command for another backend. Its standard input is written while it runs
/// ([`Process::write`]).
#[derive(Clone, Debug, Default)]
pub struct ExecRequest {
    pub argv: Vec<String>,
    pub cwd: String,
    pub env: Vec<(String, String)>,
}

/// What a running command has written since it was last asked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Written {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Both streams have ended: the command has exited.
    pub ended: bool,
}

/// A command running on another backend, its standard input open like a pipe's. Nothing
/// here blocks but [`Process::wait`] (for at most the time given) and [`Process::status`].
pub trait Process {
    /// Gives it what it can take of `data` now: how many bytes (0 while it is behind). An
    /// error once it no longer reads (it exited).
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize>;
    /// Ends its input, as closing a pipe's writing end does.
    fn close_stdin(&mut self);
    /// What it wrote since the last call.
    fn read(&mut self) -> Written;
    /// Waits at most `max` for output, the end of its streams, or room for input.
    fn wait(&mut self, max: std::time::Duration);
    /// Its exit status, waiting for it to exit; why it could not run at all instead.
    fn finish(&mut self) -> Result<i32, ExecError>;
    /// Stops it (its status becomes 137).
    fn kill(&mut self);
}

/// What a directory listing says an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    /// A type the listing does not tell: only the inode's mode does.
    Other,
}

/// One entry of a directory listing ([`Host::list_directory`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub kind: Kind,
}

/// The host's imports.
pub trait Host {
    /// The inode at `path` (following a final link when `follow`).
    fn stat(&self, path: &str, follow: bool) -> std::io::Result<FileInfo>;
    /// Sets the permission bits (and set-id and sticky bits) of `path`.
    fn chmod(&self, path: &str, mode: u32) -> std::io::Result<()>;
    /// Sets the owner and group of `path` (`None` keeps one), through a final link when
    /// `follow`.
    fn chown(
        &self,
        path: &str,
        uid: Option<u32>,
        gid: Option<u32>,
        follow: bool,
    ) -> std::io::Result<()>;
    /// Makes `path` a FIFO with permission bits `mode`.
    fn mkfifo(&self, path: &str, mode: u32) -> std::io::Result<()>;
    /// Makes `path` a symbolic link to `target`.
    fn symlink(&self, target: &str, path: &str) -> std::io::Result<()>;
    /// The entries of directory `path` (absolute, through links) in one call, in any
    /// order. Where it cannot (by default; a read-only layer), it fails and `dir::list`
    /// lists through the standard library.
    fn list_directory(&self, path: &str) -> std::io::Result<Vec<DirEntry>> {
        let _ = path;
        Err(std::io::ErrorKind::Unsupported.into())
    }
    /// The entries of directory `path` (absolute, through links) with each one's inode
    /// (not through a final link), in one call, in any order. Where it cannot (by default;
    /// a read-only layer), it fails and `dir::list_info` asks for each entry.
    fn list_directory_info(&self, path: &str) -> std::io::Result<Vec<(String, FileInfo)>> {
        let _ = path;
        Err(std::io::ErrorKind::Unsupported.into())
    }
    /// Removes `path` and everything below it (`rm -r` of a directory).
    fn remove_tree(&self, path: &str) -> std::io::Result<()> {
        std::fs::remove_dir_all(path)
    }
    /// Copies `src` to `dest`, which must not exist, and everything below it, links as
    /// links, in one change (`cp -r`): permission bits less `mask`, owners and times kept
    /// when `preserve`. Where it cannot (by default; a read-only layer, `dest` existing),
    /// it fails, making nothing, and the caller goes down the tree.
    fn copy_tree(&self, src: &str, dest: &str, mask: u32, preserve: bool) -> std::io::Result<()> {
        let _ = (src, dest, mask, preserve);
        Err(std::io::ErrorKind::Unsupported.into())
    }
    /// The workspace's space and inodes.
    fn usage(&self) -> std::io::Result<FsUsage>;
    /// Runs `git ARGS` in `cwd` on the host's git.
    fn git(
        &self,
        cwd: &str,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<Finished, GitError>;
    /// Starts a command on another backend.
    fn spawn(&self, request: &ExecRequest) -> Result<Box<dyn Process>, ExecError>;
    /// Sends an HTTP request through the host (and its network policy).
    fn http(&self, request: &HttpRequest) -> Result<HttpResponse, HttpError> {
        let _ = request;
        Err(HttpError::Refused(
            "network: this host has no network".into(),
        ))
    }
}

/// The machine's own file system, for unit tests run natively: no git, no other backend, no
/// network.
#[cfg(unix)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Native;

#[cfg(unix)]
impl Host for Native {
    fn stat(&self, path: &str, follow: bool) -> std::io::Result<FileInfo> {
        use std::os::unix::fs::MetadataExt;
        let m = if follow {
            std::fs::metadata(path)
        } else {
            std::fs::symlink_metadata(path)
        }?;
        Ok(FileInfo {
            mode: m.mode(),
            uid: m.uid(),
            gid: m.gid(),
            nlink: m.nlink() as u32,
            size: m.size(),
            ino: m.ino(),
            atime: m.atime() * 1_000_000_000 + m.atime_nsec(),
            mtime: m.mtime() * 1_000_000_000 + m.mtime_nsec(),
            ctime: m.ctime() * 1_000_000_000 + m.ctime_nsec(),
        })
    }

    fn chmod(&self, path: &str, mode: u32) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }

    fn chown(
        &self,
        path: &str,
        uid: Option<u32>,
        gid: Option<u32>,
        follow: bool,
    ) -> std::io::Result<()> {
        if follow {
            std::os::unix::fs::chown(path, uid, gid)
        } else {
            std::os::unix::fs::lchown(path, uid, gid)
        }
    }

    fn mkfifo(&self, path: &str, mode: u32) -> std::io::Result<()> {
        // The standard library has no mkfifo; the machine's command makes one.
        let made = std::process::Command::new("mkfifo")
            .args(["-m", &format!("{mode:o}"), "--", path])
            .stderr(std::process::Stdio::null())
            .status()?;
        if made.success() {
            Ok(())
        } else if std::path::Path::new(path).exists() {
            Err(std::io::ErrorKind::AlreadyExists.into())
        } else {
            Err(std::io::ErrorKind::NotFound.into())
        }
    }

    fn symlink(&self, target: &str, path: &str) -> std::io::Result<()> {
        std::os::unix::fs::symlink(target, path)
    }

    fn usage(&self) -> std::io::Result<FsUsage> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "the workspace's usage is known only in the isolate",
        ))
    }

    fn git(&self, _: &str, args: &[String], _: &[(String, String)]) -> Result<Finished, GitError> {
        Err(GitError::Unsupported(args.join(" ")))
    }

    fn spawn(&self, _: &ExecRequest) -> Result<Box<dyn Process>, ExecError> {
        Err(ExecError::NotFound)
    }
}

/// The host's imports are the process's own (one component instance, one host), so they are
/// set once at start-up and reached from anywhere, helpers included.
static CURRENT: std::sync::OnceLock<Box<dyn Host + Send + Sync>> = std::sync::OnceLock::new();

/// Sets the host's imports for this process; the first call wins.
pub fn install(host: Box<dyn Host + Send + Sync>) {
    let _ = CURRENT.set(host);
}

/// The host's imports: those [`install`]ed, else (natively, in unit tests) [`Native`].
pub fn current() -> &'static dyn Host {
    match CURRENT.get() {
        Some(host) => host.as_ref(),
        #[cfg(unix)]
        None => &Native,
        #[cfg(not(unix))]
        None => panic!("the shell started without its host's imports"),
    }
}
