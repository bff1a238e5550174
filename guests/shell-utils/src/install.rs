//! `install`: copy files and set their mode (and owner), or make directories, as GNU's does.

use std::path::Path;

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, usage, value};
use shell_base::errno::io_message;

use crate::chmod::apply_mode;
use crate::chown::id_of;
use crate::stream::{complain, out};

#[derive(Default)]
struct Options {
    directories: bool,
    leading: bool,
    compare: bool,
    preserve: bool,
    verbose: bool,
    no_target_dir: bool,
    target: Option<String>,
    mode: u32,
    owner: Option<String>,
    group: Option<String>,
}

/// `install [-CDdpTv] [-m MODE] [-o OWNER] [-g GROUP] [-t DIR] SOURCE... DEST` or
/// `install -d DIR...`.
pub async fn install(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut o = Options {
        mode: 0o755,
        ..Options::default()
    };
    let mut mode_text = None;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('d') | Long("directory") => o.directories = true,
                Short('D') => o.leading = true,
                Short('C') | Long("compare") => o.compare = true,
                Short('p') | Long("preserve-timestamps") => o.preserve = true,
                Short('v') | Long("verbose") => o.verbose = true,
                Short('T') | Long("no-target-directory") => o.no_target_dir = true,
                Short('t') | Long("target-directory") => o.target = Some(value(&mut p)?),
                Short('m') | Long("mode") => mode_text = Some(value(&mut p)?),
                Short('o') | Long("owner") => o.owner = Some(value(&mut p)?),
                Short('g') | Long("group") => o.group = Some(value(&mut p)?),
                // Backups, stripping and SELinux contexts do not apply to the workspace.
                Short('b' | 'c' | 's' | 'Z') | Long("strip" | "backup" | "preserve-context") => {}
                Short('S') | Long("suffix" | "strip-program" | "context") => {
                    value(&mut p)?;
                }
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "install", e, 1).await;
    }
    if let Some(text) = &mode_text {
        match apply_mode(text, 0, 0) {
            Some(m) => o.mode = m,
            None => return complain(sh, &format!("install: invalid mode '{text}'")).await,
        }
    }
    let user = sh.var("USER").unwrap_or("user").to_string();
    let id = |name: &str, what: &str| {
        id_of(name, &user).map_err(|()| format!("install: invalid {what}: '{name}'"))
    };
    let uid = match o.owner.as_deref().map(|n| id(n, "user")).transpose() {
        Ok(u) => u,
        Err(m) => return complain(sh, &m).await,
    };
    let gid = match o.group.as_deref().map(|n| id(n, "group")).transpose() {
        Ok(g) => g,
        Err(m) => return complain(sh, &m).await,
    };
    let mut job = Job {
        sh,
        o: &o,
        uid,
        gid,
        status: 0,
    };
    if o.directories {
        if files.is_empty() {
            return bad_usage(job.sh, "install", usage("missing file operand"), 1).await;
        }
        for d in &files {
            job.make_dir(d, true).await;
        }
        return job.status;
    }
    let (sources, dir, dest) = match (&o.target, files.len()) {
        (Some(t), _) => (files.clone(), Some(t.clone()), None),
        (None, 0) => return bad_usage(job.sh, "install", usage("missing file operand"), 1).await,
        (None, 1) => {
            let m = format!("missing destination file operand after '{}'", files[0]);
            return bad_usage(job.sh, "install", usage(m), 1).await;
        }
        (None, n) => {
            let last = files[n - 1].clone();
            let is_dir = job.sh.path(&last).is_dir();
            if o.no_target_dir || (n == 2 && !is_dir) {
                if n > 2 {
                    let m = format!("extra operand '{}'", files[2]);
                    return bad_usage(job.sh, "install", usage(m), 1).await;
                }
                (files[..1].to_vec(), None, Some(last))
            } else if !is_dir && !o.leading {
                let m = if job.sh.path(&last).exists() {
                    format!("install: target '{last}' is not a directory")
                } else {
                    format!("install: target '{last}': No such file or directory")
                };
                return complain(job.sh, &m).await;
            } else {
                (files[..n - 1].to_vec(), Some(last), None)
            }
        }
    };
    if let Some(d) = &dir
        && o.leading
    {
        job.make_dir(d, false).await;
    }
    for src in &sources {
        let to = match (&dir, &dest) {
            (Some(d), _) => {
                let base = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
                format!("{}/{base}", d.trim_end_matches('/'))
            }
            (None, Some(d)) => d.clone(),
            (None, None) => unreachable!("a destination is chosen above"),
        };
        job.copy(src, &to).await;
    }
    job.status
}

struct Job<'a> {
    sh: &'a mut dyn Context,
    o: &'a Options,
    uid: Option<u32>,
    gid: Option<u32>,
    status: i32,
}

impl Job<'_> {
    async fn fail(&mut self, msg: String) {
        self.status = 1;
        complain(self.sh, &msg).await;
    }

    /// Makes `dir` and its parents (`-d`, `-D`); the last gets the mode and owner when
    /// `last_too`.
    async fn make_dir(&mut self, dir: &str, last_too: bool) {
        let mut built = String::new();
        let parts: Vec<&str> = dir.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                built.push('/');
            }
            built.push_str(part);
            if part.is_empty() || *part == "." || *part == ".." {
                continue;
            }
            let path = self.sh.path(&built);
            if path.is_dir() {
                continue;
            }
            if let Err(e) = std::fs::create_dir(&path) {
                self.fail(format!(
                    "install: cannot create directory '{built}': {}",
                    io_message(&e)
                ))
                .await;
                return;
            }
            if self.o.verbose {
                out(self.sh, &format!("install: creating directory '{built}'\n")).await;
            }
        }
        if last_too {
            self.set_attributes(&self.sh.path(dir), dir).await;
        }
    }

    async fn copy(&mut self, src: &str, to: &str) {
        let from = self.sh.path(src);
        match std::fs::metadata(&from) {
            Err(e) => {
                return self
                    .fail(format!("install: cannot stat '{src}': {}", io_message(&e)))
                    .await;
            }
            Ok(m) if m.is_dir() => {
                return self
                    .fail(format!("install: omitting directory '{src}'"))
                    .await;
            }
            Ok(_) => {}
        }
        let dest = self.sh.path(to);
        if dest.is_dir() {
            let m = format!("install: cannot overwrite directory '{to}' with non-directory");
            return self.fail(m).await;
        }
        if self.o.leading
            && let Some((parent, _)) = to.trim_end_matches('/').rsplit_once('/')
            && !parent.is_empty()
        {
            self.make_dir(parent, false).await;
        }
        let data = match std::fs::read(&from) {
            Ok(d) => d,
            Err(e) => {
                return self
                    .fail(format!(
                        "install: cannot open '{src}' for reading: {}",
                        io_message(&e)
                    ))
                    .await;
            }
        };
        if self.o.compare && self.unchanged(&dest, &data) {
            return;
        }
        // A new file, as GNU's (it unlinks the destination): other links keep the old data.
        let _ = std::fs::remove_file(&dest);
        if let Err(e) = std::fs::write(&dest, &data) {
            let m = format!(
                "install: cannot create regular file '{to}': {}",
                io_message(&e)
            );
            return self.fail(m).await;
        }
        if self.o.preserve
            && let Ok(m) = std::fs::metadata(&from)
        {
            let _ = crate::fileinfo::copy_times(&m, &dest);
        }
        self.set_attributes(&dest, to).await;
        if self.o.verbose {
            out(self.sh, &format!("'{src}' -> '{to}'\n")).await;
        }
    }

    /// `-C`: the destination already has this content, mode and owner.
    fn unchanged(&self, dest: &Path, data: &[u8]) -> bool {
        let Ok(info) = self.sh.host().stat(&dest.to_string_lossy(), true) else {
            return false;
        };
        info.mode & 0o7777 == self.o.mode
            && self.uid.is_none_or(|u| u == info.uid)
            && self.gid.is_none_or(|g| g == info.gid)
            && std::fs::read(dest).is_ok_and(|d| d == data)
    }

    async fn set_attributes(&mut self, path: &Path, shown: &str) {
        let p = path.to_string_lossy().into_owned();
        if let Err(e) = self.sh.host().chmod(&p, self.o.mode) {
            let m = format!(
                "install: cannot change permissions of '{shown}': {}",
                io_message(&e)
            );
            return self.fail(m).await;
        }
        if (self.uid.is_some() || self.gid.is_some())
            && let Err(e) = self.sh.host().chown(&p, self.uid, self.gid, true)
        {
            let m = format!(
                "install: cannot change ownership of '{shown}': {}",
                io_message(&e)
            );
            self.fail(m).await;
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn copies_with_a_mode() {
        let mut ctx = Native::new();
        ctx.write("a", "hi\n");
        assert_eq!(ctx.run(&["install", "-m", "640", "a", "b"], "").status, 0);
        assert_eq!(ctx.read("b"), "hi\n");
        let mode = std::fs::metadata(ctx.dir().join("b"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
        assert_eq!(ctx.run(&["install", "-D", "a", "x/y/z"], "").status, 0);
        assert_eq!(ctx.read("x/y/z"), "hi\n");
    }
}
