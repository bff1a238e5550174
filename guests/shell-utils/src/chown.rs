//! `chown` and `chgrp`: set the owner and group the workspace records for files (the mount
//! shows them; the isolate's one user may set any). Names are `root` (0) and `$USER` (1000),
//! or numbers.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, usage, value};
use shell_base::errno::io_message;

use crate::fileinfo::owner_name;
use crate::stream::complain;

/// What to set.
#[derive(Clone, Copy)]
struct Ids {
    uid: Option<u32>,
    gid: Option<u32>,
}

#[derive(Default)]
struct Options {
    recursive: bool,
    no_dereference: bool,
    verbose: bool,
    changes: bool,
    quiet: bool,
    reference: Option<String>,
}

/// `chown [-Rhvcf] [--reference=FILE] OWNER[:[GROUP]] FILE...` and
/// `chgrp [-Rhvcf] [--reference=FILE] GROUP FILE...`.
pub async fn chown(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let cmd = argv[0].clone();
    let mut o = Options::default();
    let mut words = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('R') | Long("recursive") => o.recursive = true,
                Short('h') | Long("no-dereference") => o.no_dereference = true,
                Long("dereference") => o.no_dereference = false,
                Short('v') | Long("verbose") => o.verbose = true,
                Short('c') | Long("changes") => o.changes = true,
                Short('f') | Long("silent" | "quiet") => o.quiet = true,
                Short('H' | 'L' | 'P') | Long("preserve-root" | "no-preserve-root") => {}
                Long("reference") => o.reference = Some(value(&mut p)?),
                Long("from") => {
                    value(&mut p)?;
                }
                Value(v) => words.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, &cmd, e, 1).await;
    }
    let user = sh.var("USER").unwrap_or("user").to_string();
    let ids = if let Some(r) = &o.reference {
        match sh.host().stat(&sh.path(r).to_string_lossy(), true) {
            Ok(i) => Ids {
                uid: (cmd == "chown").then_some(i.uid),
                gid: Some(i.gid),
            },
            Err(e) => {
                let m = format!(
                    "{cmd}: failed to get attributes of '{r}': {}",
                    io_message(&e)
                );
                return complain(sh, &m).await;
            }
        }
    } else {
        let Some(spec) = (!words.is_empty()).then(|| words.remove(0)) else {
            return bad_usage(sh, &cmd, usage("missing operand"), 1).await;
        };
        let ids = if cmd == "chgrp" {
            id_of(&spec, &user).map(|g| Ids {
                uid: None,
                gid: Some(g),
            })
        } else {
            owner_spec(&spec, &user)
        };
        match ids {
            Ok(ids) => {
                if words.is_empty() {
                    return bad_usage(
                        sh,
                        &cmd,
                        usage(format!("missing operand after '{spec}'")),
                        1,
                    )
                    .await;
                }
                ids
            }
            Err(()) => {
                let what = if cmd == "chgrp" || spec.starts_with(':') {
                    "group"
                } else {
                    "user"
                };
                return complain(sh, &format!("{cmd}: invalid {what}: '{spec}'")).await;
            }
        }
    };
    if words.is_empty() {
        return bad_usage(sh, &cmd, usage("missing operand"), 1).await;
    }
    let mut status = 0;
    let mut notes = Vec::new();
    for w in &words {
        let path = sh.path(w);
        let mut targets = vec![(path.clone(), w.clone(), !o.no_dereference)];
        if o.recursive {
            walk(&path, w, &mut targets);
        }
        for (path, shown, follow) in targets {
            let p = path.to_string_lossy();
            let before = match sh.host().stat(&p, follow) {
                Ok(i) => i,
                Err(e) => {
                    status = 1;
                    if !o.quiet {
                        notes.push(format!(
                            "{cmd}: cannot access '{shown}': {}",
                            io_message(&e)
                        ));
                    }
                    continue;
                }
            };
            let result = sh.host().chown(&p, ids.uid, ids.gid, follow);
            if let Err(e) = result {
                status = 1;
                if !o.quiet {
                    let m = format!("{cmd}: changing ownership of '{shown}': {}", io_message(&e));
                    notes.push(m);
                }
                continue;
            }
            let after = (ids.uid.unwrap_or(before.uid), ids.gid.unwrap_or(before.gid));
            let changed = after != (before.uid, before.gid);
            if o.verbose || o.changes && changed {
                notes.push(describe(
                    &shown,
                    ids,
                    (before.uid, before.gid),
                    after,
                    changed,
                    &user,
                ));
            }
        }
    }
    if !notes.is_empty() {
        // `-v` reports go to stdout, errors to stderr; keep each where GNU puts it.
        for n in notes {
            if n.starts_with(&format!("{cmd}: ")) {
                complain(sh, &n).await;
            } else {
                crate::stream::out(sh, &format!("{n}\n")).await;
            }
        }
    }
    status
}

/// `-v`'s line for one file.
fn describe(
    shown: &str,
    ids: Ids,
    before: (u32, u32),
    after: (u32, u32),
    changed: bool,
    user: &str,
) -> String {
    let name = |id| owner_name(id, user);
    let (what, from, to) = match (ids.uid, ids.gid) {
        (Some(_), Some(_)) => (
            "ownership",
            format!("{}:{}", name(before.0), name(before.1)),
            format!("{}:{}", name(after.0), name(after.1)),
        ),
        (Some(_), None) => ("ownership", name(before.0), name(after.0)),
        _ => ("group", name(before.1), name(after.1)),
    };
    if changed {
        format!("changed {what} of '{shown}' from {from} to {to}")
    } else {
        format!("{what} of '{shown}' retained as {to}")
    }
}

/// A user or group: a number, `root` or the workspace's user.
pub(crate) fn id_of(name: &str, user: &str) -> Result<u32, ()> {
    match name {
        "root" => Ok(0),
        n if n == user => Ok(1000),
        n => n.parse().map_err(|_| ()),
    }
}

/// `OWNER`, `OWNER:GROUP`, `OWNER:` (the owner's own group), `:GROUP`, and the old `.`.
fn owner_spec(spec: &str, user: &str) -> Result<Ids, ()> {
    let Some((owner, group)) = spec.split_once(':').or_else(|| spec.split_once('.')) else {
        return Ok(Ids {
            uid: Some(id_of(spec, user)?),
            gid: None,
        });
    };
    let uid = if owner.is_empty() {
        None
    } else {
        Some(id_of(owner, user)?)
    };
    let gid = match (group.is_empty(), uid) {
        (false, _) => Some(id_of(group, user)?),
        // `OWNER:` takes the owner's login group, which here is its own number.
        (true, Some(u)) => Some(u),
        (true, None) => None,
    };
    Ok(Ids { uid, gid })
}

/// Everything under directory `path`, depth first, links not followed.
fn walk(path: &std::path::Path, shown: &str, out: &mut Vec<(std::path::PathBuf, String, bool)>) {
    let Ok(names) = crate::stream::sorted_names(path) else {
        return;
    };
    for name in names {
        let child = path.join(&name);
        let child_shown = format!("{}/{name}", shown.trim_end_matches('/'));
        let is_dir = std::fs::symlink_metadata(&child).is_ok_and(|m| m.is_dir());
        out.push((child.clone(), child_shown.clone(), false));
        if is_dir {
            walk(&child, &child_shown, out);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::owner_spec;

    #[test]
    fn owner_specs() {
        let ids = |s| owner_spec(s, "me").map(|i| (i.uid, i.gid));
        assert_eq!(ids("12:34"), Ok((Some(12), Some(34))));
        assert_eq!(ids("root:"), Ok((Some(0), Some(0))));
        assert_eq!(ids(":me"), Ok((None, Some(1000))));
        assert_eq!(ids("me"), Ok((Some(1000), None)));
        assert!(ids("bob").is_err());
    }
}
