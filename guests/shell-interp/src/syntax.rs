//! Syntax errors worded as bash words them: `syntax error near unexpected token `fi'` with
//! the offending line, `syntax error: unexpected end of file`, `unexpected EOF while looking
//! for matching `"'`. Which complete commands precede a syntax error (bash runs those).

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

/// bash ends a here-document left open at the end of the script there, with a warning:
/// `src` with its delimiter line added, and the warning (its line number and text).
pub fn closed_here_document(src: &str, err: &ParseError) -> Option<(String, usize, String)> {
    let ParseError::Tokenizing {
        inner: T::UnterminatedHereDocuments(tag, at),
        ..
    } = err
    else {
        return None;
    };
    if tag.contains(", ") {
        return None;
    }
    let delimiter: String = tag.chars().filter(|c| !"'\"\\".contains(*c)).collect();
    let at = at.split(',').next().unwrap_or("1");
    let newline = if src.ends_with('\n') { "" } else { "\n" };
    Some((
        format!("{src}{newline}{delimiter}\n"),
        src.lines().count(),
        format!(
            "warning: here-document at line {at} delimited by end-of-file (wanted `{delimiter}')"
        ),
    ))
}

/// How many bytes of prefixes [`complete_prefix`] may parse looking for the last complete
/// command: past it (a construct left open thousands of lines before the error), nothing
/// before the error runs.
const PREFIX_PARSE_BUDGET: usize = 8 << 20;

/// The complete commands of `src` before the syntax error `err`: the longest run of whole
/// lines before the error's line that parses (bash reads and runs a script command by
/// command, so those ran before it met the error). `None` when there are none.
pub fn complete_prefix<P>(
    src: &str,
    err: &ParseError,
    parse: impl Fn(&str) -> Result<P, ParseError>,
) -> Option<P> {
    let error_line = match err {
        ParseError::ParsingNear(pos) => pos.line,
        ParseError::Tokenizing {
            position: Some(pos),
            ..
        } => pos.line,
        _ => usize::MAX,
    };
    // The byte offset just past each line's newline.
    let ends: Vec<usize> = src
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .take(error_line.saturating_sub(1))
        .collect();
    let mut budget = PREFIX_PARSE_BUDGET;
    for &end in ends.iter().rev() {
        let line = &src[..end - 1];
        // A line continued by a backslash is not the end of a command.
        let backslashes = line.len() - line.trim_end_matches('\\').len();
        let last = line.rsplit('\n').next().unwrap_or("");
        if backslashes % 2 == 1 || last.trim().is_empty() {
            continue;
        }
        budget = budget.checked_sub(end)?;
        if let Ok(program) = parse(&src[..end]) {
            return Some(program);
        }
    }
    None
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
