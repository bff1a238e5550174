//! Brace expansion: `{a,b}`, `{1..10..2}`, `{01..10}` (padded), `{a..e}`, nested.

use super::*;

/// Words one brace expansion may produce before it fails with a named error.
const MAX_BRACE_WORDS: usize = 100_000;

/// `a{b,c}d` → `abd acd`; `{1..5..2}` → `1 3 5`; `{01..3}` → `01 02 03`; `{a..c}` →
/// `a b c`. Quoted braces stay.
pub(super) fn brace_expand(
    raw: &str,
    opts: &brush_parser::ParserOptions,
) -> Result<Vec<String>, ExpandError> {
    if !raw.contains('{') {
        return Ok(vec![raw.to_string()]);
    }
    match word::parse_brace_expansions(raw, opts) {
        Ok(Some(pieces)) => {
            let mut widths = sequence_widths(raw, &pieces);
            brace_words(&pieces, &mut widths)
        }
        _ => Ok(vec![raw.to_string()]),
    }
}

/// The width of each numeric sequence, in order: bash pads every number to the longer end
/// when an end is written with a leading zero (`{01..10}`, `{-05..5}`), 0 for none. The
/// parser gives the numbers only, so the ends are read again from the text; when the text's
/// sequences do not pair with the parser's (a quoted `"{01..2}"`), none is padded.
fn sequence_widths(raw: &str, pieces: &[word::BraceExpressionOrText]) -> VecDeque<usize> {
    fn count(pieces: &[word::BraceExpressionOrText]) -> usize {
        pieces
            .iter()
            .map(|p| match p {
                word::BraceExpressionOrText::Text(_) => 0,
                word::BraceExpressionOrText::Expr(members) => members
                    .iter()
                    .map(|m| match m {
                        word::BraceExpressionMember::NumberSequence { .. } => 1,
                        word::BraceExpressionMember::CharSequence { .. } => 0,
                        word::BraceExpressionMember::Child(inner) => count(inner),
                    })
                    .sum(),
            })
            .sum()
    }
    static SEQUENCE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\{(-?[0-9]+)\.\.(-?[0-9]+)(?:\.\.-?[0-9]+)?\}").unwrap()
    });
    let padded = |end: &str| {
        let digits = end.strip_prefix('-').unwrap_or(end);
        digits.len() > 1 && digits.starts_with('0')
    };
    let widths: VecDeque<usize> = SEQUENCE
        .captures_iter(raw)
        .map(|c| {
            let (a, b) = (&c[1], &c[2]);
            if padded(a) || padded(b) {
                a.len().max(b.len())
            } else {
                0
            }
        })
        .collect();
    if widths.len() == count(pieces) {
        widths
    } else {
        VecDeque::new()
    }
}

fn brace_limit() -> ExpandError {
    ExpandError::new(format!(
        "brace expansion limit of {MAX_BRACE_WORDS} words exceeded"
    ))
}

fn brace_words(
    pieces: &[word::BraceExpressionOrText],
    widths: &mut VecDeque<usize>,
) -> Result<Vec<String>, ExpandError> {
    let mut words = vec![String::new()];
    for piece in pieces {
        let alternatives = match piece {
            word::BraceExpressionOrText::Text(t) => vec![t.clone()],
            word::BraceExpressionOrText::Expr(members) => {
                let mut all = Vec::new();
                for m in members {
                    all.extend(brace_member(m, widths)?);
                }
                all
            }
        };
        if words.len().saturating_mul(alternatives.len()) > MAX_BRACE_WORDS {
            return Err(brace_limit());
        }
        words = words
            .iter()
            .flat_map(|w| alternatives.iter().map(move |a| format!("{w}{a}")))
            .collect();
    }
    Ok(words)
}

fn brace_member(
    m: &word::BraceExpressionMember,
    widths: &mut VecDeque<usize>,
) -> Result<Vec<String>, ExpandError> {
    use word::BraceExpressionMember as M;
    let steps = |start: i64, end: i64, inc: i64| -> Result<Vec<i64>, ExpandError> {
        let step = inc.unsigned_abs().max(1) as i64;
        let count = (end - start).unsigned_abs() / step as u64 + 1;
        if count as usize > MAX_BRACE_WORDS {
            return Err(brace_limit());
        }
        let dir = if end >= start { step } else { -step };
        Ok((0..count as i64).map(|i| start + i * dir).collect())
    };
    Ok(match m {
        M::NumberSequence {
            start,
            end,
            increment,
        } => {
            let width = widths.pop_front().unwrap_or(0);
            steps(*start, *end, *increment)?
                .into_iter()
                .map(|n| format!("{n:0width$}"))
                .collect()
        }
        M::CharSequence {
            start,
            end,
            increment,
        } => steps(*start as i64, *end as i64, *increment)?
            .into_iter()
            .filter_map(|c| char::from_u32(c as u32))
            .map(String::from)
            .collect(),
        M::Child(pieces) => brace_words(pieces, widths)?,
    })
}
