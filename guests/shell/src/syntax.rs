//! Syntax errors worded as bash words them: `syntax error near unexpected token `fi'` with
//! the offending line, `syntax error: unexpected end of file`, `unexpected EOF while looking
//! for matching `"'`.

use brush_parser::ParseError;
use brush_parser::TokenizerError as T;

/// The message lines (without the `NAME: -c: ` prefix) for a parse error of `src`: each is
/// (line number, text).
pub fn messages(src: &str, err: &ParseError) -> Vec<(usize, String)> {
    let lines: Vec<&str> = src.lines().collect();
    let last = lines.len().max(1);
    match err {
        ParseError::ParsingNear(pos) => {
            let n = pos.line.max(1);
            let line = lines.get(n - 1).copied().unwrap_or("");
            let token = token_at(line, pos.column.saturating_sub(1));
            if token.is_empty() {
                return vec![(last + 1, "syntax error: unexpected end of file".into())];
            }
            vec![
                (n, format!("syntax error near unexpected token `{token}'")),
                (n, format!("`{line}'")),
            ]
        }
        ParseError::ParsingAtEndOfInput => {
            vec![(last + 1, "syntax error: unexpected end of file".into())]
        }
        ParseError::Tokenizing { inner, position } => {
            let line = position.as_ref().map(|p| p.line).unwrap_or(last).max(1);
            let matching = match inner {
                T::UnterminatedSingleQuote(_) | T::UnterminatedAnsiCQuote(_) => "'",
                T::UnterminatedDoubleQuote(_) => "\"",
                T::UnterminatedBackquote(_) => "`",
                T::UnterminatedCommandSubstitution | T::UnterminatedExtendedGlob(_) => ")",
                T::UnterminatedVariable | T::UnterminatedExpansion => "}",
                T::UnterminatedHereDocuments(tag, _) | T::MissingHereTag(tag) => {
                    return vec![(
                        last + 1,
                        format!(
                            "warning: here-document at line {line} delimited by end-of-file (wanted `{tag}')"
                        ),
                    )];
                }
                other => return vec![(line, format!("syntax error: {other}"))],
            };
            vec![(
                last,
                format!("unexpected EOF while looking for matching `{matching}'"),
            )]
        }
    }
}

/// The token starting at char `column` of `line`: an operator, or a word.
fn token_at(line: &str, column: usize) -> String {
    let rest: String = line.chars().skip(column).collect();
    let rest = rest.trim_start();
    for op in [
        ";;&", ";;", ";&", "&&", "||", "|&", "<<<", "<<", ">>", "<&", ">&", "&>", "(", ")", ";",
        "&", "|", "<", ">",
    ] {
        if rest.starts_with(op) {
            return op.to_string();
        }
    }
    rest.chars()
        .take_while(|c| !c.is_whitespace() && !";&|()<>".contains(*c))
        .collect()
}
