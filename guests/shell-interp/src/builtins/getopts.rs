//! `getopts`: parses options from the positional parameters (or given words).

use crate::interp::Builtin;
use crate::interp::Interp;

/// `getopts OPTSTRING NAME [ARG...]`: the next option of the positional parameters (or of
/// the ARGs), via `OPTIND` and `OPTARG`.
pub async fn getopts(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let (Some(spec), Some(name)) = (args.first(), args.get(1)) else {
        sh.error("getopts: usage: getopts optstring name [arg ...]")
            .await;
        return 2;
    };
    let words: Vec<String> = if args.len() > 2 {
        args[2..].to_vec()
    } else {
        sh.shell.positional.clone()
    };
    let silent = spec.starts_with(':');
    let spec = spec.trim_start_matches(':');
    let mut optind: usize = sh
        .shell
        .get("OPTIND")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    if optind != sh.shell.getopts_index.0 {
        sh.shell.getopts_index = (optind, 1);
    }
    let mut pos = sh.shell.getopts_index.1;
    let finish = |sh: &mut Interp<'_>, optind: usize| {
        let _ = sh.shell.assign(name, "?".into(), false);
        sh.shell.set("OPTIND", optind.to_string());
        sh.shell.vars.remove("OPTARG");
        1
    };
    let Some(word) = words.get(optind - 1) else {
        return finish(sh, optind);
    };
    if word == "--" {
        return finish(sh, optind + 1);
    }
    if !word.starts_with('-') || word == "-" {
        return finish(sh, optind);
    }
    let chars: Vec<char> = word.chars().collect();
    let c = chars[pos.min(chars.len() - 1)];
    pos += 1;
    let at_end = pos >= chars.len();
    let advance = |sh: &mut Interp<'_>, optind: &mut usize, pos: usize, at_end: bool| {
        if at_end {
            *optind += 1;
            sh.shell.getopts_index = (*optind, 1);
        } else {
            sh.shell.getopts_index = (*optind, pos);
        }
        sh.shell.set("OPTIND", optind.to_string());
    };
    let known = spec.find(c).filter(|_| c != ':');
    let Some(at) = known else {
        advance(sh, &mut optind, pos, at_end);
        let _ = sh.shell.assign(name, "?".into(), false);
        if silent {
            sh.shell.set("OPTARG", c.to_string());
        } else {
            sh.shell.vars.remove("OPTARG");
            let msg = format!("{}: illegal option -- {c}\n", sh.shell.name);
            let _ = sh.io.stderr.write_all(msg.as_bytes()).await;
        }
        return 0;
    };
    let wants_arg = spec[at + 1..].starts_with(':');
    if !wants_arg {
        advance(sh, &mut optind, pos, at_end);
        sh.shell.vars.remove("OPTARG");
        let _ = sh.shell.assign(name, c.to_string(), false);
        return 0;
    }
    let value = if !at_end {
        Some(chars[pos..].iter().collect::<String>())
    } else {
        words.get(optind).cloned().inspect(|_| optind += 1)
    };
    advance(sh, &mut optind, chars.len(), true);
    match value {
        Some(v) => {
            sh.shell.set("OPTARG", v);
            let _ = sh.shell.assign(name, c.to_string(), false);
        }
        None if silent => {
            let _ = sh.shell.assign(name, ":".into(), false);
            sh.shell.set("OPTARG", c.to_string());
        }
        None => {
            let _ = sh.shell.assign(name, "?".into(), false);
            sh.shell.vars.remove("OPTARG");
            let msg = format!("{}: option requires an argument -- {c}\n", sh.shell.name);
            let _ = sh.io.stderr.write_all(msg.as_bytes()).await;
        }
    }
    0
}

/// `getopts`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "getopts",
    run: status!(getopts),
    usage: "optstring name [arg ...]",
    about: "Parse option arguments",
    special: false,
    declaration: None,
};
