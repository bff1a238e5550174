//! Whether the container backend can run its default image here: the Docker engine, FUSE and
//! root (for the mounts), and the default image or debootstrap to build it. Shared by the CLI's
//! and the toolkit's tests (included by path). Outside CI a machine without them skips with
//! the reason printed; in CI (`CI` set) they must be there.

/// `true` when the default image can run here; otherwise says why (and fails in CI).
pub fn containers_here() -> bool {
    let docker = std::env::var_os("DOCKER_HOST").is_some()
        || std::path::Path::new("/var/run/docker.sock").exists();
    let root = std::fs::read_to_string("/proc/self/status")
        .is_ok_and(|s| s.lines().any(|l| l.starts_with("Uid:\t0\t")));
    let image = std::process::Command::new("docker")
        .args(["image", "inspect", computer::containers::DEFAULT_IMAGE])
        .output()
        .is_ok_and(|o| o.status.success())
        || std::process::Command::new("debootstrap")
            .arg("--version")
            .output()
            .is_ok();
    let why = if !docker {
        "no Docker engine here"
    } else if !std::path::Path::new("/dev/fuse").exists() || !root {
        "no /dev/fuse here, or not root (FUSE mounts need it)"
    } else if !image {
        "no default image and no debootstrap to build it"
    } else {
        return true;
    };
    assert!(std::env::var_os("CI").is_none(), "CI needs this: {why}");
    println!("skipped: {why}");
    false
}
