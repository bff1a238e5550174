//! The host's imports behind [`shell_base::Host`]: the `computer:host` WIT interfaces
//! (workspace, git, exec) as the isolate's host provides them.

use shell_base::host::{ExecError, ExecRequest, FileInfo, Finished, FsUsage, GitError, Host};

use crate::bindings::computer::host::{exec, git, workspace};

/// The WIT imports.
pub struct Wit;

impl Host for Wit {
    fn stat(&self, path: &str, follow: bool) -> Result<FileInfo, String> {
        let i = workspace::stat(path, follow)?;
        Ok(FileInfo {
            mode: i.mode,
            uid: i.uid,
            gid: i.gid,
            nlink: i.nlink,
            size: i.size,
            ino: i.ino,
            atime: i.atime,
            mtime: i.mtime,
            ctime: i.ctime,
        })
    }

    fn chmod(&self, path: &str, mode: u32) -> Result<(), String> {
        workspace::chmod(path, mode)
    }

    fn symlink(&self, target: &str, path: &str) -> Result<(), String> {
        workspace::symlink(target, path)
    }

    fn usage(&self) -> Result<FsUsage, String> {
        let u = workspace::usage()?;
        Ok(FsUsage {
            block_size: u.block_size,
            blocks: u.blocks,
            blocks_free: u.blocks_free,
            files: u.files,
            files_free: u.files_free,
        })
    }

    fn git(
        &self,
        cwd: &str,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<Finished, GitError> {
        match git::run(cwd, args, env) {
            Ok(out) => Ok(Finished {
                stdout: out.stdout,
                stderr: out.stderr,
                status: out.status,
            }),
            Err(git::Error::Unsupported(m)) => Err(GitError::Unsupported(m)),
            Err(
                git::Error::NotARepository(m)
                | git::Error::NotFound(m)
                | git::Error::Network(m)
                | git::Error::Conflict(m)
                | git::Error::Failed(m),
            ) => Err(GitError::Failed(m)),
        }
    }

    fn exec(&self, request: &ExecRequest) -> Result<Finished, ExecError> {
        let cmd = exec::Command {
            argv: request.argv.clone(),
            source: None,
            cwd: Some(request.cwd.clone()),
            env: request.env.clone(),
            stdin: Some(request.stdin.clone()),
            backend: None,
            timeout_ms: None,
        };
        match exec::run(&cmd) {
            Ok(out) => Ok(Finished {
                stdout: out.stdout,
                stderr: out.stderr,
                status: out.status,
            }),
            Err(exec::Error::NotFound(_)) => Err(ExecError::NotFound),
            Err(exec::Error::Unavailable(m) | exec::Error::Limit(m) | exec::Error::Invalid(m)) => {
                Err(ExecError::Refused(m))
            }
        }
    }
}
