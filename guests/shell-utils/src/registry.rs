//! [`UTILITIES`]: every utility's name, who runs it, its usage and what it does, in one list.
//! Lookup, `NAME --help`, `help`, `type`, `which` and the listing of `/usr/bin` all come
//! from it (through [`shell_base::Registry`]).

use shell_base::{Run, Utility};

use crate::*;

/// A utility of this crate as a [`Run`].
macro_rules! native {
    ($f:path) => {
        Run::Native(|sh, argv| Box::pin($f(sh, argv)))
    };
}

/// Every utility, by name. `Run::Interpreter` marks the few the interpreter runs itself
/// (`sh`, `bash`, `env`): they are listed here so that every command is in one list.
pub const UTILITIES: &[Utility] = &[
    Utility::new(
        "awk",
        native!(awk::awk),
        "awk [-F FS] [-v VAR=VALUE]... [-f PROGFILE | 'PROGRAM'] [FILE]...",
        "pattern scanning and processing language (POSIX awk with gawk's common extensions)",
    ),
    Utility::new(
        "base32",
        native!(basenc::basenc),
        "base32 [-di] [-w COLS] [FILE]",
        "encode or decode base32 (RFC 4648)",
    ),
    Utility::new(
        "base64",
        native!(basenc::basenc),
        "base64 [-di] [-w COLS] [FILE]",
        "encode or decode base64",
    ),
    Utility::new(
        "basenc",
        native!(basenc::basenc),
        "basenc --base64|--base64url|--base32|--base32hex|--base16|--base2msbf|--base2lsbf|--z85 [-di] [-w COLS] [FILE]",
        "encode or decode data in one of RFC 4648's encodings, as bits or as Z85",
    ),
    Utility::new(
        "b2sum",
        native!(md5sum::sum),
        "b2sum [-c] [FILE]...",
        "compute or check BLAKE2b-512 checksums",
    ),
    Utility::new(
        "bash",
        Run::Interpreter,
        "bash [-euxo OPTION] [-c SCRIPT [NAME [ARG]...] | FILE [ARG]...]",
        "run a child shell (exported variables and the directory go in, nothing comes out)",
    ),
    Utility::new(
        "bc",
        native!(bc::bc),
        "bc [-lq] [FILE]...",
        "arbitrary precision calculator language (-l: the math library, scale=20)",
    ),
    Utility::new(
        "basename",
        native!(basename::basename),
        "basename NAME [SUFFIX] | basename [-a] [-s SUFFIX] NAME...",
        "strip directories and a suffix from file names",
    ),
    Utility::new(
        "bunzip2",
        native!(compress::compress),
        "bunzip2 [-cfkqt] [FILE]...",
        "decompress bzip2 files",
    ),
    Utility::new(
        "bzcat",
        native!(compress::compress),
        "bzcat [FILE]...",
        "decompress bzip2 files to standard output",
    ),
    Utility::new(
        "bzip2",
        native!(compress::compress),
        "bzip2 [-cdfkqtz1-9] [FILE]...",
        "compress or decompress files in the bzip2 format",
    ),
    Utility::new(
        "cat",
        native!(cat::cat),
        "cat [-nbsAETv] [FILE]...",
        "concatenate files to standard output",
    ),
    Utility::new(
        "chmod",
        native!(chmod::chmod),
        "chmod [-Rv] MODE[,MODE]... FILE...",
        "change permission bits (octal or symbolic modes)",
    ),
    Utility::new(
        "chgrp",
        native!(chown::chown),
        "chgrp [-Rhvcf] [--reference=FILE] GROUP FILE...",
        "change the group of files (root, $USER or a number)",
    ),
    Utility::new(
        "chown",
        native!(chown::chown),
        "chown [-Rhvcf] [--reference=FILE] OWNER[:[GROUP]] FILE...",
        "change the owner and group of files (root, $USER or numbers)",
    ),
    Utility::new(
        "cksum",
        native!(cksum::cksum),
        "cksum [-a ALGORITHM] [-l BITS] [--untagged] [-c] [FILE]...",
        "checksum and count the bytes of files (POSIX CRC, or -a md5, sha1, sha2, blake2b, sm3, bsd, sysv)",
    ),
    Utility::new(
        "clear",
        native!(terminal::clear),
        "clear",
        "clear the terminal (the isolate has none: prints nothing)",
    ),
    Utility::new(
        "cmp",
        native!(cmp::cmp),
        "cmp [-s] [-l] [-n N] FILE1 [FILE2]",
        "compare two files byte by byte",
    ),
    Utility::new(
        "column",
        native!(column::column),
        "column [-t] [-s SEP] [-o SEP] [-N NAMES] [-R COLS] [-H COLS] [-d] [-J [-n NAME]] [FILE]...",
        "columnate lists and tables (-N: named columns, -J: as JSON)",
    ),
    Utility::new(
        "comm",
        native!(comm::comm),
        "comm [-123z] [--output-delimiter=STR] [--total] [--check-order|--nocheck-order] FILE1 FILE2",
        "compare two sorted files line by line",
    ),
    Utility::new(
        "cp",
        native!(cp::cp),
        "cp [-rRapnfvPLd] SOURCE... DEST",
        "copy files and directories (modes kept; links copied as links with -r/-a/-P)",
    ),
    Utility::new(
        "csplit",
        native!(csplit::csplit),
        "csplit [-skz] [-f PREFIX] [-n DIGITS] [-b FORMAT] FILE PATTERN... (N, /RE/[OFFSET], %RE%[OFFSET], {N}, {*})",
        "split a file into pieces at line numbers or matching lines",
    ),
    Utility::new(
        "curl",
        native!(curl::curl),
        "curl [-sSfLIiGvk] [-o FILE | -O] [-X METHOD] [-H 'NAME: VALUE']... [-d DATA | --data-binary DATA | --data-urlencode DATA | --json DATA | -F NAME=VALUE]... [-u USER:PASS] [-w FORMAT] [-D FILE] [-m SECS] [--retry N] [--compressed] URL...",
        "transfer a URL over HTTP(S), sent by the host through the workspace's network policy",
    ),
    Utility::new(
        "cut",
        native!(cut::cut),
        "cut -b LIST | -c LIST | -f LIST [-d DELIM] [-s] [--complement] [--output-delimiter=S] [FILE]...",
        "remove sections from each line",
    ),
    Utility::new(
        "date",
        native!(date::date),
        "date [-u] [-d STRING] [-r FILE] [+FORMAT]",
        "print the date and time (UTC unless TZ is set)",
    ),
    Utility::new(
        "dd",
        native!(dd::dd),
        "dd [if=FILE] [of=FILE] [bs=N | ibs=N obs=N] [count=N] [skip=N] [seek=N] [conv=notrunc,sync,ucase,lcase,swab,excl,nocreat,noerror] [iflag=fullblock,skip_bytes,count_bytes] [oflag=seek_bytes,append] [status=none|noxfer|progress]",
        "copy a file in blocks, converting on the way",
    ),
    Utility::new(
        "df",
        native!(df::df),
        "df [-hHikT] [FILE]...",
        "report the workspace's space usage",
    ),
    Utility::new(
        "diff",
        native!(diff::diff),
        "diff [-uqrNsibwB] [-U N] FILE1 FILE2",
        "compare files or directories line by line",
    ),
    Utility::new(
        "diff3",
        native!(diff3::diff3),
        "diff3 [-AeExX3] [-m] [-iT] [-L LABEL]... MYFILE OLDFILE YOURFILE",
        "compare three files; merge the changes from OLDFILE to YOURFILE into MYFILE (-m)",
    ),
    Utility::new(
        "du",
        native!(du::du),
        "du [-achksmbLl0] [-d N] [--apparent-size] [--exclude=PATTERN] [FILE]...",
        "estimate file space usage",
    ),
    Utility::new(
        "dirname",
        native!(dirname::dirname),
        "dirname NAME...",
        "strip the last component from file names",
    ),
    Utility::new(
        "egrep",
        native!(grep::grep),
        "egrep [OPTION]... PATTERN [FILE]...",
        "grep -E",
    ),
    Utility::new(
        "env",
        Run::Interpreter,
        "env [-i] [-u NAME] [NAME=VALUE]... [COMMAND [ARG]...]",
        "run a command in a changed environment, or print the environment",
    ),
    Utility::new(
        "envsubst",
        native!(envsubst::envsubst),
        "envsubst [-v] [SHELL-FORMAT]",
        "substitute the values of environment variables ($NAME, ${NAME}) in standard input",
    ),
    Utility::new(
        "expand",
        native!(expand::expand),
        "expand [-i] [-t N[,N]...] [FILE]...",
        "convert tabs to spaces",
    ),
    Utility::new(
        "expr",
        native!(expr::expr),
        "expr EXPRESSION",
        "evaluate an expression",
    ),
    Utility::new(
        "factor",
        native!(factor::factor),
        "factor [NUMBER]...",
        "print the prime factors of numbers (up to 2^128 - 1)",
    ),
    Utility::new(
        "fgrep",
        native!(grep::grep),
        "fgrep [OPTION]... STRINGS [FILE]...",
        "grep -F",
    ),
    Utility::new(
        "fd",
        native!(fd::fd),
        "fd [-HIupFgsi] [-e EXT]... [-t f|d|l|x|e]... [-d DEPTH] [--min-depth N] [-E GLOB]... [-a] [-0] [-L] [--max-results N] [-q] [-x CMD... | -X CMD...] [PATTERN] [PATH]...",
        "find entries by name (fd 10): regex or glob, smart case, hidden and ignored files left out",
    ),
    Utility::new(
        "file",
        native!(file::file),
        "file [-bLNi] [--mime-type] [--mime-encoding] FILE...",
        "determine file type",
    ),
    Utility::new(
        "find",
        native!(find::find),
        "find [-H|-L|-P] [PATH]... [EXPRESSION]",
        "search for files (-name -iname -path -regex -type -size -mtime -newer -empty -perm -maxdepth -mindepth -prune -delete -print -print0 -printf -exec {} ; and + ! -a -o ( ))",
    ),
    Utility::new(
        "fmt",
        native!(fmt::fmt),
        "fmt [-w WIDTH] [-s] [-u] [FILE]...",
        "reformat paragraphs",
    ),
    Utility::new(
        "fold",
        native!(fold::fold),
        "fold [-bs] [-w WIDTH] [FILE]...",
        "wrap lines to a width",
    ),
    Utility::new(
        "gawk",
        native!(awk::awk),
        "gawk [-F FS] [-v VAR=VALUE]... [-f PROGFILE | 'PROGRAM'] [FILE]...",
        "awk",
    ),
    Utility::new(
        "git",
        native!(git::git),
        "git COMMAND [ARGS]... (init clone fetch pull push remote config status add rm mv restore commit reset log show diff rev-parse ls-files branch checkout switch stash)",
        "version control on the host's git, over this workspace; other commands go to the container's git",
    ),
    Utility::new(
        "grep",
        native!(grep::grep),
        "grep [-rniv clLoqswxEFPhHbZz] [-A N] [-B N] [-C N] [-m N] [-e PATTERN]... [-f FILE] [--include=GLOB] [--exclude=GLOB] [--exclude-dir=GLOB] [--label=L] PATTERN [FILE]...",
        "print lines that match patterns",
    ),
    Utility::new(
        "gunzip",
        native!(gzip::gzip),
        "gunzip [-cfkt] [FILE]...",
        "decompress gzip files",
    ),
    Utility::new(
        "gzip",
        native!(gzip::gzip),
        "gzip [-cdfklnt1-9] [FILE]...",
        "compress or decompress files",
    ),
    Utility::new(
        "hd",
        native!(hexdump::hexdump),
        "hd [FILE]...",
        "hexdump -C",
    ),
    Utility::new(
        "head",
        native!(head::head),
        "head [-n [-]N] [-c [-]N] [-qv] [FILE]...",
        "output the first part of files",
    ),
    Utility::new(
        "hexdump",
        native!(hexdump::hexdump),
        "hexdump [-Cvx] [-n N] [-s OFFSET] [FILE]...",
        "display file contents in hexadecimal",
    ),
    Utility::new(
        "hostname",
        native!(hostname::hostname),
        "hostname",
        "print the machine's name",
    ),
    Utility::new(
        "iconv",
        native!(iconv::iconv),
        "iconv [-cl] -f FROM -t TO[//TRANSLIT|//IGNORE] [FILE]...",
        "convert text between character encodings (UTF-8, ASCII, Latin-1, UTF-16, UTF-32, windows-1252...)",
    ),
    Utility::new(
        "id",
        native!(id::id),
        "id [-unrgG] [USER]",
        "print user and group ids",
    ),
    Utility::new(
        "jq",
        native!(jq::jq),
        "jq [OPTIONS] FILTER [FILE]...",
        "command-line JSON processor (jq 1.7.1's language, options and output, on jaq)",
    ),
    Utility::new(
        "install",
        native!(install::install),
        "install [-CDdpTv] [-m MODE] [-o OWNER] [-g GROUP] [-t DIR] SOURCE... DEST | -d DIR...",
        "copy files and set their mode (0755 unless -m) and owner, or make directories",
    ),
    Utility::new(
        "join",
        native!(join::join),
        "join [-t CHAR] [-1 FIELD] [-2 FIELD] [-a N] [-v N] [-o LIST] [-e EMPTY] [-i] FILE1 FILE2",
        "join lines of two files on a common field",
    ),
    Utility::new(
        "ln",
        native!(ln::ln),
        "ln [-sfvnrT] [-t DIR] TARGET... [LINK_NAME|DIR]",
        "make hard or symbolic links",
    ),
    Utility::new(
        "logname",
        native!(whoami::whoami),
        "logname",
        "print the user's login name",
    ),
    Utility::new(
        "look",
        native!(look::look),
        "look [-df] [-t CHAR] STRING [FILE]...",
        "print the lines of a sorted file that begin with a string",
    ),
    Utility::new(
        "ls",
        native!(ls::ls),
        "ls [-aAdFpRrtSU1lhLm] [FILE]...",
        "list directory contents",
    ),
    Utility::new(
        "md5sum",
        native!(md5sum::sum),
        "md5sum [-c] [FILE]...",
        "compute or check MD5 checksums",
    ),
    Utility::new(
        "mkdir",
        native!(mkdir::mkdir),
        "mkdir [-pv] [-m MODE] DIR...",
        "make directories",
    ),
    Utility::new(
        "mkfifo",
        native!(mkfifo::mkfifo),
        "mkfifo [-m MODE] NAME...",
        "make FIFOs (named pipes): a container opens them through the mount; the isolate cannot",
    ),
    Utility::new(
        "mktemp",
        native!(mktemp::mktemp),
        "mktemp [-dtuq] [-p DIR] [--suffix=S] [TEMPLATE]",
        "create a temporary file or directory",
    ),
    Utility::new(
        "mv",
        native!(mv::mv),
        "mv [-fnv] SOURCE... DEST",
        "move or rename files",
    ),
    Utility::new(
        "nl",
        native!(nl::nl),
        "nl [-b STYLE] [-n FORMAT] [-w N] [-s SEP] [-v N] [-i N] [FILE]...",
        "number lines of files",
    ),
    Utility::new(
        "nproc",
        native!(nproc::nproc),
        "nproc [--all] [--ignore=N]",
        "print the number of processors a command may use (1: the isolate runs one at a time)",
    ),
    Utility::new(
        "numfmt",
        native!(numfmt::numfmt),
        "numfmt [--from=si|iec|iec-i|auto] [--to=si|iec|iec-i] [--round=HOW] [--suffix=S] [--padding=N] [--format=FMT] [-d C] [--field=FIELDS] [--header[=N]] [--invalid=MODE] [NUMBER]...",
        "convert numbers to and from human-readable sizes (1.5K, 2.0Mi)",
    ),
    Utility::new(
        "od",
        native!(od::od),
        "od [-A RADIX] [-t TYPE] [-bcdox] [-N N] [-j N] [-v] [-w N] [FILE]...",
        "dump files in octal and other formats",
    ),
    Utility::new(
        "paste",
        native!(paste::paste),
        "paste [-s] [-d LIST] [FILE]...",
        "merge lines of files",
    ),
    Utility::new(
        "patch",
        native!(patch::patch),
        "patch [-p N] [-R] [-N] [-s] [-b] [-E] [--dry-run] [-o OUT] [-d DIR] [-i PATCH] [FILE [PATCH]]",
        "apply a unified diff (git's too) to files",
    ),
    Utility::new(
        "pr",
        native!(pr::pr),
        "pr [+FIRST[:LAST]] [-COLUMN] [-adfFJmrtT] [-D FORMAT] [-h HEADER] [-l LINES] [-n[SEP[DIGITS]]] [-N NUM] [-o MARGIN] [-s[CHAR]] [-S[STRING]] [-w WIDTH] [-W WIDTH] [FILE]...",
        "paginate or columnate files for printing",
    ),
    Utility::new(
        "printenv",
        native!(printenv::printenv),
        "printenv [NAME]...",
        "print environment variables",
    ),
    Utility::new(
        "readlink",
        native!(readlink::readlink),
        "readlink [-f|-e|-m] FILE...",
        "print the target of a symbolic link, or a canonical name",
    ),
    Utility::new(
        "realpath",
        native!(realpath::realpath),
        "realpath [-e|-m] [-s] [--relative-to=DIR] FILE...",
        "print the resolved absolute name",
    ),
    Utility::new(
        "rev",
        native!(rev::rev),
        "rev [FILE]...",
        "reverse the characters of lines",
    ),
    Utility::new(
        "rg",
        native!(rg::rg),
        "rg [-e PATTERN]... [-FwxiSsvPU] [-nNlcoq0] [--files-without-match] [--count-matches] [--json] [-A/-B/-C N] [--heading] [-r REPLACEMENT] [-g GLOB]... [-t TYPE]... [-T TYPE]... [--hidden] [--no-ignore] [-u] [-d DEPTH] [-m NUM] [--sort path] [--files] [--type-list] PATTERN [PATH]...",
        "ripgrep: search files recursively for a regex, honouring .gitignore, .ignore and .rgignore",
    ),
    Utility::new(
        "rm",
        native!(rm::rm),
        "rm [-rRfdv] [--no-preserve-root] FILE...",
        "remove files or directories (-i is refused: nobody can answer)",
    ),
    Utility::new(
        "rmdir",
        native!(rmdir::rmdir),
        "rmdir [-pv] DIR...",
        "remove empty directories",
    ),
    Utility::new(
        "sed",
        native!(sed::sed),
        "sed [-nEr] [-i[SUFFIX]] [-s] [-z] [-e SCRIPT]... [-f FILE] [SCRIPT] [FILE]...",
        "stream editor (GNU sed's commands, addresses and s flags)",
    ),
    Utility::new(
        "seq",
        native!(seq::seq),
        "seq [-w] [-s SEP] [-f FORMAT] [FIRST [INCREMENT]] LAST",
        "print a sequence of numbers",
    ),
    Utility::new(
        "sh",
        Run::Interpreter,
        "sh [-euxo OPTION] [-c SCRIPT [NAME [ARG]...] | FILE [ARG]...]",
        "run a child shell",
    ),
    Utility::new(
        "sha1sum",
        native!(md5sum::sum),
        "sha1sum [-c] [FILE]...",
        "compute or check SHA-1 checksums",
    ),
    Utility::new(
        "sha224sum",
        native!(md5sum::sum),
        "sha224sum [-c] [FILE]...",
        "compute or check SHA-224 checksums",
    ),
    Utility::new(
        "sha256sum",
        native!(md5sum::sum),
        "sha256sum [-c] [FILE]...",
        "compute or check SHA-256 checksums",
    ),
    Utility::new(
        "sha384sum",
        native!(md5sum::sum),
        "sha384sum [-c] [FILE]...",
        "compute or check SHA-384 checksums",
    ),
    Utility::new(
        "sha512sum",
        native!(md5sum::sum),
        "sha512sum [-c] [FILE]...",
        "compute or check SHA-512 checksums",
    ),
    Utility::new(
        "shuf",
        native!(shuf::shuf),
        "shuf [-rz] [-n COUNT] [-o FILE] [--random-source=FILE] [FILE | -e ARG... | -i LO-HI]",
        "write a random permutation of lines, arguments or numbers",
    ),
    Utility::new(
        "sleep",
        native!(sleep::sleep),
        "sleep NUMBER[smhd]...",
        "wait a while",
    ),
    Utility::new(
        "sort",
        native!(sort::sort),
        "sort [-nrufbdhVgsmcC] [-k KEYDEF]... [-t SEP] [-o FILE] [FILE]...",
        "sort lines of text",
    ),
    Utility::new(
        "split",
        native!(split::split),
        "split [-l N | -b SIZE | -n CHUNKS] [-d] [-a N] [FILE [PREFIX]]",
        "split a file into pieces",
    ),
    Utility::new(
        "stat",
        native!(stat::stat),
        "stat [-L] [-c FORMAT | --printf FORMAT] FILE...",
        "display file status",
    ),
    Utility::new(
        "strings",
        native!(strings::strings),
        "strings [-a] [-n N] [-t RADIX] [FILE]...",
        "print the printable strings in files",
    ),
    Utility::new(
        "stty",
        native!(terminal::stty),
        "stty [-a | -g | size | SETTING...]",
        "print terminal settings (a dumb 80x24 terminal; settings change nothing)",
    ),
    Utility::new(
        "sum",
        native!(cksum::sum),
        "sum [-r | -s] [FILE]...",
        "print BSD or System V 16-bit checksums and block counts",
    ),
    Utility::new(
        "tac",
        native!(tac::tac),
        "tac [FILE]...",
        "concatenate and print files in reverse",
    ),
    Utility::new(
        "tail",
        native!(tail::tail),
        "tail [-n [+]N] [-c [+]N] [-qv] [FILE]...",
        "output the last part of files",
    ),
    Utility::new(
        "tar",
        native!(tar::tar),
        "tar -c|-x|-t [-zJjvfOC DIR] [--zstd] [--strip-components=N] [--exclude=PATTERN]... [-f ARCHIVE] [FILE]...",
        "create, extract or list tar archives (gzip -z, xz -J, bzip2 -j, zstd --zstd; recognised when reading)",
    ),
    Utility::new(
        "tee",
        native!(tee::tee),
        "tee [-a] [FILE]...",
        "copy standard input to files and standard output",
    ),
    Utility::new(
        "timeout",
        native!(timeout::timeout),
        "timeout [-s SIGNAL] [-k DURATION] DURATION COMMAND [ARG]...",
        "run a command with a time limit (status 124 when it is hit)",
    ),
    Utility::new(
        "touch",
        native!(touch::touch),
        "touch [-acm] [-d DATE | -r FILE | -t STAMP] FILE...",
        "change file times, creating files",
    ),
    Utility::new(
        "tomlq",
        native!(jq::jq),
        "tomlq [jq options] [-t] FILTER [FILE]...",
        "jq for TOML documents (-t: TOML output)",
    ),
    Utility::new(
        "tput",
        native!(terminal::tput),
        "tput [-T TERM] CAPABILITY [PARAM]...",
        "query terminal capabilities (a dumb 80x24 terminal: numbers, and no sequences)",
    ),
    Utility::new(
        "tr",
        native!(tr::tr),
        "tr [-cdst] SET1 [SET2]",
        "translate, squeeze or delete characters",
    ),
    Utility::new(
        "tree",
        native!(tree::tree),
        "tree [-adfFilprsh] [-L LEVEL] [-I PATTERN] [-P PATTERN] [--prune] [--noreport] [--dirsfirst] [DIR]...",
        "list directories as a tree",
    ),
    Utility::new(
        "truncate",
        native!(truncate::truncate),
        "truncate -s SIZE FILE...",
        "shrink or extend files to a size",
    ),
    Utility::new(
        "tsort",
        native!(tsort::tsort),
        "tsort [FILE]",
        "topological sort of pairs of names",
    ),
    Utility::new(
        "tty",
        native!(terminal::tty),
        "tty [-s]",
        "print the terminal on standard input (none in the isolate: \"not a tty\")",
    ),
    Utility::new(
        "uname",
        native!(uname::uname),
        "uname [-asnrvmo]",
        "print system information",
    ),
    Utility::new(
        "unexpand",
        native!(unexpand::unexpand),
        "unexpand [-a] [--first-only] [-t N[,N]...] [FILE]...",
        "convert spaces to tabs",
    ),
    Utility::new(
        "unxz",
        native!(compress::compress),
        "unxz [-cfkqt] [FILE]...",
        "decompress xz files",
    ),
    Utility::new(
        "unzip",
        native!(unzip::unzip),
        "unzip [-lqtopjn] [-Z1] [-d DIR] ARCHIVE [MEMBER]... [-x MEMBER...]",
        "list, test and extract zip archives",
    ),
    Utility::new(
        "uniq",
        native!(uniq::uniq),
        "uniq [-cdDuiz] [-f N] [-s N] [-w N] [INPUT [OUTPUT]]",
        "report or omit repeated lines",
    ),
    Utility::new(
        "unzstd",
        native!(compress::compress),
        "unzstd [-cfqt] [--rm] [-o FILE] [FILE]...",
        "decompress zstd files",
    ),
    Utility::new(
        "wc",
        native!(wc::wc),
        "wc [-lwcmL] [FILE]...",
        "count lines, words and bytes",
    ),
    Utility::new(
        "wget",
        native!(wget::wget),
        "wget [-q] [-O FILE] [-P DIR] [--header 'NAME: VALUE']... [--post-data DATA] [--method M] [-T SECS] [-t N] [-S] URL...",
        "download URLs to files, through the host and the workspace's network policy",
    ),
    Utility::new(
        "which",
        native!(which::which),
        "which [-a] NAME...",
        "locate a command",
    ),
    Utility::new(
        "whoami",
        native!(whoami::whoami),
        "whoami",
        "print the user name",
    ),
    Utility::new(
        "xargs",
        native!(xargs::xargs),
        "xargs [-0rt] [-n N] [-L N] [-I REPLACE] [-d DELIM] [-P N] [COMMAND [ARG]...]",
        "build and run command lines from standard input (run one after another)",
    ),
    Utility::new(
        "xsv",
        native!(xsv::xsv),
        "xsv headers|count|select|search|sort|slice|frequency|join|stats|table|fmt [-d DELIM] [-n] [-o FILE] [ARGS]",
        "CSV tables: xsv 0.13's commands (select columns, search, sort, join, count, stats, align)",
    ),
    Utility::new(
        "xxd",
        native!(xxd::xxd),
        "xxd [-r] [-p] [-i] [-c COLS] [-g BYTES] [-l LEN] [-s OFFSET] [-u] [INFILE [OUTFILE]]",
        "make a hex dump, or reverse one",
    ),
    Utility::new(
        "xz",
        native!(compress::compress),
        "xz [-cdfkqtz0-9] [FILE]...",
        "compress or decompress files in the xz format",
    ),
    Utility::new(
        "xzcat",
        native!(compress::compress),
        "xzcat [FILE]...",
        "decompress xz files to standard output",
    ),
    Utility::new(
        "yes",
        native!(yes::yes),
        "yes [STRING]...",
        "output a string repeatedly",
    ),
    Utility::new(
        "yq",
        native!(jq::jq),
        "yq [jq options] [-y] [-i] FILTER [FILE]...",
        "jq for YAML documents (-y: YAML output, -i: in place)",
    ),
    Utility::new(
        "zip",
        native!(zip::zip),
        "zip [-rqj0-9] [-d] ARCHIVE FILE...",
        "package and compress files into a zip archive",
    ),
    Utility::new(
        "zcat",
        native!(gzip::gzip),
        "zcat [FILE]...",
        "decompress gzip files to standard output",
    ),
    Utility::new(
        "zstd",
        native!(compress::compress),
        "zstd [-cdfqt] [--rm] [-o FILE] [FILE]...",
        "compress (at zstd's level 1) or decompress files in the zstd format",
    ),
    Utility::new(
        "zstdcat",
        native!(compress::compress),
        "zstdcat [FILE]...",
        "decompress zstd files to standard output",
    ),
];

#[cfg(all(test, unix))]
mod tests {
    use super::UTILITIES;

    #[test]
    fn every_name_is_listed_once_in_order() {
        let names: Vec<&str> = UTILITIES.iter().map(|u| u.name.as_ref()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names.len(), sorted.len(), "a name is listed twice");
        for u in UTILITIES {
            assert!(
                !u.usage.is_empty() && !u.about.is_empty(),
                "{} has no help",
                u.name
            );
            assert!(
                u.usage.starts_with(u.name.as_ref()),
                "{}'s usage names another command",
                u.name
            );
        }
    }
}
