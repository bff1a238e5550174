//! Field splitting on `IFS`.

use super::*;

/// Field splitting of an unquoted expansion's text on IFS, bash's way: runs of IFS
/// whitespace separate (and are dropped at the ends); each other IFS character ends a field,
/// so `a::b` has an empty field in the middle. `cur` is the field being built.
pub(super) fn split_ifs(text: &str, ifs: &str, cur: &mut Field, fields: &mut Vec<Field>) {
    let is_ws = |c: char| ifs.contains(c) && matches!(c, ' ' | '\t' | '\n');
    let is_sep = |c: char| ifs.contains(c) && !is_ws(c);
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !is_ws(c) && !is_sep(c) {
            let start = i;
            while i < chars.len() && !is_ws(chars[i]) && !is_sep(chars[i]) {
                i += 1;
            }
            cur.push(&chars[start..i].iter().collect::<String>(), true);
            continue;
        }
        // A delimiter: whitespace, at most one other IFS character, whitespace.
        let mut hard = false;
        while i < chars.len() && is_ws(chars[i]) {
            i += 1;
        }
        if i < chars.len() && is_sep(chars[i]) {
            hard = true;
            i += 1;
            while i < chars.len() && is_ws(chars[i]) {
                i += 1;
            }
        }
        if hard || cur.started {
            cur.started = true;
            fields.push(std::mem::take(cur));
        }
    }
}
