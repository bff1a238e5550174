//! How containers are made: the image, the limits (each with a default), where workspaces
//! are mounted on the host.

use std::path::PathBuf;
use std::time::Duration;

/// The default image: Debian bookworm with python3, git, curl, build-essential, built locally
/// by [`crate::build_debian_image`] (`computer image build`) when no registry has it. The tag
/// changes with [`DEFAULT_PACKAGES`], so an image built with an older list is not taken for it.
pub const DEFAULT_IMAGE: &str = "computer-base:bookworm-2";

/// Packages the default image holds beyond Debian's minimal base.
pub const DEFAULT_PACKAGES: &[&str] = &[
    "python3",
    "git",
    "ca-certificates",
    "curl",
    "build-essential",
    "xz-utils",
    "procps",
];

/// The limits of one container and of each command in it.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Memory of the container, bytes (swap is not allowed beyond it).
    pub memory_bytes: i64,
    /// CPUs (fractions allowed).
    pub cpus: f64,
    /// Processes and threads at once (stops fork bombs).
    pub pids: i64,
    /// Default wall-clock time of one command.
    pub timeout: Duration,
    /// The longest time a caller may ask for.
    pub max_timeout: Duration,
    /// Bytes of stdout and of stderr kept per command (the rest is counted, not kept).
    pub output_bytes: usize,
    /// Size of the writable `/tmp` (a tmpfs; the rest of the root is read-only).
    pub tmp_bytes: u64,
    /// Copy mode: the most one download of the container's changes may hold (the archive the
    /// engine sends is the container's to shape, so it is not trusted to be small).
    pub copy_back_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_bytes: 2 << 30,
            cpus: 2.0,
            pids: 512,
            timeout: Duration::from_secs(120),
            max_timeout: Duration::from_secs(3600),
            output_bytes: 4 << 20,
            tmp_bytes: 1 << 30,
            copy_back_bytes: 4 << 30,
        }
    }
}

/// How the workspace reaches the container's `/workspace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transfer {
    /// `Mount` when the engine runs on this machine and FUSE can be mounted here (root and
    /// `/dev/fuse`), `Copy` otherwise.
    #[default]
    Auto,
    /// The workspace mounted by FUSE and bound into the container: one copy, every change
    /// seen at once both ways.
    Mount,
    /// The workspace copied into a volume of the container before each command and what the
    /// command changed copied back after it, through the engine's archive API: for an engine
    /// on another machine.
    Copy,
}

impl std::str::FromStr for Transfer {
    type Err = String;

    fn from_str(s: &str) -> Result<Transfer, String> {
        match s {
            "auto" => Ok(Transfer::Auto),
            "mount" => Ok(Transfer::Mount),
            "copy" => Ok(Transfer::Copy),
            other => Err(format!(
                "unknown transfer mode {other:?}: expected auto, mount or copy"
            )),
        }
    }
}

/// The container backend's settings.
#[derive(Debug, Clone)]
pub struct ContainerConfig {
    /// The image commands run in.
    pub image: String,
    /// Limits.
    pub limits: Limits,
    /// The user commands run as (`uid[:gid]`); `None` is the image's (root, with every
    /// capability dropped).
    pub user: Option<String>,
    /// A warm container unused this long is stopped and removed.
    pub idle: Duration,
    /// How the workspace reaches the container.
    pub transfer: Transfer,
    /// Host directory under which workspaces are mounted for containers (made a shared
    /// mount so that a remount reaches running containers).
    pub mount_root: PathBuf,
}

impl Default for ContainerConfig {
    fn default() -> ContainerConfig {
        ContainerConfig {
            image: DEFAULT_IMAGE.to_string(),
            limits: Limits::default(),
            user: None,
            idle: Duration::from_secs(300),
            transfer: Transfer::Auto,
            mount_root: std::env::temp_dir().join("computer-mounts"),
        }
    }
}
