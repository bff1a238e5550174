//! The host's imports behind [`shell_base::Host`]: the `computer:host` WIT interfaces
//! (workspace, git, http, exec) as the isolate's host provides them.

use std::time::Duration;

use shell_base::dir::{Entry, Kind};
use shell_base::host::{
    ExecError, ExecRequest, FileInfo, Finished, FsUsage, GitError, Host, HttpError, HttpHead,
    HttpRequest, HttpResponse, Process, Written,
};

use crate::bindings::computer::host::{exec, git, http, workspace};
use crate::bindings::wasi::clocks::monotonic_clock;
use crate::bindings::wasi::filesystem::types::{DescriptorType, ErrorCode};
use crate::bindings::wasi::io::poll;
use crate::bindings::wasi::io::streams::{InputStream, OutputStream};

/// The WIT imports.
pub struct Wit;

fn file_info(i: workspace::FileInfo) -> FileInfo {
    FileInfo {
        mode: i.mode,
        uid: i.uid,
        gid: i.gid,
        nlink: i.nlink,
        size: i.size,
        ino: i.ino,
        atime: i.atime,
        mtime: i.mtime,
        ctime: i.ctime,
    }
}

impl Host for Wit {
    fn stat(&self, path: &str, follow: bool) -> std::io::Result<FileInfo> {
        Ok(file_info(workspace::stat(path, follow).map_err(io_error)?))
    }

    fn list_directory_info(&self, path: &str) -> std::io::Result<Vec<(String, FileInfo)>> {
        let listed = workspace::list_directory_info(path).map_err(io_error)?;
        Ok(listed
            .into_iter()
            .map(|e| (e.name, file_info(e.info)))
            .collect())
    }

    fn list_directory(&self, path: &str) -> std::io::Result<Vec<Entry>> {
        let listed = workspace::list_directory(path).map_err(io_error)?;
        Ok(listed
            .into_iter()
            .map(|e| Entry {
                name: e.name,
                kind: match e.type_ {
                    DescriptorType::RegularFile => Kind::File,
                    DescriptorType::Directory => Kind::Dir,
                    DescriptorType::SymbolicLink => Kind::Symlink,
                    DescriptorType::Fifo => Kind::Fifo,
                    DescriptorType::Socket => Kind::Socket,
                    DescriptorType::CharacterDevice => Kind::CharDevice,
                    DescriptorType::BlockDevice => Kind::BlockDevice,
                    DescriptorType::Unknown => Kind::Other,
                },
            })
            .collect())
    }

    fn chmod(&self, path: &str, mode: u32) -> std::io::Result<()> {
        workspace::chmod(path, mode).map_err(io_error)
    }

    fn chown(
        &self,
        path: &str,
        uid: Option<u32>,
        gid: Option<u32>,
        follow: bool,
    ) -> std::io::Result<()> {
        workspace::chown(path, uid, gid, follow).map_err(io_error)
    }

    fn mkfifo(&self, path: &str, mode: u32) -> std::io::Result<()> {
        workspace::mkfifo(path, mode).map_err(io_error)
    }

    fn symlink(&self, target: &str, path: &str) -> std::io::Result<()> {
        workspace::symlink(target, path).map_err(io_error)
    }

    fn remove_tree(&self, path: &str) -> std::io::Result<()> {
        // One change on the host; where that cannot be (a read-only layer, any failure),
        // entry by entry, with each entry's own error.
        workspace::remove_tree(path).or_else(|_| std::fs::remove_dir_all(path))
    }

    fn copy_tree(&self, src: &str, dest: &str, mask: u32, preserve: bool) -> std::io::Result<()> {
        let options = workspace::CopyOptions { mask, preserve };
        workspace::copy_tree(src, dest, options).map_err(io_error)
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

    fn http(&self, request: &HttpRequest) -> Result<HttpResponse, HttpError> {
        let req = http::Request {
            method: request.method.clone(),
            url: request.url.clone(),
            headers: request.headers.clone(),
            body: request.body.clone(),
            max_redirects: request.max_redirects,
            timeout_ms: request.timeout_ms,
            max_bytes: request.max_bytes,
        };
        let head = |h: http::Head| HttpHead {
            version: h.version,
            status: h.status,
            reason: h.reason,
            headers: h.headers,
        };
        match http::send(&req) {
            Ok(r) => Ok(HttpResponse {
                redirects: r.redirects.into_iter().map(head).collect(),
                head: head(r.head),
                body: r.body,
                url: r.url,
            }),
            Err(e) => Err(match e {
                http::Error::InvalidUrl(m) => HttpError::InvalidUrl(m),
                http::Error::Refused(m) => HttpError::Refused(m),
                http::Error::Resolve(m) => HttpError::Resolve(m),
                http::Error::Connect(m) => HttpError::Connect(m),
                http::Error::Tls(m) => HttpError::Tls(m),
                http::Error::Timeout(m) => HttpError::Timeout(m),
                http::Error::TooLarge(m) => HttpError::TooLarge(m),
                http::Error::TooManyRedirects(m) => HttpError::TooManyRedirects(m),
                http::Error::Limit(m) => HttpError::Limit(m),
                http::Error::Failed(m) => HttpError::Failed(m),
            }),
        }
    }

    fn spawn(&self, request: &ExecRequest) -> Result<Box<dyn Process>, ExecError> {
        let cmd = exec::Command {
            argv: request.argv.clone(),
            source: None,
            cwd: Some(request.cwd.clone()),
            env: request.env.clone(),
            stdin: None,
            backend: None,
            timeout_ms: None,
        };
        match exec::spawn_with_stdin(&cmd) {
            Ok((process, stdin)) => Ok(Box::new(Spawned {
                stdout: Some(process.stdout()),
                stderr: Some(process.stderr()),
                stdin: Some(stdin),
                behind: false,
                process,
            })),
            Err(e) => Err(exec_error(e)),
        }
    }
}

/// The shell's view of why a command could not run.
fn exec_error(e: exec::Error) -> ExecError {
    match e {
        exec::Error::NotFound(_) => ExecError::NotFound,
        exec::Error::Unavailable(m) | exec::Error::Limit(m) | exec::Error::Invalid(m) => {
            ExecError::Refused(m)
        }
    }
}

/// Most a stream gives in one read: a flood arrives in turns, as through a pipe.
const READ_SIZE: u64 = 64 * 1024;

/// A command `exec.spawn-with-stdin` started, with its streams.
struct Spawned {
    process: exec::Process,
    stdin: Option<OutputStream>,
    stdout: Option<InputStream>,
    stderr: Option<InputStream>,
    /// Its input was full at the last write: waiting includes room for more.
    behind: bool,
}

impl Process for Spawned {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let broken = || std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let stdin = self.stdin.as_ref().ok_or_else(broken)?;
        let room = match stdin.check_write() {
            Ok(room) => room,
            Err(_) => {
                self.stdin = None;
                return Err(broken());
            }
        };
        let n = data.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        self.behind = n == 0;
        if n > 0 && stdin.write(&data[..n]).is_err() {
            self.stdin = None;
            return Err(broken());
        }
        Ok(n)
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn read(&mut self) -> Written {
        let mut written = Written::default();
        read_some(&mut self.stdout, &mut written.stdout);
        read_some(&mut self.stderr, &mut written.stderr);
        written.ended = self.stdout.is_none() && self.stderr.is_none();
        written
    }

    fn wait(&mut self, max: Duration) {
        let mut ready: Vec<poll::Pollable> = [&self.stdout, &self.stderr]
            .into_iter()
            .flatten()
            .map(InputStream::subscribe)
            .collect();
        if self.behind
            && let Some(stdin) = &self.stdin
        {
            ready.push(stdin.subscribe());
        }
        let nanos = u64::try_from(max.as_nanos()).unwrap_or(u64::MAX);
        ready.push(monotonic_clock::subscribe_duration(nanos));
        poll::poll(&ready.iter().collect::<Vec<_>>());
    }

    fn finish(&mut self) -> Result<i32, ExecError> {
        self.process.subscribe().block();
        match self.process.failure() {
            None => Ok(self.process.status().unwrap_or(1)),
            Some(e) => Err(exec_error(e)),
        }
    }

    fn kill(&mut self) {
        self.process.kill();
    }
}

/// One read's worth of `stream`, which becomes `None` once it has ended.
fn read_some(stream: &mut Option<InputStream>, into: &mut Vec<u8>) {
    if let Some(s) = stream {
        match s.read(READ_SIZE) {
            Ok(bytes) => into.extend(bytes),
            Err(_) => *stream = None,
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
