//! Git's options before the command (`git -c user.name=a -C sub commit ...`): the ones the
//! isolate's git takes, and `GIT_CONFIG_PARAMETERS`, the environment variable through which
//! git hands `-c` settings on (and which it reads from its own environment too).

/// What comes before the command on a git command line.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Global {
    /// `-c name=value` settings, in order (`-c name` alone means `name=true`).
    pub config: Vec<String>,
    /// `-C dir` directories, in order: each is relative to the one before.
    pub dirs: Vec<String>,
}

/// Splits `args` into the global options the isolate's git takes and the rest (the command
/// and its arguments). `None` when an option it does not take comes first (`--git-dir`,
/// `--work-tree`, `-p`, ...) or one lacks its value: the real git must run such a line.
pub fn split(args: &[String]) -> Option<(Global, &[String])> {
    let mut global = Global::default();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-c" => {
                let setting = args.get(i + 1)?;
                global.config.push(if setting.contains('=') {
                    setting.clone()
                } else {
                    format!("{setting}=true")
                });
                i += 2;
            }
            "-C" => {
                global.dirs.push(args.get(i + 1)?.clone());
                i += 2;
            }
            // Nothing here pages, and nothing takes optional locks.
            "--no-pager" | "-P" | "--no-optional-locks" => i += 1,
            // The commands' own names include `--version`, `--help` and `-h`.
            s if s.starts_with('-') && crate::cli::command(s).is_none() => return None,
            _ => break,
        }
    }
    Some((global, &args[i..]))
}

/// `GIT_CONFIG_PARAMETERS` with `settings` (each `name=value`) added after what `current`
/// holds, as git writes it: each `'name'='value'`, single-quoted, separated by spaces.
pub fn with_parameters(current: Option<&str>, settings: &[String]) -> String {
    let mut out = current.unwrap_or_default().trim().to_string();
    for setting in settings {
        let (name, value) = setting.split_once('=').unwrap_or((setting, "true"));
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("{}={}", quote(name), quote(value)));
    }
    out
}

/// The `name=value` settings of a `GIT_CONFIG_PARAMETERS` value (git's two forms:
/// `'name'='value'` and the older `'name=value'`). `None` when it cannot be read.
pub fn parameters(text: &str) -> Option<Vec<String>> {
    let mut settings = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_ascii_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Some(settings);
        }
        // One word: quoted pieces, `\'` between them, and the `=` of the newer form.
        let mut word = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_ascii_whitespace()) {
            match c {
                '\'' => loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                },
                '\\' => word.push(chars.next()?),
                '=' => word.push('='),
                _ => return None,
            }
        }
        if !word.contains('=') {
            word.push_str("=true");
        }
        settings.push(word);
    }
}

/// `text` single-quoted for the shell, as git's `sq_quote` does.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_before_the_command_are_taken_or_refused() {
        let line = args(&[
            "-c",
            "user.name=A B",
            "-C",
            "sub",
            "-c",
            "x",
            "--no-pager",
            "commit",
            "-m",
            "c",
        ]);
        let (global, rest) = split(&line).unwrap();
        assert_eq!(global.config, ["user.name=A B", "x=true"]);
        assert_eq!(global.dirs, ["sub"]);
        assert_eq!(rest, &line[7..]);
        assert_eq!(
            split(&args(&["--version"])).unwrap().1,
            &args(&["--version"])[..]
        );
        assert!(split(&args(&["--git-dir=x", "status"])).is_none());
        assert!(split(&args(&["-C"])).is_none());
    }

    #[test]
    fn config_parameters_round_trip_through_the_environment() {
        let settings = args(&["user.name=it's me", "core.x=a b", "flag=true"]);
        let text = with_parameters(Some("'a.b'='1'"), &settings);
        assert_eq!(
            text,
            r#"'a.b'='1' 'user.name'='it'\''s me' 'core.x'='a b' 'flag'='true'"#
        );
        let mut all = args(&["a.b=1"]);
        all.extend(settings);
        assert_eq!(parameters(&text).unwrap(), all);
        // The older form, and a name alone.
        assert_eq!(
            parameters("'x.y=2' 'z'").unwrap(),
            args(&["x.y=2", "z=true"])
        );
        assert!(parameters("'unterminated").is_none());
        assert!(parameters("bare").is_none());
    }
}
