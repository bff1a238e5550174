//! Shell patterns, as `case`, `[[ == ]]`, `${x#…}` and pathname expansion use them: `*`, `?`,
//! bracket expressions (ranges, `!`/`^`, `[:class:]`), backslash escapes, and with `extglob`
//! `?(…) *(…) +(…) @(…) !(…)`; optionally case-insensitive.

/// How a pattern matches.
#[derive(Clone, Copy, Debug, Default)]
pub struct MatchOptions {
    /// `shopt -s extglob`.
    pub extglob: bool,
    /// `nocasematch` / `nocaseglob`.
    pub nocase: bool,
}

/// A compiled pattern.
#[derive(Debug)]
pub struct Pattern {
    nodes: Vec<Node>,
    nocase: bool,
    has_ext: bool,
}

#[derive(Debug, Clone)]
enum Node {
    Lit(char),
    Any,
    Star,
    Class { negate: bool, items: Vec<ClassItem> },
    Ext(ExtKind, Vec<Vec<Node>>),
}

#[derive(Debug, Clone)]
enum ClassItem {
    Char(char),
    Range(char, char),
    Named(String),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ExtKind {
    ZeroOrOne,
    ZeroOrMore,
    OneOrMore,
    One,
    Not,
}

impl Pattern {
    pub fn new(pattern: &str, opts: MatchOptions) -> Pattern {
        let chars: Vec<char> = pattern.chars().collect();
        let mut pos = 0;
        let nodes = parse(&chars, &mut pos, opts.extglob, false);
        let has_ext = nodes.iter().any(|n| matches!(n, Node::Ext(..)));
        Pattern {
            nodes,
            nocase: opts.nocase,
            has_ext,
        }
    }

    pub fn matches(&self, text: &str) -> bool {
        let t: Vec<char> = text.chars().collect();
        if self.has_ext {
            seq(&self.nodes, &t, self.nocase)
        } else {
            linear(&self.nodes, &t, self.nocase)
        }
    }
}

/// Parses until the end, or (inside an extglob group) until `|` or `)`.
fn parse(p: &[char], pos: &mut usize, extglob: bool, in_group: bool) -> Vec<Node> {
    let mut nodes = Vec::new();
    while *pos < p.len() {
        let c = p[*pos];
        if in_group && (c == '|' || c == ')') {
            break;
        }
        if extglob
            && matches!(c, '?' | '*' | '+' | '@' | '!')
            && p.get(*pos + 1) == Some(&'(')
            && let Some((node, end)) = ext_group(p, *pos)
        {
            nodes.push(node);
            *pos = end;
            continue;
        }
        *pos += 1;
        nodes.push(match c {
            '*' => {
                if matches!(nodes.last(), Some(Node::Star)) {
                    continue;
                }
                Node::Star
            }
            '?' => Node::Any,
            '\\' if *pos < p.len() => {
                *pos += 1;
                Node::Lit(p[*pos - 1])
            }
            '[' => match class(p, *pos - 1) {
                Some((node, end)) => {
                    *pos = end;
                    node
                }
                None => Node::Lit('['),
            },
            c => Node::Lit(c),
        });
    }
    nodes
}

/// `K(a|b|…)` at `start`: the node and the position after `)`, if the group is closed.
fn ext_group(p: &[char], start: usize) -> Option<(Node, usize)> {
    let kind = match p[start] {
        '?' => ExtKind::ZeroOrOne,
        '*' => ExtKind::ZeroOrMore,
        '+' => ExtKind::OneOrMore,
        '@' => ExtKind::One,
        _ => ExtKind::Not,
    };
    let mut pos = start + 2;
    let mut alts = Vec::new();
    loop {
        alts.push(parse(p, &mut pos, true, true));
        match p.get(pos) {
            Some('|') => pos += 1,
            Some(')') => return Some((Node::Ext(kind, alts), pos + 1)),
            _ => return None,
        }
    }
}

/// A bracket expression at `start`: the node and the position after `]`, if complete.
fn class(p: &[char], start: usize) -> Option<(Node, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    while i < p.len() {
        let c = p[i];
        if c == ']' && !first {
            return Some((Node::Class { negate, items }, i + 1));
        }
        first = false;
        if c == '[' && p.get(i + 1) == Some(&':') {
            let rest: String = p[i + 2..].iter().collect();
            if let Some(end) = rest.find(":]") {
                items.push(ClassItem::Named(rest[..end].to_string()));
                i += 2 + rest[..end].chars().count() + 2;
                continue;
            }
        }
        let (c, next) = if c == '\\' && i + 1 < p.len() {
            (p[i + 1], i + 2)
        } else {
            (c, i + 1)
        };
        if p.get(next) == Some(&'-') && p.get(next + 1).is_some_and(|e| *e != ']') {
            let (end, after) = if p[next + 1] == '\\' && next + 2 < p.len() {
                (p[next + 2], next + 3)
            } else {
                (p[next + 1], next + 2)
            };
            items.push(ClassItem::Range(c, end));
            i = after;
        } else {
            items.push(ClassItem::Char(c));
            i = next;
        }
    }
    None
}

fn named_class(name: &str, c: char) -> bool {
    match name {
        "alpha" => c.is_alphabetic(),
        "digit" => c.is_ascii_digit(),
        "alnum" => c.is_alphanumeric(),
        "upper" => c.is_uppercase(),
        "lower" => c.is_lowercase(),
        "space" => c.is_whitespace(),
        "blank" => c == ' ' || c == '\t',
        "punct" => c.is_ascii_punctuation(),
        "xdigit" => c.is_ascii_hexdigit(),
        "cntrl" => c.is_control(),
        "print" => !c.is_control(),
        "graph" => !c.is_control() && c != ' ',
        "word" => c.is_alphanumeric() || c == '_',
        _ => false,
    }
}

fn fold(c: char, nocase: bool) -> char {
    if nocase {
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c
    }
}

/// Whether one node that consumes exactly one character matches `c`.
fn single(node: &Node, c: char, nocase: bool) -> bool {
    match node {
        Node::Any => true,
        Node::Lit(l) => fold(*l, nocase) == fold(c, nocase),
        Node::Class { negate, items } => {
            let hit = items.iter().any(|item| match item {
                ClassItem::Char(x) => fold(*x, nocase) == fold(c, nocase),
                ClassItem::Range(a, b) => {
                    (*a <= c && c <= *b)
                        || (nocase && {
                            let l = fold(c, true);
                            let u = c.to_uppercase().next().unwrap_or(c);
                            (*a <= l && l <= *b) || (*a <= u && u <= *b)
                        })
                }
                ClassItem::Named(n) => named_class(n, c),
            });
            hit != *negate
        }
        _ => false,
    }
}

/// Matching without extglob groups: one pass with backtracking to the last `*` (linear in
/// practice, so hostile patterns cannot blow up).
fn linear(p: &[Node], t: &[char], nocase: bool) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut star_t) = (None, 0);
    while ti < t.len() {
        if pi < p.len() {
            if matches!(p[pi], Node::Star) {
                star = Some(pi);
                star_t = ti;
                pi += 1;
                continue;
            }
            if single(&p[pi], t[ti], nocase) {
                pi += 1;
                ti += 1;
                continue;
            }
        }
        match star {
            Some(s) => {
                pi = s + 1;
                star_t += 1;
                ti = star_t;
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|n| matches!(n, Node::Star))
}

/// Matching with extglob groups (recursive).
fn seq(p: &[Node], t: &[char], nocase: bool) -> bool {
    match p.first() {
        None => t.is_empty(),
        Some(Node::Star) => (0..=t.len()).any(|k| seq(&p[1..], &t[k..], nocase)),
        Some(Node::Ext(kind, alts)) => (0..=t.len())
            .any(|k| ext(*kind, alts, &t[..k], nocase) && seq(&p[1..], &t[k..], nocase)),
        Some(node) => !t.is_empty() && single(node, t[0], nocase) && seq(&p[1..], &t[1..], nocase),
    }
}

fn any_alt(alts: &[Vec<Node>], t: &[char], nocase: bool) -> bool {
    alts.iter().any(|a| seq(a, t, nocase))
}

fn ext(kind: ExtKind, alts: &[Vec<Node>], t: &[char], nocase: bool) -> bool {
    match kind {
        ExtKind::One => any_alt(alts, t, nocase),
        ExtKind::ZeroOrOne => t.is_empty() || any_alt(alts, t, nocase),
        ExtKind::Not => !any_alt(alts, t, nocase),
        ExtKind::ZeroOrMore => t.is_empty() || ext(ExtKind::OneOrMore, alts, t, nocase),
        ExtKind::OneOrMore => (1..=t.len()).any(|k| {
            any_alt(alts, &t[..k], nocase)
                && (k == t.len() || ext(ExtKind::OneOrMore, alts, &t[k..], nocase))
        }),
    }
}

/// Whether a pattern has any unescaped globbing character (so pathname expansion applies).
pub fn has_glob(pattern: &str, extglob: bool) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '*' | '?' => return true,
            // A bracket expression needs its `]` (`[` alone, as in `[ -f x ]`, is text).
            '[' if class(&chars, i).is_some() => return true,
            '+' | '@' | '!' if extglob && chars.get(i + 1) == Some(&'(') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}
