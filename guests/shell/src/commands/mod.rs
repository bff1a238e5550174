//! Commands built into the shell (no processes in the isolate): each reads its input and
//! writes its output through the shell's streams, so pipelines stream. They behave as the GNU
//! tools do (options, messages, exit statuses), checked against them case by case.

mod archive;
mod awk;
mod bc;
mod child;
mod date;
mod diff;
mod dump;
mod fields;
mod files;
mod find;
mod git;
mod grep;
mod help;
mod jq;
mod layout;
mod links;
mod magic;
mod meta;
mod misc;
mod more;
mod outline;
mod patch;
mod paths;
mod posix;
mod sed;
mod sorting;
mod stream;
mod sums;
mod text;
mod tree;
mod usage;
mod yq;
mod zip;

use std::future::Future;
use std::pin::Pin;

use crate::exec::Interp;

/// For `/bin/NAME`, `/usr/bin/NAME` (and the `sbin` and `local` ones): NAME, when the shell
/// has it built in. Scripts run `/usr/bin/env` and `/bin/echo` and test `[ -x /bin/sh ]`;
/// those paths hold nothing in a workspace, so they stand for the built-in commands.
pub fn standard_path(path: &str) -> Option<&str> {
    let name = [
        "/usr/local/bin/",
        "/usr/bin/",
        "/bin/",
        "/usr/sbin/",
        "/sbin/",
    ]
    .iter()
    .find_map(|dir| path.strip_prefix(dir))?;
    let known = find(name).is_some() || crate::builtins::is_builtin(name);
    (known && !name.contains('/')).then_some(name)
}

/// The directories whose entries stand for the built-in commands.
const STANDARD_DIRS: &[&str] = &["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"];

/// Whether `path` (absolute, when the workspace has nothing there) is `/bin` or `/usr/bin`:
/// a directory that lists the built-in commands.
pub fn is_standard_dir(path: &str) -> bool {
    let trimmed = path.trim_end_matches('/');
    STANDARD_DIRS.contains(&trimmed)
}

/// The names `/bin` and `/usr/bin` list: every command, and the builtins that are programs
/// too on a GNU system.
pub fn standard_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = NAMES
        .iter()
        .copied()
        .chain([
            "[", "echo", "false", "kill", "printf", "pwd", "test", "true",
        ])
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// What reading `/usr/bin/NAME` gives: a note that NAME is built in.
pub fn standard_file_text(name: &str) -> String {
    format!("#!/bin/sh\n# {name}: built into computer's shell (`help` lists every command).\n")
}

/// The status of a command stopped by `timeout`.
pub const TIMED_OUT: i32 = 124;

/// A built-in command: runs with the shell's streams, returns its status.
pub type CommandFn =
    for<'a, 'b> fn(&'a mut Interp<'b>, &'a [String]) -> Pin<Box<dyn Future<Output = i32> + 'a>>;

macro_rules! table {
    ($($name:literal => $f:path),* $(,)?) => {
        /// Every command, by name.
        pub const NAMES: &[&str] = &[$($name),*];

        /// The command called `name`, if the shell has it built in.
        pub fn find(name: &str) -> Option<CommandFn> {
            match name {
                $($name => Some(|sh, argv| {
                    if help::asks_help(argv) {
                        Box::pin(help::show(sh, argv))
                    } else {
                        Box::pin($f(sh, argv))
                    }
                }),)*
                _ => None,
            }
        }
    };
}

table! {
    "awk" => awk::awk,
    "base64" => more::base64,
    "bash" => child::sh,
    "bc" => bc::bc,
    "basename" => text::basename,
    "cat" => text::cat,
    "chmod" => meta::chmod,
    "cmp" => more::cmp,
    "column" => layout::column,
    "comm" => more::comm,
    "cp" => tree::cp,
    "cut" => fields::cut,
    "date" => date::date,
    "df" => usage::df,
    "diff" => diff::diff,
    "du" => usage::du,
    "dirname" => text::dirname,
    "egrep" => grep::grep,
    "env" => misc::env,
    "expand" => layout::expand,
    "expr" => more::expr,
    "fgrep" => grep::grep,
    "file" => magic::file,
    "find" => find::find,
    "fmt" => layout::fmt,
    "fold" => more::fold,
    "gawk" => awk::awk,
    "git" => git::git,
    "grep" => grep::grep,
    "gunzip" => archive::gzip,
    "gzip" => archive::gzip,
    "hd" => dump::hexdump,
    "head" => text::head,
    "hexdump" => dump::hexdump,
    "hostname" => misc::hostname,
    "id" => misc::id,
    "jq" => jq::jq,
    "join" => layout::join,
    "ln" => links::ln,
    "ls" => tree::ls,
    "md5sum" => sums::sum,
    "mkdir" => files::mkdir,
    "mktemp" => paths::mktemp,
    "mv" => tree::mv,
    "nl" => misc::nl,
    "od" => dump::od,
    "paste" => misc::paste,
    "patch" => patch::patch,
    "printenv" => misc::printenv,
    "readlink" => paths::readlink,
    "realpath" => paths::realpath,
    "rev" => text::rev,
    "rm" => files::rm,
    "rmdir" => tree::rmdir,
    "sed" => sed::sed,
    "seq" => text::seq,
    "sh" => child::sh,
    "sha1sum" => sums::sum,
    "sha256sum" => sums::sum,
    "sha512sum" => sums::sum,
    "sleep" => misc::sleep,
    "sort" => sorting::sort,
    "split" => layout::split,
    "stat" => meta::stat,
    "strings" => dump::strings,
    "tac" => text::tac,
    "tail" => text::tail,
    "tar" => archive::tar,
    "tee" => text::tee,
    "timeout" => misc::timeout,
    "touch" => files::touch,
    "tomlq" => jq::jq,
    "tr" => fields::tr,
    "tree" => outline::tree,
    "truncate" => paths::truncate,
    "uname" => misc::uname,
    "unexpand" => layout::unexpand,
    "unzip" => zip::unzip,
    "uniq" => sorting::uniq,
    "wc" => text::wc,
    "which" => misc::which,
    "whoami" => misc::whoami,
    "xargs" => find::xargs,
    "xxd" => dump::xxd,
    "yes" => files::yes,
    "yq" => jq::jq,
    "zip" => zip::zip,
    "zcat" => archive::gzip,
}
