//! Images built here, for an engine that cannot pull: Debian from debootstrap, and a tiny
//! `FROM scratch` image of the host's static busybox. Both are imported as a root filesystem
//! tarball (`docker import`), with `WORKDIR /workspace`.

use std::path::Path;
use std::process::Stdio;

use bollard::Docker;
use bollard::query_parameters::CreateImageOptionsBuilder;
use bytes::Bytes;
use futures_util::StreamExt;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use crate::error::{ContainerError, Result, docker, io};

const PATH: &str = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

fn image_error(image: &str, reason: impl Into<String>) -> ContainerError {
    ContainerError::Image {
        image: image.to_string(),
        reason: reason.into(),
    }
}

/// Holds this host's lock on making `image` (pulling, building, importing): two processes
/// (a second `computer`, tests side by side) must not both spend minutes building it, nor
/// leave an untagged copy behind. Released when dropped.
pub(crate) struct ImageLock {
    _held: std::fs::File,
}

impl ImageLock {
    /// Waits for the lock, saying so through `progress` if another process has it.
    pub(crate) async fn take(image: &str, progress: &mut (dyn FnMut(&str) + Send)) -> Result<Self> {
        let name: String = image
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = std::env::temp_dir().join(format!("computer-image-{name}.lock"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io(format!("open {}", path.display())))?;
        match file.try_lock() {
            Ok(()) => return Ok(ImageLock { _held: file }),
            Err(std::fs::TryLockError::WouldBlock) => {
                progress(&format!("waiting for another process making {image}"));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(io(format!("lock {}", path.display()))(e));
            }
        }
        tokio::task::spawn_blocking(move || file.lock().map(|()| ImageLock { _held: file }))
            .await
            .map_err(|e| image_error(image, format!("waiting for the image lock failed: {e}")))?
            .map_err(io(format!("lock {}", path.display())))
    }
}

/// `repo:tag` split (the tag defaults to `latest`).
fn split_tag(image: &str) -> (&str, &str) {
    match image.rsplit_once(':') {
        Some((repo, tag)) if !tag.contains('/') => (repo, tag),
        _ => (image, "latest"),
    }
}

/// The options of `docker import` of a root filesystem tarball as `image`.
fn import_options(
    image: &str,
    changes: Vec<String>,
) -> bollard::query_parameters::CreateImageOptions {
    let (repo, tag) = split_tag(image);
    CreateImageOptionsBuilder::default()
        .from_src("-")
        .repo(repo)
        .tag(tag)
        .changes(changes)
        .build()
}

/// Waits for an import to finish.
async fn finish_import(
    image: &str,
    mut progress: impl futures_util::Stream<
        Item = std::result::Result<bollard::models::CreateImageInfo, bollard::errors::Error>,
    > + Unpin,
) -> Result<()> {
    while let Some(step) = progress.next().await {
        step.map_err(docker(format!("import image {image}")))?;
    }
    Ok(())
}

/// The tiny image: `/bin/busybox` of the host (Debian's busybox-static) with a link per
/// command, `/etc/passwd`, and empty `/tmp`, `/workspace`, `/root`.
pub(crate) async fn build_busybox(docker: &Docker, image: &str) -> Result<()> {
    let busybox = ["/bin/busybox", "/usr/bin/busybox"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or_else(|| image_error(image, "no busybox here (apt-get install busybox-static)"))?;
    let list = tokio::process::Command::new(busybox)
        .arg("--list")
        .output()
        .await
        .map_err(io(format!("{busybox} --list")))?;
    let applets = String::from_utf8_lossy(&list.stdout).into_owned();
    let binary = std::fs::read(busybox).map_err(io(format!("read {busybox}")))?;
    // A dynamically linked one would find no loader in an image with nothing else in it.
    if has_interpreter(&binary) {
        return Err(image_error(
            image,
            format!("{busybox} is dynamically linked: install busybox-static"),
        ));
    }
    let mut tar = tar::Builder::new(Vec::new());
    let dir = |tar: &mut tar::Builder<Vec<u8>>, path: &str, mode: u32| {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Directory);
        h.set_mode(mode);
        h.set_size(0);
        tar.append_data(&mut h, path, std::io::empty())
    };
    let file = |tar: &mut tar::Builder<Vec<u8>>, path: &str, mode: u32, data: &[u8]| {
        let mut h = tar::Header::new_gnu();
        h.set_mode(mode);
        h.set_size(data.len() as u64);
        tar.append_data(&mut h, path, data)
    };
    let built = (|| -> std::io::Result<Vec<u8>> {
        for (path, mode) in [
            ("bin", 0o755),
            ("etc", 0o755),
            ("tmp", 0o1777),
            ("workspace", 0o755),
            ("root", 0o700),
            ("proc", 0o555),
            ("sys", 0o555),
            ("dev", 0o755),
        ] {
            dir(&mut tar, path, mode)?;
        }
        file(&mut tar, "bin/busybox", 0o755, &binary)?;
        file(
            &mut tar,
            "etc/passwd",
            0o644,
            b"root:x:0:0:root:/root:/bin/sh\n",
        )?;
        file(&mut tar, "etc/group", 0o644, b"root:x:0:\n")?;
        for applet in applets.lines().map(str::trim) {
            if applet.is_empty() || applet == "busybox" || applet.contains('/') {
                continue;
            }
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(tar::EntryType::Symlink);
            h.set_size(0);
            h.set_mode(0o777);
            tar.append_link(&mut h, format!("bin/{applet}"), "busybox")?;
        }
        tar.into_inner()
    })()
    .map_err(io("assemble the busybox root filesystem"))?;
    let changes = vec![
        format!("ENV {PATH}"),
        "WORKDIR /workspace".to_string(),
        "CMD [\"/bin/sh\"]".to_string(),
    ];
    let body = bollard::body_full(Bytes::from(built));
    let steps = docker.create_image(Some(import_options(image, changes)), Some(body), None);
    finish_import(image, Box::pin(steps)).await
}

/// Whether a 64-bit little-endian ELF file names a program interpreter (a dynamic loader):
/// a `PT_INTERP` entry among its program headers.
fn has_interpreter(elf: &[u8]) -> bool {
    let u16_at = |at: usize| {
        elf.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u64_at = |at: usize| {
        elf.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    if elf.get(..5) != Some(b"\x7fELF\x02") {
        return false;
    }
    let (Some(phoff), Some(size), Some(count)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38)) else {
        return false;
    };
    (0..usize::from(count)).any(|i| {
        let at = usize::try_from(phoff)
            .unwrap_or(usize::MAX)
            .saturating_add(i * usize::from(size));
        elf.get(at..at + 4) == Some(&3u32.to_le_bytes()[..])
    })
}

/// The keyring debootstrap checks the packages' signatures with (`given`, else Debian's):
/// without one it would take whatever the mirror, or anyone on the way, sends.
fn keyring(image: &str, given: Option<std::ffi::OsString>) -> Result<std::path::PathBuf> {
    let keyring = given
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/usr/share/keyrings/debian-archive-keyring.gpg".into());
    if !keyring.is_file() {
        return Err(image_error(
            image,
            format!(
                "no Debian archive keyring at {} to check the packages with: install it \
                 (apt-get install debian-archive-keyring) or set COMPUTER_DEBIAN_KEYRING",
                keyring.display()
            ),
        ));
    }
    Ok(keyring)
}

/// Debian bookworm from debootstrap, trimmed, imported.
pub(crate) async fn build_debian(
    docker: &Docker,
    image: &str,
    packages: &[&str],
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<()> {
    let mirror = std::env::var("COMPUTER_DEBIAN_MIRROR")
        .unwrap_or_else(|_| "http://deb.debian.org/debian".to_string());
    // On disk, not in /tmp (often a small tmpfs): the tree is a few hundred MB.
    let scratch = tempfile::Builder::new()
        .prefix("computer-image-")
        .tempdir_in("/var/tmp")
        .map_err(io("make a scratch directory in /var/tmp"))?;
    let root = scratch.path().join("rootfs");
    let keyring = keyring(image, std::env::var_os("COMPUTER_DEBIAN_KEYRING"))?;
    let mut command = tokio::process::Command::new("debootstrap");
    command
        .arg(format!("--keyring={}", keyring.display()))
        .arg("--variant=minbase")
        .arg(format!("--include={}", packages.join(",")))
        .arg("bookworm")
        .arg(&root)
        .arg(&mirror)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(|e| {
        image_error(
            image,
            format!("cannot run debootstrap ({e}); install it: apt-get install debootstrap"),
        )
    })?;
    let mut lines = child.stdout.take().map(|out| BufReader::new(out).lines());
    let mut stderr = child.stderr.take();
    let mut last = String::new();
    if let Some(lines) = lines.as_mut() {
        while let Ok(Some(line)) = lines.next_line().await {
            progress(&format!("debootstrap: {line}"));
            last = line;
        }
    }
    let status = child.wait().await.map_err(io("wait for debootstrap"))?;
    if !status.success() {
        let mut err = String::new();
        if let Some(stderr) = stderr.as_mut() {
            let _ = stderr.read_to_string(&mut err).await;
        }
        return Err(image_error(
            image,
            format!(
                "debootstrap failed ({status}) from {mirror}: {} {}",
                last.trim(),
                err.trim()
            ),
        ));
    }
    progress("trimming caches, documentation and locales");
    trim(&root).map_err(io("trim the root filesystem"))?;
    progress(&format!("importing {image}"));
    let mut tar = tokio::process::Command::new("tar")
        .arg("-C")
        .arg(&root)
        .args(["--numeric-owner", "-cf", "-", "."])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(io("run tar"))?;
    let out = tar
        .stdout
        .take()
        .ok_or_else(|| image_error(image, "tar has no output"))?;
    let stream = futures_util::stream::unfold(out, |mut out| async move {
        let mut buf = vec![0u8; 1 << 20];
        match out.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(Bytes::from(buf)), out))
            }
            Err(e) => Some((Err(e), out)),
        }
    });
    let changes = vec![
        format!("ENV {PATH}"),
        "ENV LANG=C.UTF-8".to_string(),
        "WORKDIR /workspace".to_string(),
        "CMD [\"/bin/bash\"]".to_string(),
    ];
    let body = bollard::body_try_stream(stream);
    let steps = docker.create_image(Some(import_options(image, changes)), Some(body), None);
    finish_import(image, Box::pin(steps)).await?;
    let status = tar.wait().await.map_err(io("wait for tar"))?;
    if !status.success() {
        return Err(image_error(
            image,
            format!("tar of the root filesystem failed ({status})"),
        ));
    }
    progress(&format!("built {image}"));
    Ok(())
}

/// Removes what an image does not need (apt caches and lists, docs, man pages, locales) and
/// keeps later installs slim (a dpkg `path-exclude` file).
fn trim(root: &Path) -> std::io::Result<()> {
    for dir in [
        "var/cache/apt/archives",
        "var/lib/apt/lists",
        "usr/share/doc",
        "usr/share/man",
        "usr/share/info",
        "usr/share/locale",
    ] {
        let dir = root.join(dir);
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() && !path.is_symlink() {
                    std::fs::remove_dir_all(&path)?;
                } else if path
                    .file_name()
                    .is_some_and(|n| n != "lock" && n != "partial")
                {
                    std::fs::remove_file(&path)?;
                }
            }
        }
    }
    std::fs::create_dir_all(root.join("etc/dpkg/dpkg.cfg.d"))?;
    std::fs::write(
        root.join("etc/dpkg/dpkg.cfg.d/01-computer-slim"),
        "path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\n\
         path-exclude /usr/share/info/*\npath-exclude /usr/share/locale/*\n",
    )?;
    std::fs::create_dir_all(root.join("workspace"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::split_tag;

    #[test]
    fn debootstrap_never_runs_without_a_keyring() {
        let err = super::keyring("img", Some("/nonexistent/keyring.gpg".into()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no Debian archive keyring"), "{err}");
        assert!(err.contains("COMPUTER_DEBIAN_KEYRING"), "{err}");
    }

    #[test]
    fn dynamic_executables_are_told_from_static_ones() {
        let dynamic = std::fs::read("/bin/sh").unwrap();
        assert!(super::has_interpreter(&dynamic));
        assert!(!super::has_interpreter(b"not an elf file"));
        if let Ok(busybox) = std::fs::read("/bin/busybox")
            && std::process::Command::new("file")
                .args(["-L", "/bin/busybox"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("statically linked"))
        {
            assert!(!super::has_interpreter(&busybox));
        }
    }

    #[tokio::test]
    async fn one_process_at_a_time_makes_an_image() {
        // A name of its own: another test run on this host must not share the lock.
        let image = format!("computer-lock-test:{}", std::process::id());
        let first = super::ImageLock::take(&image, &mut |_| {}).await.unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let waiter = {
            let image = image.clone();
            tokio::spawn(async move {
                let mut said = |m: &str| {
                    let _ = tx.send(m.to_string());
                };
                super::ImageLock::take(&image, &mut said).await.map(|_| ())
            })
        };
        // The second one says it waits, and does wait while the first holds the lock.
        let said = rx.recv().await.unwrap();
        assert_eq!(said, format!("waiting for another process making {image}"));
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(!waiter.is_finished());
        drop(first);
        waiter.await.unwrap().unwrap();
    }

    #[test]
    fn image_names_split_into_repository_and_tag() {
        assert_eq!(
            split_tag("computer-base:bookworm"),
            ("computer-base", "bookworm")
        );
        assert_eq!(split_tag("busybox"), ("busybox", "latest"));
        assert_eq!(
            split_tag("localhost:5000/x"),
            ("localhost:5000/x", "latest")
        );
        assert_eq!(split_tag("localhost:5000/x:1"), ("localhost:5000/x", "1"));
    }
}
