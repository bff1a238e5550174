//! Makes one `#[test]` per shell compatibility case (`tests/shell/cases/**/*.json`) for the
//! integration tests, so that each case passes or fails under its own name
//! (`shell::cases::utils::awk::field_separator`) and libtest's filter picks cases by file or
//! name. The library itself does not use the output.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let cases = root.join("../../tests/shell/cases");
    println!("cargo:rerun-if-changed={}", cases.display());
    let mut files = Vec::new();
    json_files(&cases, &mut files);
    files.sort();
    // topic (`utils/awk`) → its cases' names, in file order.
    let mut topics: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let topic = file
            .strip_prefix(&cases)
            .unwrap()
            .with_extension("")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", file.display()));
        let names = parsed
            .as_array()
            .unwrap_or_else(|| panic!("{}: not a list of cases", file.display()))
            .iter()
            .map(|case| {
                case["name"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}: a case without a name", file.display()))
                    .to_string()
            })
            .collect();
        topics.insert(topic, names);
    }
    let mut code = String::new();
    // Nested modules: `language/arrays` → `mod language { mod arrays { ... } }`.
    let mut open: Vec<String> = Vec::new();
    for (topic, names) in &topics {
        let path: Vec<String> = topic.split('/').map(identifier).collect();
        let common = open.iter().zip(&path).take_while(|(a, b)| a == b).count();
        while open.len() > common {
            open.pop();
            code.push_str("}\n");
        }
        for part in &path[common..] {
            let _ = writeln!(code, "mod {part} {{");
            open.push(part.clone());
        }
        let mut seen = std::collections::HashSet::new();
        let mut names_seen = std::collections::HashSet::new();
        for name in names {
            assert!(
                names_seen.insert(name),
                "{topic}: two cases are called {name:?}"
            );
            let mut ident = identifier(name);
            let base = ident.clone();
            let mut n = 2;
            while !seen.insert(ident.clone()) {
                ident = format!("{base}_{n}");
                n += 1;
            }
            let _ = writeln!(
                code,
                "#[test]\nfn {ident}() {{\n    crate::shell::check_case({topic:?}, {name:?});\n}}"
            );
        }
    }
    for _ in open {
        code.push_str("}\n");
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("shell_cases.rs");
    std::fs::write(out, code).unwrap();
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// A case's name as a Rust identifier: lower case, `_` for anything else, never a keyword
/// and never starting with a digit.
fn identifier(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.ends_with('_') {
            id.push('_');
        }
    }
    let id = id.trim_matches('_').to_string();
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
        "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
        "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
    ];
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        format!("case_{id}")
    } else if KEYWORDS.contains(&id.as_str()) {
        format!("{id}_")
    } else {
        id
    }
}
