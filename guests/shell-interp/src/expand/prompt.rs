//! Prompt escapes (`${x@P}`, `PS1`) and the locale test quoting depends on.

use crate::state::Shell;

impl Shell {
    /// Whether the locale is UTF-8 (else bash's C locale rules for quoting).
    pub fn utf8(&self) -> bool {
        ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .find_map(|k| self.get(k).filter(|v| !v.is_empty()))
            .is_some_and(|v| {
                let v = v.to_ascii_lowercase();
                v.contains("utf-8") || v.contains("utf8")
            })
    }

    /// Prompt escapes (`${x@P}`, `PS1`): `\u \h \H \w \W \$ \n \t`-style.
    pub fn prompt(&self, text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('u') => out.push_str(self.get("USER").unwrap_or("user")),
                Some('h') | Some('H') => out.push_str(self.get("HOSTNAME").unwrap_or("computer")),
                Some('w') => {
                    let home = self.get("HOME").unwrap_or("");
                    let cwd = &self.cwd;
                    match cwd.strip_prefix(home) {
                        Some(rest)
                            if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) =>
                        {
                            out.push('~');
                            out.push_str(rest);
                        }
                        _ => out.push_str(cwd),
                    }
                }
                Some('W') => out.push_str(
                    self.cwd
                        .rsplit('/')
                        .next()
                        .filter(|s| !s.is_empty())
                        .unwrap_or("/"),
                ),
                Some('$') => out.push('$'),
                Some('n') => out.push('\n'),
                Some('s') => out.push_str("computer"),
                Some('\\') => out.push('\\'),
                Some('[') | Some(']') => {}
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push('\\'),
            }
        }
        out
    }
}
