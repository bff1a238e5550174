//! `tsort`: a total order from a partial one, in the order GNU's gives (Knuth's algorithm T
//! over its names in byte order, loops reported and broken as it does).

use std::collections::{BTreeMap, VecDeque};

use shell_base::Context;
use shell_base::args::{bad_usage, operands, usage};

use crate::stream::{Stop, Writer, complain, read_file};

/// The graph: names in byte order, each with its count of predecessors and its successors
/// (the last given first, as GNU keeps them).
struct Graph {
    names: Vec<Vec<u8>>,
    count: Vec<usize>,
    next: Vec<Vec<usize>>,
    /// The path `detect_loop` has walked, as links back towards where it began.
    link: Vec<Option<usize>>,
}

/// `tsort [FILE]`: reads pairs of names (`A B`: A comes before B).
pub async fn tsort(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let files = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "tsort", e, 1).await,
    };
    if let Some(extra) = files.get(1) {
        return bad_usage(sh, "tsort", usage(format!("extra operand '{extra}'")), 1).await;
    }
    let file = files.first().map_or("-", String::as_str).to_string();
    let data = match read_file(sh, "tsort", &file).await {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let tokens: Vec<&[u8]> = data
        .split(|b| b" \t\n".contains(b))
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() % 2 == 1 {
        return complain(
            sh,
            &format!("tsort: {file}: input contains an odd number of tokens"),
        )
        .await;
    }
    let mut g = Graph::of(&tokens);
    let mut out = Writer::new(&sh.io().stdout);
    let mut ok = true;
    let mut left = g.names.len();
    let mut printed = vec![false; left];
    while left > 0 {
        let mut queue: VecDeque<usize> = (0..g.names.len())
            .filter(|&i| g.count[i] == 0 && !printed[i])
            .collect();
        while let Some(i) = queue.pop_front() {
            printed[i] = true;
            left -= 1;
            let mut line = g.names[i].clone();
            line.push(b'\n');
            if let Err(Stop(s)) = out.write(&line).await {
                return s;
            }
            for &s in &g.next[i] {
                g.count[s] -= 1;
                if g.count[s] == 0 {
                    queue.push_back(s);
                }
            }
        }
        if left > 0 {
            ok = false;
            out.flush().await.ok();
            let names = g.break_loop();
            let mut notes = vec![format!("tsort: {file}: input contains a loop:")];
            notes.extend(names.iter().map(|n| format!("tsort: {n}")));
            complain(sh, &notes.join("\n")).await;
            if names.is_empty() {
                break;
            }
        }
    }
    match out.flush().await {
        Ok(()) => i32::from(!ok),
        Err(Stop(s)) => s,
    }
}

impl Graph {
    fn of(tokens: &[&[u8]]) -> Graph {
        let index: BTreeMap<&[u8], usize> = tokens
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .enumerate()
            .map(|(i, t)| (t, i))
            .collect();
        let n = index.len();
        let mut g = Graph {
            names: index.keys().map(|k| k.to_vec()).collect(),
            count: vec![0; n],
            next: vec![Vec::new(); n],
            link: vec![None; n],
        };
        for pair in tokens.chunks(2) {
            let (a, b) = (index[pair[0]], index[pair[1]]);
            if a != b {
                g.count[b] += 1;
                g.next[a].insert(0, b);
            }
        }
        g
    }

    /// Finds a loop among the names left, walking them in byte order as GNU's `detect_loop`
    /// does, removes the relation that closes it, and returns its names.
    fn break_loop(&mut self) -> Vec<String> {
        let mut start: Option<usize> = None;
        // Each walk either finds the loop or extends the path; a loop exists, so the path
        // closes within as many walks as there are names.
        for _ in 0..=self.names.len() {
            for k in 0..self.names.len() {
                if self.count[k] == 0 {
                    continue;
                }
                let Some(head) = start else {
                    start = Some(k);
                    continue;
                };
                let Some(at) = self.next[k].iter().position(|&s| s == head) else {
                    continue;
                };
                if self.link[k].is_none() {
                    self.link[k] = Some(head);
                    start = Some(k);
                    continue;
                }
                let mut names = Vec::new();
                let mut cur = Some(head);
                while let Some(c) = cur {
                    names.push(String::from_utf8_lossy(&self.names[c]).into_owned());
                    if c == k {
                        self.count[head] -= 1;
                        self.next[k].remove(at);
                        break;
                    }
                    cur = self.link[c].take();
                }
                self.link.iter_mut().for_each(|l| *l = None);
                return names;
            }
        }
        Vec::new()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::{Native, stdout_of};

    #[test]
    fn orders_and_breaks_loops() {
        assert_eq!(stdout_of(&["tsort"], "a b\nb c\n"), "a\nb\nc\n");
        let looped = Native::new().run(&["tsort"], "a b b a\n");
        assert_eq!((looped.status, looped.stdout.as_str()), (1, "a\nb\n"));
        assert!(
            looped.stderr.contains("input contains a loop"),
            "{}",
            looped.stderr
        );
    }
}
