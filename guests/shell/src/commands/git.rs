//! `git`: runs on the host's git (computer-git on gix, over this same workspace) through the
//! `computer:host/git` import. A command that git does not implement goes to the host's
//! `exec` instead, which under the `auto` backend is the real git in the container.

use crate::bindings::computer::host::git as host;
use crate::exec::Interp;

pub async fn git(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let env = sh.shell.environment();
    let cwd = sh.shell.cwd.clone();
    match host::run(&cwd, &argv[1..], &env) {
        Ok(out) => {
            let _ = sh.io.stdout.write_all(&out.stdout).await;
            let _ = sh.io.stderr.write_all(&out.stderr).await;
            out.status
        }
        Err(host::Error::Unsupported(_)) => {
            sh.host_exec(argv.to_vec()).await;
            sh.shell.status
        }
        Err(
            host::Error::NotARepository(m)
            | host::Error::NotFound(m)
            | host::Error::Network(m)
            | host::Error::Conflict(m)
            | host::Error::Failed(m),
        ) => {
            let _ = sh
                .io
                .stderr
                .write_all(format!("fatal: {m}\n").as_bytes())
                .await;
            128
        }
    }
}
