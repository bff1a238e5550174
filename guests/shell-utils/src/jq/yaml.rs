//! YAML and TOML for `yq` and `tomlq` (Debian's yq 3, the jq wrapper): documents are read
//! into jq values (YAML by `yaml-rust2`, TOML by `toml`) and results written back as YAML in
//! PyYAML's block style (what `yq -y` prints) or as TOML.

use jaq_json::Val;
use yaml_rust2::{Yaml, YamlLoader};

/// A document format.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Format {
    Json,
    Yaml,
    Toml,
}

/// The documents of a YAML stream (or the one document of a TOML file), as jq values.
pub fn parse_documents(data: &[u8], format: Format) -> Result<Vec<Val>, String> {
    let text = std::str::from_utf8(data).map_err(|e| format!("invalid UTF-8: {e}"))?;
    let mut json = Vec::new();
    match format {
        Format::Toml => {
            let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
            let mut s = String::new();
            toml_json(&toml::Value::Table(table), &mut s);
            json.push(s);
        }
        _ => {
            let docs = YamlLoader::load_from_str(text).map_err(|e| format!("ScannerError: {e}"))?;
            for d in docs {
                let mut s = String::new();
                yaml_json(&d, &mut s)?;
                json.push(s);
            }
        }
    }
    json.iter()
        .map(|s| {
            super::input::parse_json(s.as_bytes())
                .ok_or_else(|| format!("nested deeper than {}", super::input::MAX_PARSING_DEPTH))
        })
        .collect()
}

fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn yaml_json(y: &Yaml, out: &mut String) -> Result<(), String> {
    match y {
        Yaml::Null | Yaml::BadValue => out.push_str("null"),
        Yaml::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Yaml::Integer(n) => out.push_str(&n.to_string()),
        // As PyYAML reads a float and json.dumps writes it (`1.5e3` is `1500.0`), the text jq
        // then reads.
        Yaml::Real(r) => match r.replace('_', "").parse::<f64>() {
            Ok(f) if f.is_finite() => out.push_str(&python_float(f)),
            _ => quote(r, out),
        },
        Yaml::String(s) => quote(s, out),
        Yaml::Array(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                yaml_json(item, out)?;
            }
            out.push(']');
        }
        Yaml::Hash(map) => {
            out.push('{');
            for (k, (key, value)) in map.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                let key = match key {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(n) => n.to_string(),
                    Yaml::Real(r) => r.clone(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Null => "null".into(),
                    _ => return Err("a mapping key that is not a scalar".into()),
                };
                quote(&key, out);
                out.push(':');
                yaml_json(value, out)?;
            }
            out.push('}');
        }
        Yaml::Alias(_) => return Err("YAML aliases are not supported".into()),
    }
    Ok(())
}

/// Python's `repr` of a float, which `json.dumps` writes: the shortest digits that read
/// back, `1500.0` with a point, and `1e+16` or `1e-05` past 16 digits or below 1e-4.
fn python_float(f: f64) -> String {
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        let fixed = format!("{f}");
        if fixed.contains('.') {
            fixed
        } else {
            format!("{fixed}.0")
        }
    } else {
        format!(
            "{mantissa}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    }
}

fn toml_json(v: &toml::Value, out: &mut String) {
    match v {
        toml::Value::String(s) => quote(s, out),
        toml::Value::Integer(n) => out.push_str(&n.to_string()),
        toml::Value::Float(f) if f.is_finite() => out.push_str(&python_float(*f)),
        toml::Value::Float(f) => quote(&f.to_string(), out),
        toml::Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        toml::Value::Datetime(d) => quote(&d.to_string(), out),
        toml::Value::Array(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                toml_json(item, out);
            }
            out.push(']');
        }
        toml::Value::Table(t) => {
            out.push('{');
            for (k, (key, value)) in t.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                quote(key, out);
                out.push(':');
                toml_json(value, out);
            }
            out.push('}');
        }
    }
}

fn text_of(v: &Val) -> Option<String> {
    match v {
        Val::TStr(s) | Val::BStr(s) => Some(String::from_utf8_lossy(s).into_owned()),
        _ => None,
    }
}

/// One result as a document: YAML (with `---` before all but the first, and `...` after a
/// lone scalar, as PyYAML writes them) or TOML (a table only).
pub fn write_document(v: &Val, format: Format, first: bool) -> Result<String, String> {
    let mut out = String::new();
    if format == Format::Toml {
        let value = val_toml(v)?;
        let toml::Value::Table(t) = value else {
            return Err("TOML output needs a table at the top".into());
        };
        return toml::to_string(&t).map_err(|e| e.to_string());
    }
    if !first {
        out.push_str("---\n");
    }
    match v {
        Val::Arr(a) if !a.is_empty() => block_seq(a, 0, &mut out),
        Val::Obj(m) if !m.is_empty() => block_map(m, 0, &mut out),
        _ => {
            out.push_str(&flow(v, 0));
            out.push('\n');
            if !matches!(v, Val::Arr(_) | Val::Obj(_)) {
                out.push_str("...\n");
            }
        }
    }
    Ok(out)
}

fn val_toml(v: &Val) -> Result<toml::Value, String> {
    Ok(match v {
        Val::Null => return Err("TOML has no null".into()),
        Val::Bool(b) => toml::Value::Boolean(*b),
        Val::Num(n) => {
            let text = n.to_string();
            match text.parse::<i64>() {
                Ok(i) => toml::Value::Integer(i),
                Err(_) => {
                    toml::Value::Float(text.parse().map_err(|_| "a number TOML cannot hold")?)
                }
            }
        }
        Val::TStr(_) | Val::BStr(_) => toml::Value::String(text_of(v).unwrap_or_default()),
        Val::Arr(a) => toml::Value::Array(a.iter().map(val_toml).collect::<Result<_, _>>()?),
        Val::Obj(m) => {
            let mut t = toml::Table::new();
            for (k, value) in m.iter() {
                let key = text_of(k).unwrap_or_else(|| k.to_string());
                t.insert(key, val_toml(value)?);
            }
            toml::Value::Table(t)
        }
    })
}

/// A value on one line: scalars, and `{}`/`[]` for empty collections.
fn flow(v: &Val, indent: usize) -> String {
    match v {
        Val::Null => "null".into(),
        Val::Bool(b) => b.to_string(),
        Val::Num(n) => n.to_string(),
        Val::TStr(_) | Val::BStr(_) => scalar(&text_of(v).unwrap_or_default(), indent),
        Val::Arr(_) => "[]".into(),
        Val::Obj(_) => "{}".into(),
    }
}

fn is_collection(v: &Val) -> bool {
    matches!(v, Val::Arr(a) if !a.is_empty()) || matches!(v, Val::Obj(m) if !m.is_empty())
}

fn block_seq(items: &[Val], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for item in items {
        out.push_str(&pad);
        out.push_str("- ");
        match item {
            Val::Arr(a) if !a.is_empty() => {
                // The nested sequence starts on the dash's line.
                let mut inner = String::new();
                block_seq(a, indent + 2, &mut inner);
                out.push_str(inner.trim_start());
            }
            Val::Obj(m) if !m.is_empty() => {
                let mut inner = String::new();
                block_map(m, indent + 2, &mut inner);
                out.push_str(inner.trim_start());
            }
            _ => {
                out.push_str(&flow(item, indent + 2));
                out.push('\n');
            }
        }
    }
}

fn block_map(map: &jaq_json::Map<Val, Val>, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for (k, v) in map.iter() {
        out.push_str(&pad);
        let key = text_of(k).unwrap_or_else(|| k.to_string());
        out.push_str(&scalar(&key, indent));
        out.push(':');
        if is_collection(v) {
            out.push('\n');
            match v {
                // yq indents sequences under their key.
                Val::Arr(a) => block_seq(a, indent + 2, out),
                Val::Obj(m) => block_map(m, indent + 2, out),
                _ => {}
            }
        } else {
            out.push(' ');
            out.push_str(&flow(v, indent + 2));
            out.push('\n');
        }
    }
}

/// A string as PyYAML writes it: plain when it cannot be read as anything else, else in
/// single quotes (line breaks doubled), or double quotes for control characters.
fn scalar(s: &str, indent: usize) -> String {
    if s.chars().any(|c| c.is_control() && c != '\n') {
        let mut q = String::new();
        quote(s, &mut q);
        return q;
    }
    if plain_ok(s) {
        return s.to_string();
    }
    let body = s.replace('\'', "''");
    let continuation = format!("\n\n{}", " ".repeat(indent));
    format!("'{}'", body.replace('\n', &continuation))
}

/// Whether a string may be written without quotes: it must not read back as another type
/// (YAML 1.1's booleans, nulls, numbers, dates) nor start or hold YAML's indicators.
fn plain_ok(s: &str) -> bool {
    if s.is_empty() || s.contains('\n') || s.starts_with(' ') || s.ends_with(' ') {
        return false;
    }
    let first = s.chars().next().unwrap_or(' ');
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        // `-` and `?` and `:` may start a plain scalar when a non-space follows.
        let second = s.chars().nth(1);
        if !("-?:".contains(first) && second.is_some_and(|c| c != ' ')) {
            return false;
        }
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    // YAML 1.1's booleans and nulls, in the spellings PyYAML's resolver knows.
    let special = |w: &str| [w.to_string(), capitalized(w), w.to_ascii_uppercase()];
    let words = ["yes", "no", "true", "false", "on", "off", "null"];
    if words.iter().any(|w| special(w).iter().any(|x| x == s))
        || ["~", "<<", "=", "-", "---", "..."].contains(&s)
    {
        return false;
    }
    !looks_numeric(s) && !looks_like_date(s)
}

fn capitalized(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

fn looks_numeric(s: &str) -> bool {
    let t = s.trim_start_matches(['+', '-']).replace('_', "");
    if t.is_empty() {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    if matches!(lower.as_str(), ".inf" | ".nan") {
        return true;
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        return !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit());
    }
    if t.chars().all(|c| c.is_ascii_digit() || c == ':')
        && t.chars().next().is_some_and(|c| c.is_ascii_digit())
    {
        return true;
    }
    // Floats: digits with one dot, an optional exponent.
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e.trim_start_matches(['+', '-']))),
        None => (lower.as_str(), None),
    };
    let digits = mantissa.chars().filter(char::is_ascii_digit).count();
    let dots = mantissa.chars().filter(|&c| c == '.').count();
    let mantissa_ok = digits > 0
        && dots <= 1
        && mantissa.chars().all(|c| c.is_ascii_digit() || c == '.')
        && (dots == 1 || exponent.is_some());
    mantissa_ok && exponent.is_none_or(|e| !e.is_empty() && e.chars().all(|c| c.is_ascii_digit()))
}

fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}
