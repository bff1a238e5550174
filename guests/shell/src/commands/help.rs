//! `COMMAND --help`: what each built-in command does and the options it takes. The options
//! behave as the GNU tools' (or Info-ZIP's, jq's, bc's...) of the same name.

use crate::exec::Interp;

/// (name, synopsis, what it does)
const HELP: &[(&str, &str, &str)] = &[
    (
        "awk",
        "awk [-F FS] [-v VAR=VALUE]... [-f PROGFILE | 'PROGRAM'] [FILE]...",
        "pattern scanning and processing language (POSIX awk with gawk's common extensions)",
    ),
    (
        "base64",
        "base64 [-d] [-w COLS] [-i] [FILE]",
        "encode or decode base64",
    ),
    (
        "bash",
        "bash [-euxo OPTION] [-c SCRIPT [NAME [ARG]...] | FILE [ARG]...]",
        "run a child shell (exported variables and the directory go in, nothing comes out)",
    ),
    (
        "bc",
        "bc [-lq] [FILE]...",
        "arbitrary precision calculator language (-l: the math library, scale=20)",
    ),
    (
        "basename",
        "basename NAME [SUFFIX] | basename [-a] [-s SUFFIX] NAME...",
        "strip directories and a suffix from file names",
    ),
    (
        "cat",
        "cat [-nbsAETv] [FILE]...",
        "concatenate files to standard output",
    ),
    (
        "chmod",
        "chmod [-Rv] MODE[,MODE]... FILE...",
        "change permission bits (octal or symbolic modes)",
    ),
    (
        "cmp",
        "cmp [-s] [-l] [-n N] FILE1 [FILE2]",
        "compare two files byte by byte",
    ),
    (
        "column",
        "column [-t] [-s SEP] [-o SEP] [FILE]...",
        "columnate lists and tables",
    ),
    (
        "comm",
        "comm [-123] [--check-order|--nocheck-order] FILE1 FILE2",
        "compare two sorted files line by line",
    ),
    (
        "cp",
        "cp [-rRapnfvPLd] SOURCE... DEST",
        "copy files and directories (modes kept; links copied as links with -r/-a/-P)",
    ),
    (
        "cut",
        "cut -b LIST | -c LIST | -f LIST [-d DELIM] [-s] [--complement] [--output-delimiter=S] [FILE]...",
        "remove sections from each line",
    ),
    (
        "date",
        "date [-u] [-d STRING] [-r FILE] [+FORMAT]",
        "print the date and time (UTC unless TZ is set)",
    ),
    (
        "df",
        "df [-hHikT] [FILE]...",
        "report the workspace's space usage",
    ),
    (
        "diff",
        "diff [-uqrNsibwB] [-U N] FILE1 FILE2",
        "compare files or directories line by line",
    ),
    (
        "du",
        "du [-achksmbLl0] [-d N] [--apparent-size] [--exclude=PATTERN] [FILE]...",
        "estimate file space usage",
    ),
    (
        "dirname",
        "dirname NAME...",
        "strip the last component from file names",
    ),
    ("egrep", "egrep [OPTION]... PATTERN [FILE]...", "grep -E"),
    (
        "env",
        "env [-i] [-u NAME] [NAME=VALUE]... [COMMAND [ARG]...]",
        "run a command in a changed environment, or print the environment",
    ),
    (
        "expand",
        "expand [-i] [-t N[,N]...] [FILE]...",
        "convert tabs to spaces",
    ),
    ("expr", "expr EXPRESSION", "evaluate an expression"),
    ("fgrep", "fgrep [OPTION]... STRINGS [FILE]...", "grep -F"),
    (
        "file",
        "file [-bLNi] [--mime-type] [--mime-encoding] FILE...",
        "determine file type",
    ),
    (
        "find",
        "find [-H|-L|-P] [PATH]... [EXPRESSION]",
        "search for files (-name -iname -path -regex -type -size -mtime -newer -empty -perm -maxdepth -mindepth -prune -delete -print -print0 -printf -exec {} ; and + ! -a -o ( ))",
    ),
    (
        "fmt",
        "fmt [-w WIDTH] [-s] [-u] [FILE]...",
        "reformat paragraphs",
    ),
    (
        "fold",
        "fold [-bs] [-w WIDTH] [FILE]...",
        "wrap lines to a width",
    ),
    (
        "gawk",
        "gawk [-F FS] [-v VAR=VALUE]... [-f PROGFILE | 'PROGRAM'] [FILE]...",
        "awk",
    ),
    (
        "git",
        "git COMMAND [ARGS]... (init clone fetch pull push remote config status add rm mv restore commit reset log show diff rev-parse ls-files branch checkout switch stash)",
        "version control on the host's git, over this workspace; other commands go to the container's git",
    ),
    (
        "grep",
        "grep [-rniv clLoqswxEFPhHbZz] [-A N] [-B N] [-C N] [-m N] [-e PATTERN]... [-f FILE] [--include=GLOB] [--exclude=GLOB] [--exclude-dir=GLOB] [--label=L] PATTERN [FILE]...",
        "print lines that match patterns",
    ),
    (
        "gunzip",
        "gunzip [-cfkt] [FILE]...",
        "decompress gzip files",
    ),
    (
        "gzip",
        "gzip [-cdfklnt1-9] [FILE]...",
        "compress or decompress files",
    ),
    ("hd", "hd [FILE]...", "hexdump -C"),
    (
        "head",
        "head [-n [-]N] [-c [-]N] [-qv] [FILE]...",
        "output the first part of files",
    ),
    (
        "hexdump",
        "hexdump [-Cvx] [-n N] [-s OFFSET] [FILE]...",
        "display file contents in hexadecimal",
    ),
    ("hostname", "hostname", "print the machine's name"),
    ("id", "id [-unrgG] [USER]", "print user and group ids"),
    (
        "jq",
        "jq [-rjcnseS] [--tab] [--indent N] [--arg NAME VALUE] [--argjson NAME JSON] FILTER [FILE]...",
        "command-line JSON processor (jq 1.6's language and output, on jaq)",
    ),
    (
        "join",
        "join [-t CHAR] [-1 FIELD] [-2 FIELD] [-a N] [-v N] [-o LIST] [-e EMPTY] [-i] FILE1 FILE2",
        "join lines of two files on a common field",
    ),
    (
        "ln",
        "ln [-sfvnrT] [-t DIR] TARGET... [LINK_NAME|DIR]",
        "make hard or symbolic links",
    ),
    (
        "ls",
        "ls [-aAdFpRrtSU1lhLm] [FILE]...",
        "list directory contents",
    ),
    (
        "md5sum",
        "md5sum [-c] [FILE]...",
        "compute or check MD5 checksums",
    ),
    ("mkdir", "mkdir [-pv] [-m MODE] DIR...", "make directories"),
    (
        "mktemp",
        "mktemp [-dtuq] [-p DIR] [--suffix=S] [TEMPLATE]",
        "create a temporary file or directory",
    ),
    ("mv", "mv [-fnv] SOURCE... DEST", "move or rename files"),
    (
        "nl",
        "nl [-b STYLE] [-n FORMAT] [-w N] [-s SEP] [-v N] [-i N] [FILE]...",
        "number lines of files",
    ),
    (
        "od",
        "od [-A RADIX] [-t TYPE] [-bcdox] [-N N] [-j N] [-v] [-w N] [FILE]...",
        "dump files in octal and other formats",
    ),
    (
        "paste",
        "paste [-s] [-d LIST] [FILE]...",
        "merge lines of files",
    ),
    (
        "patch",
        "patch [-p N] [-R] [-N] [-s] [-b] [-E] [--dry-run] [-o OUT] [-d DIR] [-i PATCH] [FILE [PATCH]]",
        "apply a unified diff (git's too) to files",
    ),
    (
        "printenv",
        "printenv [NAME]...",
        "print environment variables",
    ),
    (
        "readlink",
        "readlink [-f|-e|-m] FILE...",
        "print the target of a symbolic link, or a canonical name",
    ),
    (
        "realpath",
        "realpath [-e|-m] [-s] [--relative-to=DIR] FILE...",
        "print the resolved absolute name",
    ),
    ("rev", "rev [FILE]...", "reverse the characters of lines"),
    (
        "rm",
        "rm [-rRfdv] FILE...",
        "remove files or directories (-i is refused: nobody can answer)",
    ),
    ("rmdir", "rmdir [-pv] DIR...", "remove empty directories"),
    (
        "sed",
        "sed [-nEr] [-i[SUFFIX]] [-s] [-z] [-e SCRIPT]... [-f FILE] [SCRIPT] [FILE]...",
        "stream editor (GNU sed's commands, addresses and s flags)",
    ),
    (
        "seq",
        "seq [-w] [-s SEP] [-f FORMAT] [FIRST [INCREMENT]] LAST",
        "print a sequence of numbers",
    ),
    (
        "sh",
        "sh [-euxo OPTION] [-c SCRIPT [NAME [ARG]...] | FILE [ARG]...]",
        "run a child shell",
    ),
    (
        "sha1sum",
        "sha1sum [-c] [FILE]...",
        "compute or check SHA-1 checksums",
    ),
    (
        "sha256sum",
        "sha256sum [-c] [FILE]...",
        "compute or check SHA-256 checksums",
    ),
    (
        "sha512sum",
        "sha512sum [-c] [FILE]...",
        "compute or check SHA-512 checksums",
    ),
    ("sleep", "sleep NUMBER[smhd]...", "wait a while"),
    (
        "sort",
        "sort [-nrufbdhVgsmcC] [-k KEYDEF]... [-t SEP] [-o FILE] [FILE]...",
        "sort lines of text",
    ),
    (
        "split",
        "split [-l N | -b SIZE | -n CHUNKS] [-d] [-a N] [FILE [PREFIX]]",
        "split a file into pieces",
    ),
    (
        "stat",
        "stat [-L] [-c FORMAT | --printf FORMAT] FILE...",
        "display file status",
    ),
    (
        "strings",
        "strings [-a] [-n N] [-t RADIX] [FILE]...",
        "print the printable strings in files",
    ),
    (
        "tac",
        "tac [FILE]...",
        "concatenate and print files in reverse",
    ),
    (
        "tail",
        "tail [-n [+]N] [-c [+]N] [-qv] [FILE]...",
        "output the last part of files",
    ),
    (
        "tar",
        "tar -c|-x|-t [-zvfOC DIR] [--strip-components=N] [-f ARCHIVE] [FILE]...",
        "create, extract or list tar archives (gzip with -z)",
    ),
    (
        "tee",
        "tee [-a] [FILE]...",
        "copy standard input to files and standard output",
    ),
    (
        "timeout",
        "timeout [-s SIGNAL] [-k DURATION] DURATION COMMAND [ARG]...",
        "run a command with a time limit (status 124 when it is hit)",
    ),
    (
        "touch",
        "touch [-acm] [-d DATE | -r FILE | -t STAMP] FILE...",
        "change file times, creating files",
    ),
    (
        "tomlq",
        "tomlq [jq options] [-t] FILTER [FILE]...",
        "jq for TOML documents (-t: TOML output)",
    ),
    (
        "tr",
        "tr [-cdst] SET1 [SET2]",
        "translate, squeeze or delete characters",
    ),
    (
        "tree",
        "tree [-adfFilprsh] [-L LEVEL] [-I PATTERN] [-P PATTERN] [--prune] [--noreport] [--dirsfirst] [DIR]...",
        "list directories as a tree",
    ),
    (
        "truncate",
        "truncate -s SIZE FILE...",
        "shrink or extend files to a size",
    ),
    ("uname", "uname [-asnrvmo]", "print system information"),
    (
        "unexpand",
        "unexpand [-a] [--first-only] [-t N[,N]...] [FILE]...",
        "convert spaces to tabs",
    ),
    (
        "unzip",
        "unzip [-lqtopjn] [-Z1] [-d DIR] ARCHIVE [MEMBER]... [-x MEMBER...]",
        "list, test and extract zip archives",
    ),
    (
        "uniq",
        "uniq [-cdDuiz] [-f N] [-s N] [-w N] [INPUT [OUTPUT]]",
        "report or omit repeated lines",
    ),
    (
        "wc",
        "wc [-lwcmL] [FILE]...",
        "count lines, words and bytes",
    ),
    ("which", "which [-a] NAME...", "locate a command"),
    ("whoami", "whoami", "print the user name"),
    (
        "xargs",
        "xargs [-0rt] [-n N] [-L N] [-I REPLACE] [-d DELIM] [-P N] [COMMAND [ARG]...]",
        "build and run command lines from standard input (run one after another)",
    ),
    (
        "xxd",
        "xxd [-r] [-p] [-i] [-c COLS] [-g BYTES] [-l LEN] [-s OFFSET] [-u] [INFILE [OUTFILE]]",
        "make a hex dump, or reverse one",
    ),
    ("yes", "yes [STRING]...", "output a string repeatedly"),
    (
        "yq",
        "yq [jq options] [-y] [-i] FILTER [FILE]...",
        "jq for YAML documents (-y: YAML output, -i: in place)",
    ),
    (
        "zip",
        "zip [-rqj0-9] [-d] ARCHIVE FILE...",
        "package and compress files into a zip archive",
    ),
    (
        "zcat",
        "zcat [FILE]...",
        "decompress gzip files to standard output",
    ),
];

/// Whether `argv` asks for help (`NAME --help`).
pub fn asks_help(argv: &[String]) -> bool {
    argv.len() == 2 && argv[1] == "--help"
}

/// The help text of `name`.
pub fn text(name: &str) -> String {
    match HELP.iter().find(|(n, _, _)| *n == name) {
        Some((_, usage, what)) => format!(
            "Usage: {usage}\n{what}.\n\nBuilt into computer's shell: the options behave as the GNU tool's of the \
             same name; `help` lists every command.\n"
        ),
        None => format!("Usage: {name} [OPTION]... [ARG]...\nBuilt into computer's shell.\n"),
    }
}

/// Prints the help of `argv[0]`; status 0.
pub async fn show(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let _ = sh.io.stdout.write_all(text(&argv[0]).as_bytes()).await;
    0
}
