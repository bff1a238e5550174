//! rg's two regex engines: ripgrep's own (`grep-regex`, the default) and, for `-P`, fancy-regex
//! (look-around and backreferences by backtracking) where ripgrep would use PCRE2.

use grep_matcher::{Captures, Match, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use super::options::{Case, Options};

/// The engine a search runs with.
pub enum Engine {
    Default(RegexMatcher),
    Fancy(Fancy),
}

/// Builds the matcher for `o`'s patterns; the error is what rg prints.
pub fn build(o: &Options, patterns: &[String]) -> Result<Engine, String> {
    if o.perl {
        return Fancy::new(o, patterns).map(Engine::Fancy);
    }
    let mut b = RegexMatcherBuilder::new();
    b.multi_line(true).octal(false).fixed_strings(o.fixed);
    match o.case {
        Case::Sensitive => b.case_insensitive(false),
        Case::Insensitive => b.case_insensitive(true),
        Case::Smart => b.case_smart(true),
    };
    if o.lines {
        b.whole_line(true);
    } else if o.words {
        b.word(true);
    }
    if o.multiline {
        b.dot_matches_new_line(o.multiline_dotall);
    } else {
        b.line_terminator(Some(if o.null_data { b'\0' } else { b'\n' }))
            .dot_matches_new_line(false);
    }
    if !o.text && !o.null_data {
        b.ban_byte(Some(b'\0'));
    }
    b.build_many(patterns)
        .map(Engine::Default)
        .map_err(|e| suggest(e.to_string()))
}

/// ripgrep's hints after a pattern it cannot run.
fn suggest(msg: String) -> String {
    if msg.contains("the literal") && msg.contains("not allowed") {
        format!(
            "{msg}\n\nConsider enabling multiline mode with the --multiline flag (or -U for \
             short).\nWhen multiline mode is enabled, new line characters can be matched."
        )
    } else if msg.contains("pattern contains \"\\0\"") {
        format!(
            "{msg}\n\nConsider enabling text mode with the --text flag (or -a for short). \
             Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible."
        )
    } else {
        msg
    }
}

/// fancy-regex, which searches bytes (UTF-8 or not) itself.
pub struct Fancy {
    regex: fancy_regex::Regex,
}

impl Fancy {
    fn new(o: &Options, patterns: &[String]) -> Result<Fancy, String> {
        let parts: Vec<String> = patterns
            .iter()
            .map(|p| {
                let p = if o.fixed {
                    fancy_regex::escape(p).into_owned()
                } else {
                    p.clone()
                };
                if o.lines {
                    format!("^(?:{p})$")
                } else if o.words {
                    format!(r"(?<!\w)(?:{p})(?!\w)")
                } else {
                    format!("(?:{p})")
                }
            })
            .collect();
        let insensitive = match o.case {
            Case::Sensitive => false,
            Case::Insensitive => true,
            Case::Smart => !patterns.iter().any(|p| p.chars().any(char::is_uppercase)),
        };
        let mut flags = String::from("(?m");
        if insensitive {
            flags.push('i');
        }
        if o.multiline && o.multiline_dotall {
            flags.push('s');
        }
        flags.push(')');
        // A pattern that does not parse is named alone, so the error's position is in it.
        if !o.fixed {
            for p in patterns {
                if let Err(e) = fancy_regex::Regex::new(p) {
                    return Err(format!("regex parse error:\n    {p}\nerror: {e}"));
                }
            }
        }
        let text = format!("{flags}(?:{})", parts.join("|"));
        fancy_regex::Regex::new(&text)
            .map(|regex| Fancy { regex })
            .map_err(|e| format!("regex parse error:\n    {text}\nerror: {e}"))
    }
}

/// The groups of a `-P` match (what `-r '$1'` needs).
#[derive(Default)]
pub struct FancyCaptures(Vec<Option<Match>>);

impl Captures for FancyCaptures {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, i: usize) -> Option<Match> {
        self.0.get(i).copied().flatten()
    }
}

impl Matcher for Fancy {
    type Captures = FancyCaptures;
    type Error = String;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, String> {
        match self.regex.find_from_pos(haystack, at) {
            Ok(m) => Ok(m.map(|m| Match::new(m.start(), m.end()))),
            Err(e) => Err(e.to_string()),
        }
    }

    fn new_captures(&self) -> Result<FancyCaptures, String> {
        Ok(FancyCaptures(vec![None; self.regex.captures_len()]))
    }

    fn capture_count(&self) -> usize {
        self.regex.captures_len()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.regex.capture_names().position(|n| n == Some(name))
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut FancyCaptures,
    ) -> Result<bool, String> {
        let found = self
            .regex
            .captures_from_pos(haystack, at)
            .map_err(|e| e.to_string())?;
        caps.0.iter_mut().for_each(|c| *c = None);
        let Some(found) = found else {
            return Ok(false);
        };
        for (i, slot) in caps.0.iter_mut().enumerate() {
            *slot = found.get(i).map(|m| Match::new(m.start(), m.end()));
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fancy(pattern: &str) -> Fancy {
        let o = Options {
            perl: true,
            ..Options::default()
        };
        Fancy::new(&o, &[pattern.to_string()]).unwrap()
    }

    #[test]
    fn look_around_and_backreferences() {
        let m = fancy(r"foo(?=bar)");
        assert_eq!(
            m.find_at(b"foobaz foobar", 0).unwrap(),
            Some(Match::new(7, 10))
        );
        let m = fancy(r"(\w)\1");
        assert_eq!(m.find_at(b"abccd", 0).unwrap(), Some(Match::new(2, 4)));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_searched() {
        let m = fancy("b+");
        assert_eq!(m.find_at(b"a\xffbb", 0).unwrap(), Some(Match::new(2, 4)));
    }

    #[test]
    fn captures_fill_every_group() {
        let m = fancy(r"(a)(x)?");
        let mut caps = m.new_captures().unwrap();
        assert!(m.captures_at(b"za", 0, &mut caps).unwrap());
        assert_eq!(caps.get(0), Some(Match::new(1, 2)));
        assert_eq!(caps.get(1), Some(Match::new(1, 2)));
        assert_eq!(caps.get(2), None);
    }
}
