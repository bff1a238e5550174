//! xsv's column selections: `1,3`, `name`, `2-4`, `a-c`, `-2`, `3-`, `name[1]` (the second
//! column of that name), and `!` before them all for the other columns.

/// Column indices (0-based) that `spec` picks from `headers`, in the order it names them.
pub fn select(spec: &str, headers: &[String], named: bool) -> Result<Vec<usize>, String> {
    let (negate, spec) = match spec.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let mut picked = Vec::new();
    for part in split(spec) {
        match split_range(&part) {
            Some((a, b)) => {
                let start = if a.is_empty() {
                    0
                } else {
                    one(&a, headers, named)?
                };
                let end = if b.is_empty() {
                    headers.len().saturating_sub(1)
                } else {
                    one(&b, headers, named)?
                };
                if start <= end {
                    picked.extend(start..=end);
                } else {
                    picked.extend((end..=start).rev());
                }
            }
            None => picked.push(one(&part, headers, named)?),
        }
    }
    if negate {
        return Ok((0..headers.len()).filter(|i| !picked.contains(i)).collect());
    }
    Ok(picked)
}

/// The parts between commas, a quoted part (`"a,b"`) whole.
fn split(spec: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in spec.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

/// `a-b` as its two ends, unless the whole is a column's name.
fn split_range(part: &str) -> Option<(String, String)> {
    let (a, b) = part.split_once('-')?;
    Some((a.to_string(), b.to_string()))
}

/// One column: a 1-based index, or (with headers) a name, `name[n]` for its n-th instance.
fn one(item: &str, headers: &[String], named: bool) -> Result<usize, String> {
    if let Ok(i) = item.parse::<usize>() {
        if i == 0 {
            return Err("Selector index must be greater than 0".to_string());
        }
        if i > headers.len() {
            return Err(format!(
                "Selector index {i} is out of bounds. Index must be >= 1 and <= {}.",
                headers.len()
            ));
        }
        return Ok(i - 1);
    }
    if !named {
        return Err(format!(
            "Cannot use names ('{item}') in selection with --no-headers set."
        ));
    }
    let (name, nth) = match item.strip_suffix(']').and_then(|s| s.rsplit_once('[')) {
        Some((n, k)) if k.parse::<usize>().is_ok() => (n, k.parse().unwrap_or(0)),
        _ => (item, 0),
    };
    headers
        .iter()
        .enumerate()
        .filter(|(_, h)| *h == name)
        .nth(nth)
        .map(|(i, _)| i)
        .ok_or_else(|| {
            format!(
                "Selector name '{name}' does not exist as a named header in the given CSV data."
            )
        })
}

#[cfg(test)]
mod tests {
    use super::select;

    #[test]
    fn indices_names_ranges_and_negation() {
        let h: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        assert_eq!(select("1,3", &h, true), Ok(vec![0, 2]));
        assert_eq!(select("b-d", &h, true), Ok(vec![1, 2, 3]));
        assert_eq!(select("3-1", &h, true), Ok(vec![2, 1, 0]));
        assert_eq!(select("!a,c", &h, true), Ok(vec![1, 3]));
        assert_eq!(select("-2", &h, true), Ok(vec![0, 1]));
        assert!(select("e", &h, true).is_err());
        assert!(select("5", &h, true).is_err());
    }
}
