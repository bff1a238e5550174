//! The host's imports behind [`shell_base::Host`]: the `computer:host` WIT interfaces
//! (workspace, git, exec) as the isolate's host provides them.

use shell_base::host::{ExecError, ExecRequest, FileInfo, Finished, FsUsage, GitError, Host};

use crate::bindings::computer::host::{exec, git, workspace};
use crate::bindings::wasi::filesystem::types::ErrorCode;

/// The WIT imports.
pub struct Wit;

impl Host for Wit {
    fn stat(&self, path: &str, follow: bool) -> std::io::Result<FileInfo> {
        let i = workspace::stat(path, follow).map_err(io_error)?;
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

    fn chmod(&self, path: &str, mode: u32) -> std::io::Result<()> {
        workspace::chmod(path, mode).map_err(io_error)
    }

    fn symlink(&self, target: &str, path: &str) -> std::io::Result<()> {
        workspace::symlink(target, path).map_err(io_error)
    }

    fn usage(&self) -> std::io::Result<FsUsage> {
        let u = workspace::usage().map_err(io_error)?;
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

/// A `wasi:filesystem` error code as the error std gives for the same failure: its WASI
/// errno, so its kind and wording (`File exists`) are those of any other file error.
fn io_error(code: ErrorCode) -> std::io::Error {
    use ErrorCode as E;
    let errno = match code {
        E::Access => 2,
        E::WouldBlock => 6,
        E::Already => 7,
        E::BadDescriptor => 8,
        E::Busy => 10,
        E::Deadlock => 16,
        E::Quota => 19,
        E::Exist => 20,
        E::FileTooLarge => 22,
        E::IllegalByteSequence => 25,
        E::InProgress => 26,
        E::Interrupted => 27,
        E::Invalid => 28,
        E::Io => 29,
        E::IsDirectory => 31,
        E::Loop => 32,
        E::TooManyLinks => 34,
        E::MessageSize => 35,
        E::NameTooLong => 37,
        E::NoDevice => 40,
        E::NoEntry => 44,
        E::NoLock => 46,
        E::InsufficientMemory => 48,
        E::InsufficientSpace => 51,
        E::NotDirectory => 54,
        E::NotEmpty => 55,
        E::NotRecoverable => 56,
        E::Unsupported => 58,
        E::NoTty => 59,
        E::NoSuchDevice => 60,
        E::Overflow => 61,
        E::NotPermitted => 63,
        E::Pipe => 64,
        E::ReadOnly => 69,
        E::InvalidSeek => 70,
        E::TextFileBusy => 74,
        E::CrossDevice => 75,
    };
    std::io::Error::from_raw_os_error(errno)
}
