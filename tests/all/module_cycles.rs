//! The shell's crates keep their top-level modules out of import cycles: a module of
//! `shell-base`, `shell-utils` or `shell-interp` that reaches another (`crate::x`, `super::x`)
//! must not be reached back, directly or through others. In the interpreter this is what
//! keeps expansion apart from execution (it reaches the interpreter through `Frame`) and the
//! interpreter apart from the builtins (it gets them as a table).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The names that follow `prefix` in `text` (`crate::exec::Interp` → `exec`).
fn names_after<'t>(text: &'t str, prefix: &str) -> Vec<&'t str> {
    text.match_indices(prefix)
        .filter(|(at, _)| {
            // `prefix` as a path's start, not the tail of a longer one.
            text[..*at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'))
        })
        .map(|(at, _)| {
            let rest = &text[at + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

/// Each top-level module of a crate and the top-level modules it names.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut modules = BTreeSet::new();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        match name.strip_suffix(".rs") {
            Some("lib" | "main") => {}
            Some(stem) => {
                modules.insert(stem.to_string());
            }
            None if e.path().is_dir() => {
                modules.insert(name);
            }
            None => {}
        }
    }
    let mut graph = BTreeMap::new();
    for m in &modules {
        let mut files = Vec::new();
        let file = src.join(format!("{m}.rs"));
        if file.exists() {
            files.push((file, 0));
        }
        if src.join(m).is_dir() {
            let mut inner = Vec::new();
            rust_files(&src.join(m), &mut inner);
            // Files of the module's folder reach the crate root with `super::super::` from
            // one level down; deeper files use `crate::` in this codebase.
            files.extend(inner.into_iter().map(|f| (f, 1)));
        }
        let mut reached = BTreeSet::new();
        for (file, depth) in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut names = names_after(&text, "crate::");
            names.extend(match depth {
                0 => names_after(&text, "super::"),
                _ => names_after(&text, "super::super::"),
            });
            reached.extend(
                names
                    .into_iter()
                    .filter(|n| *n != m && modules.contains(*n))
                    .map(str::to_string),
            );
        }
        graph.insert(m.clone(), reached);
    }
    graph
}

/// The groups of two or more modules that reach each other (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            for w in &self.graph[v] {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    self.low.entry(v).and_modify(|l| *l = (*l).min(lw));
                } else if self.stack.contains(&w) {
                    let iw = self.index[w];
                    self.low.entry(v).and_modify(|l| *l = (*l).min(iw));
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    group.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found.sort();
    walk.found
}

fn guests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../guests")
}

#[test]
fn the_shell_crates_have_no_import_cycle() {
    for krate in ["shell-base", "shell-utils", "shell-interp"] {
        let graph = module_graph(&guests().join(krate).join("src"));
        assert!(graph.len() > 5, "{krate}: only {} modules", graph.len());
        assert_eq!(cycles(&graph), Vec::<BTreeSet<String>>::new(), "{krate}");
    }
}

#[test]
fn the_interpreter_is_layered() {
    // Execution reaches expansion, never the reverse; neither reaches the builtins.
    let graph = module_graph(&guests().join("shell-interp/src"));
    assert!(graph["interp"].contains("expand"), "{graph:?}");
    for (from, to) in [
        ("expand", "interp"),
        ("interp", "builtins"),
        ("expand", "builtins"),
    ] {
        assert!(!graph[from].contains(to), "{from} reaches {to}: {graph:?}");
    }
}

#[test]
fn a_cycle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0], ["a", "b", "c"].map(String::from).into());
}
