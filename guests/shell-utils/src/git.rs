//! `git`: runs on the host's git (computer-git on gix, over this same workspace) through the
//! host's git import. A command that git does not implement goes to the host's `exec`
//! instead, which under the `auto` backend is the real git in the container.

use shell_base::Context;
use shell_base::host::GitError;

pub async fn git(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let env = sh.environment();
    let cwd = sh.cwd().to_string();
    match sh.host().git(&cwd, &argv[1..], &env) {
        Ok(out) => {
            let _ = sh.io().stdout.write_all(&out.stdout).await;
            let _ = sh.io().stderr.write_all(&out.stderr).await;
            out.status
        }
        Err(GitError::Unsupported(_)) => sh.run_on_host(argv.to_vec()).await,
        Err(GitError::Failed(m)) => {
            let _ = sh
                .io()
                .stderr
                .write_all(format!("fatal: {m}\n").as_bytes())
                .await;
            128
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn a_command_the_host_lacks_goes_to_another_backend() {
        // Natively the host has no git, so the command goes to `exec`, which has none either.
        let ran = Native::new().run(&["git", "status"], "");
        assert_eq!(
            (ran.status, ran.stderr.as_str()),
            (127, "git: command not found\n")
        );
    }
}
