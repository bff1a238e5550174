//! A repository twice: one on the host driven by the real git CLI, one in a workspace driven
//! by computer-git; the same steps on both, outputs compared.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use computer_git::{Git, Invocation, Output};
use computer_vfs::Vfs;

/// Fixed identity and dates, so both sides write the same objects.
pub fn env(step: usize) -> HashMap<String, String> {
    let date = format!("{} +0100", 1_700_000_000 + step * 60);
    [
        ("GIT_AUTHOR_NAME", "A U Thor"),
        ("GIT_AUTHOR_EMAIL", "author@example.com"),
        ("GIT_COMMITTER_NAME", "C O Mitter"),
        ("GIT_COMMITTER_EMAIL", "committer@example.com"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .chain([
        ("GIT_AUTHOR_DATE".to_string(), date.clone()),
        ("GIT_COMMITTER_DATE".to_string(), date),
    ])
    .collect()
}

/// The real git CLI with no user or system configuration.
pub fn real_git(dir: &Path, args: &[&str], env: &HashMap<String, String>) -> Output {
    let home = dir.parent().unwrap_or(dir).join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new("git")
        .args([
            "-c",
            "init.defaultBranch=master",
            "-c",
            "advice.detachedHead=false",
        ])
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LANG", "C")
        .envs(env)
        .output()
        .expect("git runs");
    Output {
        status: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// `git ARGS` run by computer-git in workspace directory `cwd`, with the fixed identity of
/// step 1.
pub fn run(git: &Git, cwd: &str, args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    git.run(
        &args,
        &Invocation {
            cwd: Path::new(cwd),
            env: &env(1),
            progress: None,
            stop: None,
        },
    )
}

/// Runs a command line on the host with the real git (for setting up servers).
pub fn sh(dir: &Path, script: &str) {
    let out = Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .envs(env(0))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One step of a scenario.
pub enum Step<'a> {
    Write(&'a str, &'a str),
    Remove(&'a str),
    Chmod(&'a str, u32),
    Symlink(&'a str, &'a str),
    Mkdir(&'a str),
    /// A git command whose stdout and exit status must be the same on both sides.
    Git(&'a [&'a str]),
    /// A git command in a subdirectory.
    GitIn(&'a str, &'a [&'a str]),
}

/// The two sides of a parity test.
pub struct Twin {
    _host: tempfile::TempDir,
    pub host_repo: PathBuf,
    pub vfs: Arc<Vfs>,
    pub git: Git,
    pub repo: PathBuf,
}

impl Twin {
    pub fn new() -> Twin {
        let host = tempfile::tempdir().unwrap();
        let host_repo = host.path().join("repo");
        std::fs::create_dir_all(&host_repo).unwrap();
        let vfs = Arc::new(Vfs::in_memory().unwrap());
        let repo = PathBuf::from("/workspace/repo");
        vfs.create_dir_all(&repo).unwrap();
        let git = Git::new(vfs.clone()).unwrap();
        Twin {
            _host: host,
            host_repo,
            vfs,
            git,
            repo,
        }
    }

    /// Ours: `git args` at `cwd` (relative to the repository).
    pub fn ours(&self, sub: &str, args: &[&str], env: &HashMap<String, String>) -> Output {
        let cwd = if sub.is_empty() {
            self.repo.clone()
        } else {
            self.repo.join(sub)
        };
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        self.git.run(
            &args,
            &Invocation {
                cwd: &cwd,
                env,
                progress: None,
                stop: None,
            },
        )
    }

    /// Runs `steps` on both sides; every git step must print the same and exit the same.
    pub fn run(&self, name: &str, steps: &[Step<'_>]) {
        for (i, step) in steps.iter().enumerate() {
            let env = env(i);
            match step {
                Step::Write(path, text) => {
                    let host = self.host_repo.join(path);
                    std::fs::create_dir_all(host.parent().unwrap()).unwrap();
                    std::fs::write(&host, text).unwrap();
                    let ours = self.repo.join(path);
                    self.vfs.create_dir_all(ours.parent().unwrap()).unwrap();
                    self.vfs.write_file(&ours, text).unwrap();
                }
                Step::Remove(path) => {
                    std::fs::remove_file(self.host_repo.join(path)).unwrap();
                    self.vfs.remove_file(self.repo.join(path)).unwrap();
                }
                Step::Chmod(path, mode) => {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(
                        self.host_repo.join(path),
                        std::fs::Permissions::from_mode(*mode),
                    )
                    .unwrap();
                    self.vfs
                        .set_permissions(self.repo.join(path), *mode)
                        .unwrap();
                }
                Step::Symlink(target, link) => {
                    std::os::unix::fs::symlink(target, self.host_repo.join(link)).unwrap();
                    self.vfs.symlink(target, self.repo.join(link)).unwrap();
                }
                Step::Mkdir(path) => {
                    std::fs::create_dir_all(self.host_repo.join(path)).unwrap();
                    self.vfs.create_dir_all(self.repo.join(path)).unwrap();
                }
                Step::Git(args) => self.compare(name, i, "", args, &env),
                Step::GitIn(sub, args) => self.compare(name, i, sub, args, &env),
            }
        }
    }

    fn compare(
        &self,
        name: &str,
        i: usize,
        sub: &str,
        args: &[&str],
        env: &HashMap<String, String>,
    ) {
        let theirs = real_git(&self.host_repo.join(sub), args, env);
        let ours = self.ours(sub, args, env);
        let show = |o: &Output| {
            format!(
                "status {}\n--- stdout\n{}--- stderr\n{}",
                o.status,
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
        };
        assert!(
            ours.status == theirs.status && ours.stdout == theirs.stdout,
            "{name}, step {i}: git {}\n===== real git\n{}===== ours\n{}",
            args.join(" "),
            show(&theirs),
            show(&ours)
        );
    }
}

/// A source repository on the host made by the real git: nested files, an executable, a
/// symlink, two commits on `master`, a branch `side` and a tag `v1`.
pub fn source_repo(root: &Path) -> PathBuf {
    let src = root.join("src.git-work");
    std::fs::create_dir_all(&src).unwrap();
    sh(
        &src,
        "git init -q -b master . && mkdir -p a/b && echo one > a/b/one.txt && echo top > top.txt \
         && printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod +x run.sh && ln -s top.txt link \
         && git add -A && git commit -q -m first && git tag v1 \
         && echo two >> top.txt && git commit -q -am second \
         && git checkout -q -b side && echo side > side.txt && git add side.txt \
         && git commit -q -m side && git checkout -q master",
    );
    src
}

/// [`source_repo`] plus a bare clone of it, `served.git`, for the servers; returns the source.
pub fn served_repo(root: &Path) -> PathBuf {
    let src = source_repo(root);
    sh(
        root,
        &format!("git clone -q --bare {} served.git", src.display()),
    );
    src
}

/// Asserts that the workspace tree at `ours` equals the host tree at `theirs` (content,
/// exec bit, symlinks), `.git` aside.
pub fn assert_same_tree(vfs: &Vfs, ours: &Path, theirs: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut host = Vec::new();
    for entry in walkdir::WalkDir::new(theirs).sort_by_file_name() {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(theirs).unwrap().to_path_buf();
        if rel.starts_with(".git") || rel.as_os_str().is_empty() {
            continue;
        }
        let meta = entry.path().symlink_metadata().unwrap();
        let what = if meta.is_symlink() {
            format!(
                "link {}",
                std::fs::read_link(entry.path()).unwrap().display()
            )
        } else if meta.is_dir() {
            "dir".to_string()
        } else {
            format!(
                "file x={} {}",
                meta.permissions().mode() & 0o100 != 0,
                String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap())
            )
        };
        host.push((rel, what));
    }
    let mut mine = Vec::new();
    for entry in vfs.walk(ours).unwrap() {
        let rel = entry.path.strip_prefix(ours).unwrap().to_path_buf();
        if rel.starts_with(".git") || rel.as_os_str().is_empty() {
            continue;
        }
        let what = if entry.stat.kind == computer_vfs::FileType::Symlink {
            format!("link {}", vfs.read_link(&entry.path).unwrap().display())
        } else if entry.stat.is_dir() {
            "dir".to_string()
        } else {
            format!(
                "file x={} {}",
                entry.stat.perm & 0o100 != 0,
                String::from_utf8_lossy(&vfs.read_file(&entry.path).unwrap())
            )
        };
        mine.push((rel, what));
    }
    assert_eq!(mine, host);
}

/// A child process killed when dropped.
pub struct Server(pub std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A free TCP port on 127.0.0.1.
/// Opens the test servers' loopback ports in `vfs`'s network policy, as a user would with
/// `computer net allow` (by default a workspace's git reaches no host at all).
pub fn allow_loopback(vfs: &Vfs) {
    let policy = computer_net::Policy::from_text(
        "allow http://127.0.0.1:*\nallow https://127.0.0.1:*\nallow git://127.0.0.1:*",
    )
    .unwrap();
    computer_net::save_policy(vfs, &policy).unwrap();
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something listens on `port`.
pub fn wait_for(port: u16) {
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("nothing listens on port {port}");
}

/// `git daemon` serving the repositories below `base`.
pub fn git_daemon(base: &Path) -> (Server, u16) {
    let port = free_port();
    // The daemon binary itself: `git daemon` would leave it running when killed.
    let child = Command::new(exec_path().join("git-daemon"))
        .args([
            "--reuseaddr",
            "--export-all",
            "--enable=receive-pack",
            "--listen=127.0.0.1",
            &format!("--port={port}"),
            &format!("--base-path={}", base.display()),
            &base.display().to_string(),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("git daemon starts");
    wait_for(port);
    (Server(child), port)
}

/// `git http-backend` behind python's CGI server, serving the repositories below `base`.
pub fn git_http(base: &Path) -> (Server, u16) {
    git_http_with(base, false)
}

/// Like [`git_http`]; with `auth`, requests without HTTP basic credentials for the user
/// `x-access-token` get 401.
pub fn git_http_with(base: &Path, auth: bool) -> (Server, u16) {
    let site = cgi_site(base, auth);
    let port = free_port();
    let child = Command::new("python3")
        .args([
            "-W",
            "ignore",
            "-m",
            "http.server",
            "--cgi",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
        ])
        .current_dir(&site)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 http.server starts");
    wait_for(port);
    (Server(child), port)
}

/// The folder python's CGI server serves: `cgi-bin/git`, running `git http-backend` on the
/// repositories below `base` (asking for basic auth when `auth`).
fn cgi_site(base: &Path, auth: bool) -> PathBuf {
    let site = base.join("site");
    let cgi = site.join("cgi-bin");
    std::fs::create_dir_all(&cgi).unwrap();
    let exec_path = exec_path().display().to_string();
    let script = cgi.join("git");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n{}export GIT_PROJECT_ROOT={} GIT_HTTP_EXPORT_ALL=1\nexport GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*' GIT_CONFIG_KEY_1=http.receivepack GIT_CONFIG_VALUE_1=true\n# python's CGI server drops the Git-Protocol header; speak v2 as real hosts do.\nexport GIT_PROTOCOL=version=2\nexec {exec_path}/git-http-backend\n",
            if auth { "[ \"$REMOTE_USER\" = x-access-token ] || { printf 'Status: 401 Unauthorized\\r\\nWWW-Authenticate: Basic realm=\"git\"\\r\\n\\r\\n'; exit 0; }\n" } else { "" },
            base.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    site
}

/// The smart HTTP server of [`git_http_with`] over TLS, with a certificate for 127.0.0.1
/// signed by a CA made here (openssl); returns the server, its port and the CA's PEM file.
pub fn git_https_with(base: &Path, auth: bool) -> (Server, u16, PathBuf) {
    let site = cgi_site(base, auth);
    // A CA of the test's own, and the server's certificate signed by it (webpki refuses a
    // CA certificate used as the server's).
    let (ca, cert, key) = (
        base.join("ca.pem"),
        base.join("cert.pem"),
        base.join("key.pem"),
    );
    std::fs::write(
        base.join("leaf.ext"),
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(base)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=test CA",
        "-keyout",
        "ca-key.pem",
        "-out",
        "ca.pem",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "leaf.csr",
    ]);
    openssl(&[
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca-key.pem",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "leaf.ext",
        "-out",
        "cert.pem",
    ]);
    let port = free_port();
    let script = format!(
        "import http.server, ssl\n\
         class Handler(http.server.CGIHTTPRequestHandler):\n\
         \x20   have_fork = False  # a forked CGI would write past TLS\n\
         \x20   def finish(self):\n\
         \x20       super().finish()\n\
         \x20       try:\n\
         \x20           self.connection.unwrap()  # close_notify: the body ends with the connection\n\
         \x20       except Exception:\n\
         \x20           pass\n\
         server = http.server.HTTPServer(('127.0.0.1', {port}), Handler)\n\
         context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n\
         context.load_cert_chain({cert:?}, {key:?})\n\
         server.socket = context.wrap_socket(server.socket, server_side=True)\n\
         server.serve_forever()\n",
        cert = cert.display().to_string(),
        key = key.display().to_string(),
    );
    let child = Command::new("python3")
        .args(["-W", "ignore", "-c", &script])
        .current_dir(&site)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 starts");
    wait_for(port);
    (Server(child), port, ca)
}

/// Where git keeps its helper programs.
fn exec_path() -> PathBuf {
    let out = Command::new("git")
        .arg("--exec-path")
        .output()
        .unwrap()
        .stdout;
    PathBuf::from(String::from_utf8_lossy(&out).trim())
}
