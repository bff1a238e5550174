//! `sed`, as GNU sed does it: `-n -e -f -i[SUFFIX] -E/-r -s -z`; addresses (numbers, `$`,
//! `/re/` and `\cREc` with `I`, `first~step`, ranges, `addr,+N`, `!`); the commands
//! `{} s y d D p P n N a i c = q Q h H g G x b t T : l z r w`; `s` with `g`, `p`, `N`, `I`,
//! `w`, and `& \1..\9 \n \L \U \l \u \E` in the replacement; the hold space. Backreferences
//! (`\(.\)\1`) work in addresses and `s` patterns.

mod parse;
mod run;

use super::stream::{Stop, Writer, complain, files_or_stdin};
use lexopt::prelude::*;
use parse::*;
use run::*;
use shell_base::Context;
use shell_base::args::{parser, string, value, wording};

/// A script given with `-e`, or the file `-f` names.
enum Script {
    Text(String),
    File(String),
}

/// `sed [-n] [-E] [-s] [-i[SUFFIX]] [-z] {SCRIPT | -e SCRIPT... | -f FILE...} [FILE...]`.
pub async fn sed(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut quiet = false;
    let mut extended = false;
    let mut separate = false;
    let mut in_place: Option<String> = None;
    let mut zero = false;
    let mut scripts: Vec<Script> = Vec::new();
    let mut files = Vec::new();
    let usage = "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...";
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('n') | Long("quiet" | "silent") => quiet = true,
                Short('E' | 'r') | Long("regexp-extended") => extended = true,
                Short('s') | Long("separate") => separate = true,
                Short('z') | Long("null-data") => zero = true,
                Short('u') | Long("unbuffered" | "posix" | "debug") => {}
                Short('e') | Long("expression") => scripts.push(Script::Text(value(&mut p)?)),
                Short('f') | Long("file") => scripts.push(Script::File(value(&mut p)?)),
                // `-i[SUFFIX]`: the suffix only attached (`-i.bak`, `--in-place=.bak`).
                Short('i') | Long("in-place") => {
                    in_place = Some(p.optional_value().map(string).unwrap_or_default());
                    separate = true;
                }
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        let (msg, _) = wording("sed", &e);
        return complain(sh, &format!("{msg}\n{usage}")).await;
    }
    // `-e` scripts and `-f` files, in the order given.
    let mut texts = Vec::new();
    for script in scripts {
        match script {
            Script::Text(t) => texts.push(t),
            Script::File(f) => match std::fs::read(sh.path(&f)) {
                Ok(d) => texts.push(
                    String::from_utf8_lossy(&d)
                        .trim_end_matches('\n')
                        .to_string(),
                ),
                Err(e) => {
                    let e = shell_base::errno::io_message(&e);
                    return complain(sh, &format!("sed: couldn't open file {f}: {e}")).await;
                }
            },
        }
    }
    let mut scripts = texts;
    if scripts.is_empty() {
        if files.is_empty() {
            return complain(sh, SED_USAGE).await;
        }
        scripts.push(files.remove(0));
    }
    let script = scripts.join("\n");
    let mut parser = Parser {
        s: script.as_bytes(),
        i: 0,
        extended,
        labels: Vec::new(),
    };
    let prog = match parser.parse() {
        Ok(p) => p,
        Err(m) => {
            complain(
                sh,
                &format!("sed: -e expression #1, char {}: {m}", parser.i),
            )
            .await;
            return 1;
        }
    };
    let labels: std::collections::HashMap<String, usize> = parser.labels.into_iter().collect();
    for instr in &prog {
        if let Cmd::Branch(l) | Cmd::BranchIf(l) | Cmd::BranchUnless(l) = &instr.cmd
            && !l.is_empty()
            && !labels.contains_key(l)
        {
            complain(
                sh,
                &format!(
                    "sed: -e expression #1, char {}: can't find label for jump to `{l}'",
                    script.len()
                ),
            )
            .await;
            return 1;
        }
    }
    let files = files_or_stdin(files);
    let groups: Vec<Vec<String>> = if separate {
        files.iter().map(|f| vec![f.clone()]).collect()
    } else {
        vec![files.clone()]
    };
    let delim = if zero { b'\0' } else { b'\n' };
    let mut run = Run {
        prog: &prog,
        labels,
        quiet,
        delim,
        active: initially_active(&prog),
        hold: Vec::new(),
        last_re: None,
        writes: Default::default(),
    };
    for instr in &prog {
        let target = match &instr.cmd {
            Cmd::WriteFile(f) => Some(f.clone()),
            Cmd::Subst { write: Some(f), .. } => Some(f.clone()),
            _ => None,
        };
        if let Some(f) = target
            && !run.writes.contains_key(&f)
            && let Ok(file) = std::fs::File::create(sh.path(&f))
        {
            run.writes.insert(f, file);
        }
    }
    let mut status = 0;
    let mut errors = Vec::new();
    let mut line_no = 0u64;
    for group in groups {
        if in_place.is_some() && group[0] == "-" {
            complain(sh, "sed: couldn't edit -: not a regular file").await;
            return 4;
        }
        let buffer = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let target = if in_place.is_some() {
            shell_base::io::Output::Capture(std::rc::Rc::clone(&buffer))
        } else {
            sh.io().stdout.clone()
        };
        let mut out = Writer::new(&target);
        let mut source = Source {
            files: group.clone(),
            next_file: 0,
            current: None,
            peeked: None,
            delim,
        };
        if separate {
            line_no = 0;
            run.active = initially_active(&prog);
        }
        let outcome = run_group(
            sh,
            &mut run,
            &mut source,
            &mut out,
            &mut line_no,
            &mut errors,
        )
        .await;
        for e in errors.drain(..) {
            status = 2;
            complain(sh, &e).await;
        }
        let quit = match outcome {
            Ok(q) => q,
            Err(Stop(s)) => return s,
        };
        if let Err(Stop(s)) = out.flush().await {
            return s;
        }
        if let Some(suffix) = &in_place {
            let path = sh.path(&group[0]);
            if !suffix.is_empty() {
                let backup = if suffix.contains('*') {
                    suffix.replace('*', &group[0])
                } else {
                    format!("{}{suffix}", group[0])
                };
                let _ = std::fs::copy(&path, sh.path(&backup));
            }
            let result = std::fs::write(&path, &*buffer.borrow());
            if let Err(e) = result {
                complain(
                    sh,
                    &format!(
                        "sed: couldn't write {}: {}",
                        group[0],
                        shell_base::errno::io_message(&e)
                    ),
                )
                .await;
                status = 4;
            }
        }
        if let Some(code) = quit {
            return code;
        }
    }
    status
}

/// What GNU sed prints when it is given no script.
const SED_USAGE: &str = r#"Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>."#;

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::{Native, stdout_of};

    #[test]
    fn substitutes_deletes_and_edits_in_place() {
        assert_eq!(stdout_of(&["sed", "s/a/X/g"], "banana\n"), "bXnXnX\n");
        assert_eq!(stdout_of(&["sed", "2d"], "1\n2\n3\n"), "1\n3\n");
        assert_eq!(stdout_of(&["sed", "-n", "/b/p"], "a\nb\n"), "b\n");
        assert_eq!(
            stdout_of(&["sed", "s/\\(.\\)\\1/<&>/"], "abbc\n"),
            "a<bb>c\n"
        );
        let mut ctx = Native::new();
        ctx.write("f", "old\n");
        assert_eq!(ctx.run(&["sed", "-i", "s/old/new/", "f"], "").status, 0);
        assert_eq!(ctx.read("f"), "new\n");
    }
}
