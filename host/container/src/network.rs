//! A container's way out. The container has no network interface but loopback; the host
//! opens a listener on the container's own `127.0.0.1` (in its network namespace, so no
//! program of ours runs inside, and nothing there can stop or replace it) and serves the
//! workspace's egress proxy on it ([`computer_net::Proxy`]). Commands find it through
//! `HTTP_PROXY`/`HTTPS_PROXY`, and the proxy's own CA (for the hosts whose TLS it ends)
//! through the usual trust variables, in a folder bound read-only at [`NET_DIR`].

use std::io::Write;
use std::net::TcpListener;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use bollard::models::{Mount as DockerMount, MountType};
use computer_net::{EgressSlot, Proxy, ProxyServer};

use crate::error::{ContainerError, Result, io};

/// The port of the proxy on the container's loopback.
pub const EGRESS_PROXY_PORT: u16 = 3128;

/// Where the container sees the proxy's CA (`ca.pem`) and the system's roots with it
/// (`ca-bundle.pem`).
pub const NET_DIR: &str = "/run/computer";

/// The trust stores an image may hold, read to make the bundle.
const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
];

/// The host folder of one container's network files (`$TMPDIR/computer-net/NAME`): made
/// before the container, so that it can be bound at [`NET_DIR`]. Not under the mount root,
/// whose sweep removes any empty folder there (another process's sweep would take this one
/// before its files are written). Folders of processes that are gone are removed here.
pub(crate) fn make_dir(name: &str) -> Result<PathBuf> {
    let root = std::env::temp_dir().join("computer-net");
    crate::sandbox::private_root(&root)?;
    sweep(&root);
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::DirBuilder::new()
        .mode(0o755)
        .create(&dir)
        .map_err(io(format!("create {}", dir.display())))?;
    Ok(dir)
}

/// Removes the folders (`computer-PID-N`) of processes no longer running.
fn sweep(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("computer-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !crate::procs::alive(pid)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The read-only bind of `dir` at [`NET_DIR`].
pub(crate) fn docker_mount(dir: &Path) -> DockerMount {
    DockerMount {
        target: Some(NET_DIR.into()),
        source: Some(dir.display().to_string()),
        typ: Some(MountType::BIND),
        read_only: Some(true),
        ..Default::default()
    }
}

/// The command to read the image's own trust store (empty when it has none).
pub(crate) fn read_system_roots() -> Vec<String> {
    let mut argv = vec!["cat".to_string()];
    argv.extend(SYSTEM_BUNDLES.iter().map(|s| s.to_string()));
    argv
}

/// The proxy serving one container, and its folder.
pub(crate) struct Network {
    _server: ProxyServer,
    dir: PathBuf,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network").field("dir", &self.dir).finish()
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Network {
    /// Starts the proxy of the container whose init is host pid `init`: a new CA, written
    /// with `system_roots` (the image's own trust store) into `dir`, and the listener on the
    /// container's loopback.
    pub(crate) fn start(
        slot: EgressSlot,
        init: u32,
        dir: PathBuf,
        system_roots: &[u8],
    ) -> Result<Network> {
        let proxy = Proxy::new(slot).map_err(|e| ContainerError::Network(e.to_string()))?;
        let ca = proxy.ca_pem().as_bytes();
        write_file(&dir.join("ca.pem"), ca)?;
        let mut bundle = system_roots.to_vec();
        if !bundle.is_empty() && !bundle.ends_with(b"\n") {
            bundle.push(b'\n');
        }
        bundle.extend_from_slice(ca);
        write_file(&dir.join("ca-bundle.pem"), &bundle)?;
        let listener = listen_in(init, EGRESS_PROXY_PORT).map_err(|e| {
            ContainerError::Network(format!(
                "listen on 127.0.0.1:{EGRESS_PROXY_PORT} in the container's network: {e}"
            ))
        })?;
        let server = proxy
            .serve(listener)
            .map_err(io("start the egress proxy".to_string()))?;
        Ok(Network {
            _server: server,
            dir,
        })
    }

    /// What every command's environment gets (unless the command sets it itself).
    pub(crate) fn env() -> Vec<(&'static str, String)> {
        let proxy = format!("http://127.0.0.1:{EGRESS_PROXY_PORT}");
        let bundle = format!("{NET_DIR}/ca-bundle.pem");
        let mut env: Vec<(&'static str, String)> =
            ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]
                .into_iter()
                .map(|k| (k, proxy.clone()))
                .collect();
        for key in ["NO_PROXY", "no_proxy"] {
            env.push((key, "localhost,127.0.0.1,::1".into()));
        }
        for key in [
            "SSL_CERT_FILE",
            "CURL_CA_BUNDLE",
            "REQUESTS_CA_BUNDLE",
            "PIP_CERT",
            "GIT_SSL_CAINFO",
        ] {
            env.push((key, bundle.clone()));
        }
        env.push(("NODE_EXTRA_CA_CERTS", format!("{NET_DIR}/ca.pem")));
        env
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)
        .map_err(io(format!("create {}", path.display())))?;
    file.write_all(bytes)
        .map_err(io(format!("write {}", path.display())))
}

/// A listener on `127.0.0.1:port` of the network namespace of host pid `pid`: bound by a
/// thread that enters that namespace and ends there (a socket keeps the namespace it was
/// made in; the process's other threads never leave theirs).
fn listen_in(pid: u32, port: u16) -> std::io::Result<TcpListener> {
    let ns = std::fs::File::open(format!("/proc/{pid}/ns/net"))?;
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                nix::sched::setns(&ns, nix::sched::CloneFlags::CLONE_NEWNET)
                    .map_err(std::io::Error::from)?;
                TcpListener::bind(("127.0.0.1", port))
            })
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the listening thread panicked")))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sweep_takes_only_folders_of_processes_that_are_gone() {
        let root = tempfile::tempdir().unwrap();
        let gone = root.path().join("computer-999999999-1");
        let mine = root
            .path()
            .join(format!("computer-{}-1", std::process::id()));
        let other = root.path().join("not-ours");
        for dir in [&gone, &mine, &other] {
            std::fs::create_dir(dir).unwrap();
            std::fs::write(dir.join("ca.pem"), "x").unwrap();
        }
        super::sweep(root.path());
        assert!(!gone.exists());
        assert!(mine.exists() && other.exists());
    }
}
