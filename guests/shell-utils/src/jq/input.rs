//! jq's inputs: each file's JSON texts (or with `-R` its lines), with where jq would say it
//! is when a filter fails on one (`data.json:3`: the file, and the lines it had read, as
//! jq reads line by line), `--stream`'s events, and `-s`'s one array or string.

use std::rc::Rc;

use jaq_json::Val;

/// One thing jq's input loop meets, in order.
pub enum Event {
    /// A value, and the position jq reports while it is the input.
    Value(Val, Rc<str>),
    /// A file that could not be opened: jq's message; reading goes on with the next file.
    OpenFailed(String),
    /// Text that is not JSON: the message after `jq: parse error: `; reading stops.
    ParseError(String),
}

/// jq's limit on nesting while it parses (its `MAX_PARSING_DEPTH`): deeper text is a parse
/// error, so the reader, which recurses, never sees it.
pub const MAX_PARSING_DEPTH: usize = 256;

/// Whether `data` nests arrays and objects deeper than jq parses.
fn too_deep(data: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escape) = (0usize, false, false);
    for &b in data {
        if in_string {
            match (escape, b) {
                (true, _) => escape = false,
                (false, b'\\') => escape = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_PARSING_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// One JSON text as jq reads it: `None` when it is not one, or nests deeper than jq parses.
pub fn parse_json(data: &[u8]) -> Option<Val> {
    if too_deep(data) {
        return None;
    }
    jaq_json::read::parse_single(data).ok()
}

/// `fromjson`: the one JSON text of `text`, or jq's message with `(while parsing '…')`.
pub fn from_json(text: &[u8]) -> Result<Val, String> {
    let shown = String::from_utf8_lossy(text);
    let mut events = Vec::new();
    read_text(
        "",
        text,
        &Reading {
            raw: false,
            stream: false,
        },
        &mut events,
    );
    let mut values = Vec::new();
    for e in events {
        match e {
            Event::Value(v, _) => values.push(v),
            Event::OpenFailed(m) | Event::ParseError(m) => {
                return Err(format!("{m} (while parsing '{shown}')"));
            }
        }
    }
    match values.len() {
        1 => Ok(values.remove(0)),
        0 => Err(format!("Expected JSON value (while parsing '{shown}')")),
        _ => Err(format!(
            "Unexpected extra JSON values (while parsing '{shown}')"
        )),
    }
}

/// How the inputs are read.
pub struct Reading {
    pub raw: bool,
    pub stream: bool,
}

/// A file's text read as JSON texts or lines, appended to `events`; false after a parse
/// error (nothing after it is read).
pub fn read_text(name: &str, data: &[u8], how: &Reading, events: &mut Vec<Event>) -> bool {
    if how.raw {
        let mut start = 0;
        let mut line = 0;
        while start < data.len() {
            let end = data[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(data.len(), |i| start + i);
            if end < data.len() {
                line += 1;
            }
            let text = Val::TStr(Box::new(data[start..end].to_vec().into()));
            events.push(Event::Value(text, position(name, line)));
            start = end + 1;
        }
        return true;
    }
    // jq skips a byte order mark before the first text.
    let mut at = if data.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    loop {
        let Some((start, end)) = next_span(data, at) else {
            return true;
        };
        at = end;
        // jq has read the whole line a text ends on.
        let line_end = data[end..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(data.len(), |i| end + i + 1);
        let line = data[..line_end].iter().filter(|&&b| b == b'\n').count();
        match parse_json(&data[start..end]).ok_or(()) {
            Ok(v) if how.stream => {
                let pos = position(name, line);
                let mut out = Vec::new();
                stream_events(&mut Vec::new(), &v, &mut out);
                events.extend(out.into_iter().map(|e| Event::Value(e, pos.clone())));
            }
            Ok(v) => events.push(Event::Value(v, position(name, line))),
            Err(_) => {
                events.push(Event::ParseError(parse_error(data, start)));
                return false;
            }
        }
    }
}

fn position(name: &str, line: usize) -> Rc<str> {
    let name = if name == "-" { "<stdin>" } else { name };
    format!("{name}:{line}").into()
}

/// What jq's parser (`jv_parse.c`) says of the text from `start`, where a JSON text does not
/// parse: its message and where it stopped (`Invalid numeric literal at line 2, column 0`),
/// found by running its state machine: literals end at a blank, a bracket, a comma, a colon
/// or a quote, and each structural character checks what came before it.
pub fn parse_error(data: &[u8], start: usize) -> String {
    #[derive(PartialEq)]
    enum Frame {
        Array(usize),
        Object(usize),
        Key,
    }
    let mut line = 1 + data[..start].iter().filter(|&&b| b == b'\n').count();
    let mut column = start
        - data[..start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
    let mut stack: Vec<Frame> = Vec::new();
    // Whether a value is waiting for its separator (jq's `p->next`), and if it is a string.
    let mut next: Option<bool> = None;
    let mut token: Vec<u8> = Vec::new();
    let mut in_string = false;
    let mut escape = false;
    let mut bad_escape = false;
    let check_literal =
        |token: &mut Vec<u8>, next: &mut Option<bool>| -> Result<(), &'static str> {
            if token.is_empty() {
                return Ok(());
            }
            let pattern: Option<&[u8]> = match (token[0], token.get(1)) {
                (b't', _) => Some(b"true"),
                (b'f', _) => Some(b"false"),
                (b'n', Some(b'u')) => Some(b"null"),
                _ => None,
            };
            match pattern {
                Some(p) if token.as_slice() != p => return Err("Invalid literal"),
                Some(_) => {}
                None => {
                    let text = String::from_utf8_lossy(token);
                    let t = text.trim_start_matches(['-', '+']).to_ascii_lowercase();
                    let number = super::print::literal(&text).is_some()
                        || matches!(t.as_str(), "nan" | "inf" | "infinity");
                    if !number {
                        return Err("Invalid numeric literal");
                    }
                }
            }
            token.clear();
            if next.is_some() {
                return Err("Expected separator between values");
            }
            *next = Some(false);
            Ok(())
        };
    let mut i = start;
    let result: Result<(), &'static str> = loop {
        let Some(&ch) = data.get(i) else { break Ok(()) };
        i += 1;
        column += 1;
        if ch == b'\n' {
            line += 1;
            column = 0;
        }
        if in_string {
            if escape {
                escape = false;
                bad_escape |= !b"\"\\/bfnrtu".contains(&ch);
            } else if ch == b'\\' {
                escape = true;
            } else if ch == b'"' {
                // jq reads the escapes when the string ends.
                if bad_escape {
                    break Err("Invalid escape");
                }
                in_string = false;
                if next.is_some() {
                    break Err("Expected separator between values");
                }
                next = Some(true);
            }
            continue;
        }
        let structural = b"[{:,]}".contains(&ch);
        if structural || ch.is_ascii_whitespace() || ch == b'"' {
            if let Err(e) = check_literal(&mut token, &mut next) {
                break Err(e);
            }
            if stack.is_empty() && next.is_some() && !structural {
                // A whole text at the top: jq hands it on and goes on reading.
                next = None;
            }
        }
        let step: Result<(), &'static str> = match ch {
            b'"' => {
                in_string = true;
                Ok(())
            }
            b'[' | b'{' if stack.len() >= MAX_PARSING_DEPTH => {
                Err("Exceeds depth limit for parsing")
            }
            b'[' | b'{' if next.is_some() && !stack.is_empty() => {
                Err("Expected separator between values")
            }
            b'[' => {
                next = None;
                stack.push(Frame::Array(0));
                Ok(())
            }
            b'{' => {
                next = None;
                stack.push(Frame::Object(0));
                Ok(())
            }
            b':' => match (next, stack.last()) {
                (None, _) => Err("Expected string key before ':'"),
                (_, Some(Frame::Object(_))) if next == Some(true) => {
                    next = None;
                    stack.push(Frame::Key);
                    Ok(())
                }
                (_, Some(Frame::Object(_))) => Err("Object keys must be strings"),
                _ => Err("':' not as part of an object"),
            },
            b',' => match (next, stack.last_mut()) {
                (None, _) => Err("Expected value before ','"),
                (_, None) => Err("',' not as part of an object or array"),
                (_, Some(Frame::Array(n))) => {
                    *n += 1;
                    next = None;
                    Ok(())
                }
                (_, Some(Frame::Key)) => {
                    stack.pop();
                    if let Some(Frame::Object(n)) = stack.last_mut() {
                        *n += 1;
                    }
                    next = None;
                    Ok(())
                }
                _ => Err("Objects must consist of key:value pairs"),
            },
            b']' => match stack.last() {
                Some(Frame::Array(n)) if next.is_none() && *n > 0 => {
                    Err("Expected another array element")
                }
                Some(Frame::Array(_)) => {
                    stack.pop();
                    next = Some(false);
                    Ok(())
                }
                _ => Err("Unmatched ']'"),
            },
            b'}' => match (next, stack.last()) {
                (_, None) => Err("Unmatched '}'"),
                (Some(_), Some(Frame::Key)) => {
                    stack.pop();
                    stack.pop();
                    next = Some(false);
                    Ok(())
                }
                (Some(_), _) => Err("Objects must consist of key:value pairs"),
                (None, Some(Frame::Object(n))) if *n > 0 => Err("Expected another key-value pair"),
                (None, Some(Frame::Object(_))) => {
                    stack.pop();
                    next = Some(false);
                    Ok(())
                }
                (None, _) => Err("Unmatched '}'"),
            },
            c if c.is_ascii_whitespace() => Ok(()),
            c => {
                token.push(c);
                Ok(())
            }
        };
        if let Err(e) = step {
            break Err(e);
        }
        if stack.is_empty() && next.is_some() && structural {
            next = None;
        }
    };
    match result {
        Err(e) => format!("{e} at line {line}, column {column}"),
        Ok(()) if in_string => format!("Unfinished string at EOF at line {line}, column {column}"),
        Ok(()) => match check_literal(&mut token, &mut next) {
            Err(e) => format!("{e} at EOF at line {line}, column {column}"),
            Ok(()) if !stack.is_empty() => {
                format!("Unfinished JSON term at EOF at line {line}, column {column}")
            }
            Ok(()) => format!("Invalid JSON text at line {line}, column {column}"),
        },
    }
}

/// Where the next JSON text after `at` starts and ends: a bracketed value to its matching
/// bracket (strings skipped), a string to its closing quote, anything else to the next
/// blank, bracket, quote, comma or colon. Parsing it is the reader's job.
pub fn next_span(data: &[u8], at: usize) -> Option<(usize, usize)> {
    let start = at + data[at..].iter().position(|b| !b.is_ascii_whitespace())?;
    let end = match data[start] {
        b'[' | b'{' => {
            let mut depth = 0usize;
            let mut in_string = false;
            let mut i = start;
            loop {
                match (in_string, data.get(i)) {
                    (_, None) => break data.len(),
                    (true, Some(b'\\')) => i += 1,
                    (true, Some(b'"')) => in_string = false,
                    (false, Some(b'"')) => in_string = true,
                    (false, Some(b'[' | b'{')) => depth += 1,
                    (false, Some(b']' | b'}')) => {
                        depth -= 1;
                        if depth == 0 {
                            break i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        b'"' => {
            let mut i = start + 1;
            loop {
                match data.get(i) {
                    None => break data.len(),
                    Some(b'\\') => i += 1,
                    Some(b'"') => break i + 1,
                    _ => {}
                }
                i += 1;
            }
        }
        _ => data[start + 1..]
            .iter()
            .position(|b| b.is_ascii_whitespace() || b"[]{}\",:".contains(b))
            .map_or(data.len(), |i| start + 1 + i),
    };
    Some((start, end.min(data.len())))
}

/// `--stream`'s events for one value: `[path, leaf]` for each scalar or empty container,
/// and `[path]` (the last element's) where an array or object ends.
pub fn stream_events(path: &mut Vec<Val>, v: &Val, out: &mut Vec<Val>) {
    let event = |items: Vec<Val>| Val::Arr(Rc::new(items));
    let children: Vec<(Val, &Val)> = match v {
        Val::Arr(a) => a
            .iter()
            .enumerate()
            .map(|(i, x)| (Val::from(i as isize), x))
            .collect(),
        Val::Obj(o) => o.iter().map(|(k, x)| (k.clone(), x)).collect(),
        _ => Vec::new(),
    };
    if children.is_empty() {
        out.push(event(vec![event(path.clone()), v.clone()]));
        return;
    }
    let mut last = Val::Null;
    for (key, x) in children {
        path.push(key.clone());
        stream_events(path, x, out);
        path.pop();
        last = key;
    }
    path.push(last);
    out.push(event(vec![event(path.clone())]));
    path.pop();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str, how: &Reading) -> Vec<String> {
        let mut events = Vec::new();
        read_text("-", text.as_bytes(), how, &mut events);
        events
            .into_iter()
            .map(|e| match e {
                Event::Value(v, pos) => format!("{v} @{pos}"),
                Event::OpenFailed(m) | Event::ParseError(m) => m,
            })
            .collect()
    }

    #[test]
    fn positions_count_the_lines_read() {
        let how = Reading {
            raw: false,
            stream: false,
        };
        assert_eq!(
            values("1 2\n3\n\n{\n\"a\":\n1}\n[\"]\"]", &how),
            [
                "1 @<stdin>:1",
                "2 @<stdin>:1",
                "3 @<stdin>:2",
                "{\"a\":1} @<stdin>:6",
                "[\"]\"] @<stdin>:6"
            ]
        );
        assert_eq!(
            values("1 {", &how),
            [
                "1 @<stdin>:0",
                "Unfinished JSON term at EOF at line 1, column 3"
            ]
        );
        for (text, message) in [
            ("x\n", "Invalid numeric literal at line 2, column 0"),
            ("1 x", "Invalid numeric literal at EOF at line 1, column 3"),
            (
                "{\"a\":1\n",
                "Unfinished JSON term at EOF at line 2, column 0",
            ),
            ("\"abc", "Unfinished string at EOF at line 1, column 4"),
            (
                "{\"a\" 1}",
                "Expected separator between values at line 1, column 7",
            ),
            (
                "[1 2]",
                "Expected separator between values at line 1, column 5",
            ),
            ("1,2", "Expected value before ',' at line 1, column 2"),
            ("nul\n", "Invalid literal at line 2, column 0"),
            ("{\"a\":1}}", "Unmatched '}' at line 1, column 8"),
            (
                "{\"a\":1,}",
                "Expected another key-value pair at line 1, column 8",
            ),
            ("[1,]", "Expected another array element at line 1, column 4"),
            (
                "{\"a\"}",
                "Objects must consist of key:value pairs at line 1, column 5",
            ),
            (":", "Expected string key before ':' at line 1, column 1"),
            ("[1:2]", "':' not as part of an object at line 1, column 3"),
            (
                "{\"a\":1 \"b\":2}",
                "Expected separator between values at line 1, column 10",
            ),
            ("\"a\\x\"", "Invalid escape at line 1, column 5"),
            ("{\"a\":[1,{\"b\":2]}", "Unmatched ']' at line 1, column 15"),
            (
                &"[".repeat(300),
                "Exceeds depth limit for parsing at line 1, column 257",
            ),
        ] {
            let got = values(text, &how);
            assert_eq!(got.last().map(String::as_str), Some(message), "{text:?}");
        }
    }

    #[test]
    fn raw_lines_and_stream_events() {
        let raw = Reading {
            raw: true,
            stream: false,
        };
        assert_eq!(
            values("a\n\nb", &raw),
            ["\"a\" @<stdin>:1", "\"\" @<stdin>:2", "\"b\" @<stdin>:2"]
        );
        let mut out = Vec::new();
        let v = jaq_json::read::parse_single(br#"{"a":[1,{"b":2}],"c":[]}"#).unwrap();
        stream_events(&mut Vec::new(), &v, &mut out);
        let shown: Vec<String> = out.iter().map(|v| v.to_string()).collect();
        assert_eq!(
            shown,
            [
                r#"[["a",0],1]"#,
                r#"[["a",1,"b"],2]"#,
                r#"[["a",1,"b"]]"#,
                r#"[["a",1]]"#,
                r#"[["c"],[]]"#,
                r#"[["c"]]"#
            ]
        );
    }
}
