//! The isolate shell's utilities: one module per utility, named after it (`cat.rs`,
//! `grep.rs`; folders for the big ones: `awk/`, `bc/`, `jq/`), and [`UTILITIES`], the one list
//! of their names, usage and help. They behave as the GNU tools do (options, messages, exit
//! statuses), checked against them case by case in `tests/shell/cases`.
//!
//! A utility is an `async fn(&mut dyn Context, &[String]) -> i32`: it reads and writes
//! through the context's streams, so pipelines stream, and reaches files with `std::fs` (in
//! the isolate that is the workspace, through `wasi:filesystem`). It never sees the
//! interpreter: [`shell_base::Context`] is the whole seam, so this crate builds and tests
//! natively on a context over the machine's own files ([`testing`]).

// Helpers that several utilities share.
mod codec;
mod dump;
mod fileinfo;
mod layout;
mod pack;
mod stream;
mod text;

#[cfg(all(test, unix))]
mod options_tests;
mod registry;
#[cfg(all(test, unix))]
mod testing;

mod awk;
mod basename;
mod basenc;
mod bc;
mod cat;
mod chmod;
mod chown;
mod cksum;
mod cmp;
mod column;
mod comm;
mod compress;
mod cp;
mod csplit;
mod curl;
mod cut;
mod date;
mod dd;
mod df;
mod diff;
mod diff3;
mod dirname;
mod du;
mod envsubst;
mod expand;
mod expr;
mod factor;
mod fd;
mod file;
mod find;
mod fmt;
mod fold;
mod git;
mod grep;
mod gzip;
mod head;
mod hexdump;
mod hostname;
mod iconv;
mod id;
mod install;
mod join;
mod jq;
mod ln;
mod look;
mod ls;
mod md5sum;
mod mkdir;
mod mkfifo;
mod mktemp;
mod mv;
mod nl;
mod nproc;
mod numfmt;
mod od;
mod paste;
mod patch;
mod pr;
mod printenv;
mod readlink;
mod realpath;
mod rev;
mod rg;
mod rm;
mod rmdir;
mod sed;
mod seq;
mod shuf;
mod sleep;
mod sort;
mod split;
mod stat;
mod strings;
mod tac;
mod tail;
mod tar;
mod tee;
mod terminal;
mod timeout;
mod touch;
mod tr;
mod tree;
mod truncate;
mod tsort;
mod uname;
mod unexpand;
mod uniq;
mod unzip;
mod wc;
mod wget;
mod which;
mod whoami;
mod xargs;
mod xsv;
mod xxd;
mod yes;
mod zip;

pub use registry::UTILITIES;
