//! `computer-container`: the container backend. Native programs (python3, gcc, git, package
//! managers) run in a Docker container, reached through `bollard`, whose `/workspace` is the
//! workspace itself, served by FUSE ([`computer_fuse`]) from the same SQLite file.
//!
//! - [`Engine`]: the engine at `DOCKER_HOST` or the local socket, API version negotiated;
//!   images present, pulled, or built here ([`Engine::build_debian_image`] with debootstrap,
//!   [`Engine::build_busybox_image`] from the host's static busybox); removal of containers
//!   and mounts a killed host left behind ([`Engine::clean_stale`]).
//! - [`Sandbox`]: one warm container per workspace. The workspace is mounted under a parent
//!   directory made a shared mount and bound into the container with `rslave` propagation;
//!   before anything runs, the container's `/workspace` is checked to be that mount. Limits,
//!   each with a default ([`Limits`]): memory (no swap beyond it), CPUs, pids, no network,
//!   all capabilities dropped, `no-new-privileges`, a read-only root with a tmpfs `/tmp`,
//!   an init process that reaps orphans; per command a time limit that kills every process
//!   the command started (found by a mark in their environment, which children inherit),
//!   and an output cap. An OOM kill is reported as the memory limit.
//! - Network: none but loopback. With a local engine, the workspace's egress proxy
//!   ([`computer_net::Proxy`]) listens on the container's own `127.0.0.1:3128`, opened by
//!   the host in the container's network namespace; `HTTP_PROXY`, `HTTPS_PROXY` and the
//!   trust variables (`SSL_CERT_FILE`, ...) point commands at it and at its CA ([`NET_DIR`]).
//! - Copy mode ([`Transfer::Copy`]) for an engine the mount cannot reach: the workspace is
//!   copied into a volume at the container's `/workspace` before each command (only what
//!   changed) and what the command changed is copied back, through the archive API.
//! - Commands get the caller's environment only (never the host's), with `PATH` and `HOME`
//!   defaults; `cwd` is relative to `/workspace`.

mod backend;
mod config;
mod copy;
mod engine;
mod error;
mod image;
mod network;
mod procs;
mod sandbox;

pub use backend::{ContainerFallback, ContainerProgress, Containers};
pub use config::{ContainerConfig, DEFAULT_IMAGE, DEFAULT_PACKAGES, Limits, Transfer};
pub use engine::Engine;
pub use error::{ContainerError, Result};
pub use network::{EGRESS_PROXY_PORT, NET_DIR};
pub use sandbox::{Command, Output, OutputStream, Sandbox};
