//! `computer fs ...`: file operations on the workspace, like the coreutils of the same name.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, anyhow};
use clap::{Args, Subcommand};
use computer::Workspace;
use computer::vfs::{FileType, Stat, VfsError};

use crate::format::{datetime, mode_string};

#[derive(Debug, Subcommand)]
pub enum FsCommand {
    /// List directory contents.
    Ls {
        /// Long format: mode, links, owner, size, mtime.
        #[arg(short = 'l')]
        long: bool,
        /// Paths (default: /workspace).
        paths: Vec<PathBuf>,
    },
    /// Print files.
    Cat {
        /// Files to print, in order.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Write standard input to a file (created or replaced).
    Write {
        /// The file.
        path: PathBuf,
        /// Append instead of replacing.
        #[arg(short = 'a', long)]
        append: bool,
    },
    /// Create directories.
    Mkdir {
        /// Create parents as needed; no error if it exists.
        #[arg(short = 'p')]
        parents: bool,
        /// Directories to create.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Remove files or directories.
    Rm(RmArgs),
    /// Move or rename (into DEST when it is a directory).
    Mv {
        /// What to move.
        src: PathBuf,
        /// Where to.
        dest: PathBuf,
    },
    /// Copy files; with -r, directories (into DEST when it is a directory).
    Cp {
        /// Copy directories recursively.
        #[arg(short = 'r', short_alias = 'R')]
        recursive: bool,
        /// What to copy.
        src: PathBuf,
        /// Where to.
        dest: PathBuf,
    },
    /// Show file status.
    Stat {
        /// Paths (symlinks are not followed).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Show a directory tree.
    Tree {
        /// The root (default: /workspace).
        path: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct RmArgs {
    /// Remove directories and their contents.
    #[arg(short = 'r', short_alias = 'R')]
    recursive: bool,
    /// Ignore missing paths.
    #[arg(short = 'f')]
    force: bool,
    /// Paths to remove.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// `cmd path: error`, the way coreutils report failures.
fn failed(cmd: &str, path: &Path, e: VfsError) -> anyhow::Error {
    anyhow!("{cmd} {}: {e}", path.display())
}

pub fn run(ws: &Workspace, cmd: FsCommand) -> Result<ExitCode> {
    let fs = ws.fs();
    let mut out = std::io::stdout().lock();
    match cmd {
        FsCommand::Ls { long, paths } => {
            let paths = if paths.is_empty() {
                vec![PathBuf::from(computer::DEFAULT_CWD)]
            } else {
                paths
            };
            let several = paths.len() > 1;
            for (i, path) in paths.iter().enumerate() {
                let path = ws.resolve(path);
                let st = fs.stat(&path).map_err(|e| failed("ls", &path, e))?;
                if !st.is_dir() {
                    print_entry(ws, &mut out, &path, &path, &st, long)?;
                    continue;
                }
                if several {
                    writeln!(out, "{}{}:", if i > 0 { "\n" } else { "" }, path.display())?;
                }
                for entry in fs.read_dir(&path).map_err(|e| failed("ls", &path, e))? {
                    let child = path.join(&entry.name);
                    let st = fs.lstat(&child).map_err(|e| failed("ls", &child, e))?;
                    print_entry(ws, &mut out, &child, Path::new(&entry.name), &st, long)?;
                }
            }
        }
        FsCommand::Cat { paths } => {
            for path in paths {
                let path = ws.resolve(path);
                let data = fs.read_file(&path).map_err(|e| failed("cat", &path, e))?;
                out.write_all(&data)?;
            }
        }
        FsCommand::Write { path, append } => {
            let path = ws.resolve(path);
            let mut data = Vec::new();
            std::io::stdin().read_to_end(&mut data)?;
            let result = if append {
                fs.append(&path, &data)
            } else {
                fs.write_file(&path, &data)
            };
            result.map_err(|e| failed("write", &path, e))?;
        }
        FsCommand::Mkdir { parents, paths } => {
            for path in paths {
                let path = ws.resolve(path);
                let result = if parents {
                    fs.create_dir_all(&path)
                } else {
                    fs.create_dir(&path)
                };
                result.map_err(|e| failed("mkdir", &path, e))?;
            }
        }
        FsCommand::Rm(args) => return rm(ws, args),
        FsCommand::Mv { src, dest } => {
            let (src, dest) = (ws.resolve(src), ws.resolve(dest));
            let dest = into_dir(ws, &src, dest);
            fs.rename(&src, &dest).map_err(|e| failed("mv", &src, e))?;
        }
        FsCommand::Cp {
            recursive,
            src,
            dest,
        } => {
            let (src, dest) = (ws.resolve(src), ws.resolve(dest));
            let dest = into_dir(ws, &src, dest);
            let st = fs.stat(&src).map_err(|e| failed("cp", &src, e))?;
            if st.is_dir() {
                if !recursive {
                    return Err(anyhow!(
                        "cp: -r not specified; omitting directory {}",
                        src.display()
                    ));
                }
                fs.copy_all(&src, &dest)
                    .map_err(|e| failed("cp", &dest, e))?;
            } else {
                fs.copy(&src, &dest).map_err(|e| failed("cp", &dest, e))?;
            }
        }
        FsCommand::Stat { paths } => {
            for path in paths {
                let path = ws.resolve(path);
                let st = fs.lstat(&path).map_err(|e| failed("stat", &path, e))?;
                print_stat(ws, &mut out, &path, &st)?;
            }
        }
        FsCommand::Tree { path } => {
            let root = ws.resolve(path.unwrap_or_else(|| computer::DEFAULT_CWD.into()));
            print_tree(ws, &mut out, &root)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `mv a dir` and `cp a dir` put `a` inside `dir`.
fn into_dir(ws: &Workspace, src: &Path, dest: PathBuf) -> PathBuf {
    match (ws.fs().stat(&dest), src.file_name()) {
        (Ok(st), Some(name)) if st.is_dir() => dest.join(name),
        _ => dest,
    }
}

fn rm(ws: &Workspace, args: RmArgs) -> Result<ExitCode> {
    let fs = ws.fs();
    let mut status = ExitCode::SUCCESS;
    for path in args.paths {
        let path = ws.resolve(path);
        let result = match fs.lstat(&path) {
            Ok(st) if st.is_dir() && !args.recursive => Err(VfsError::IsDir),
            Ok(st) if st.is_dir() => fs.remove_all(&path),
            Ok(_) => fs.remove_file(&path),
            Err(e) => Err(e),
        };
        match result {
            Ok(()) => {}
            Err(VfsError::NotFound) if args.force => {}
            Err(e) => {
                eprintln!("computer: rm {}: {e}", path.display());
                status = ExitCode::FAILURE;
            }
        }
    }
    Ok(status)
}

fn print_entry(
    ws: &Workspace,
    out: &mut impl Write,
    path: &Path,
    name: &Path,
    st: &Stat,
    long: bool,
) -> Result<()> {
    if !long {
        writeln!(out, "{}", name.display())?;
        return Ok(());
    }
    let target = if st.is_symlink() {
        let target = ws.fs().read_link(path).map_err(|e| failed("ls", path, e))?;
        format!(" -> {}", target.display())
    } else {
        String::new()
    };
    writeln!(
        out,
        "{} {:>3} {:>5} {:>5} {:>10} {} {}{}",
        mode_string(st),
        st.nlink,
        st.uid,
        st.gid,
        st.size,
        datetime(st.mtime, false),
        name.display(),
        target
    )?;
    Ok(())
}

fn print_stat(ws: &Workspace, out: &mut impl Write, path: &Path, st: &Stat) -> Result<()> {
    let kind = match st.kind {
        FileType::File if st.size == 0 => "regular empty file",
        FileType::File => "regular file",
        FileType::Dir => "directory",
        FileType::Symlink => "symbolic link",
        FileType::Fifo => "fifo",
        FileType::Socket => "socket",
        FileType::CharDevice => "character special file",
        FileType::BlockDevice => "block special file",
    };
    let shown = if st.is_symlink() {
        let target = ws
            .fs()
            .read_link(path)
            .map_err(|e| failed("stat", path, e))?;
        format!("{} -> {}", path.display(), target.display())
    } else {
        path.display().to_string()
    };
    writeln!(out, "  File: {shown}")?;
    writeln!(
        out,
        "  Size: {:<15} Blocks: {:<10} IO Block: 4096   {kind}",
        st.size,
        st.blocks()
    )?;
    writeln!(out, " Inode: {:<15} Links: {}", st.ino, st.nlink)?;
    writeln!(
        out,
        "Access: ({:04o}/{})  Uid: {:>5}   Gid: {:>5}",
        st.perm,
        mode_string(st),
        st.uid,
        st.gid
    )?;
    writeln!(out, "Access: {}", datetime(st.atime, true))?;
    writeln!(out, "Modify: {}", datetime(st.mtime, true))?;
    writeln!(out, "Change: {}", datetime(st.ctime, true))?;
    Ok(())
}

fn print_tree(ws: &Workspace, out: &mut impl Write, root: &Path) -> Result<()> {
    let entries = ws.fs().walk(root).map_err(|e| failed("tree", root, e))?;
    let (mut dirs, mut files) = (0, 0);
    // For each depth, whether the entry at that depth is the last of its directory.
    let mut last_at: Vec<bool> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if entry.depth == 0 {
            writeln!(out, "{}", entry.path.display())?;
            continue;
        }
        let is_last = !entries[i + 1..]
            .iter()
            .take_while(|e| e.depth >= entry.depth)
            .any(|e| e.depth == entry.depth);
        last_at.truncate(entry.depth - 1);
        let mut line = String::new();
        for &last in &last_at {
            line.push_str(if last { "    " } else { "│   " });
        }
        line.push_str(if is_last { "└── " } else { "├── " });
        last_at.push(is_last);
        let name: OsString = entry.path.file_name().unwrap_or_default().to_owned();
        line.push_str(&name.to_string_lossy());
        if entry.stat.is_symlink() {
            let target = ws
                .fs()
                .read_link(&entry.path)
                .map_err(|e| failed("tree", &entry.path, e))?;
            line.push_str(&format!(" -> {}", target.display()));
        }
        writeln!(out, "{line}")?;
        if entry.stat.is_dir() {
            dirs += 1;
        } else {
            files += 1;
        }
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    writeln!(
        out,
        "\n{}, {}",
        plural(dirs, "directory", "directories"),
        plural(files, "file", "files")
    )?;
    Ok(())
}
