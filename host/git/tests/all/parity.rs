//! The same scenarios on the real git CLI and on ours: status, diff, log and friends print
//! the same, byte for byte, and the commits have the same ids.

use crate::support::{Step::*, Twin};

const STATUS: &[&str] = &["status"];
const PORCELAIN: &[&str] = &["status", "--porcelain"];
const SHORT: &[&str] = &["status", "-s", "-b"];
const DIFF: &[&str] = &["diff"];
const CACHED: &[&str] = &["diff", "--cached"];
const ONELINE: &[&str] = &["log", "--oneline"];
const LOG: &[&str] = &["log"];

#[test]
fn edit_add_commit() {
    Twin::new().run(
        "edit_add_commit",
        &[
            Git(&["init", "-q"]),
            Git(STATUS),
            Write("a.txt", "one\ntwo\nthree\n"),
            Write("src/lib.rs", "fn main() {\n    println!(\"hi\");\n}\n"),
            Git(STATUS),
            Git(PORCELAIN),
            Git(&["add", "a.txt"]),
            Git(STATUS),
            Git(PORCELAIN),
            Git(CACHED),
            Git(&["add", "."]),
            Git(&["commit", "-q", "-m", "first"]),
            Git(STATUS),
            Git(ONELINE),
            Git(LOG),
            Write("a.txt", "one\n2\nthree\nfour\n"),
            Git(STATUS),
            Git(PORCELAIN),
            Git(DIFF),
            Git(&["diff", "a.txt"]),
            Git(&["diff", "--name-only", "src"]),
            Git(&["add", "a.txt"]),
            Git(CACHED),
            Git(DIFF),
            Git(&["commit", "-q", "-m", "second\n\nwith a body\n"]),
            Git(LOG),
            Git(&["log", "--format=%H %an <%ae> %s|%b"]),
            Git(&["show"]),
            Git(&["show", "HEAD~1:a.txt"]),
            Git(&["rev-parse", "HEAD", "HEAD~1", "--short", "HEAD"]),
            Git(&["rev-parse", "--abbrev-ref", "HEAD"]),
            Git(&["ls-files"]),
            Git(&["ls-files", "-s"]),
            Git(&["diff", "HEAD~1", "HEAD"]),
            Git(&["diff", "--name-status", "HEAD~1"]),
        ],
    );
}

#[test]
fn deletions_modes_symlinks_and_subdirectories() {
    Twin::new().run(
        "deletions_modes_symlinks",
        &[
            Git(&["init", "-q"]),
            Write("keep.txt", "keep\n"),
            Write("gone.txt", "gone\n"),
            Write("run.sh", "#!/bin/sh\necho hi\n"),
            Write("docs/guide.md", "# Guide\n\ntext\n"),
            Git(&["add", "-A"]),
            Git(&["commit", "-q", "-m", "base"]),
            Remove("gone.txt"),
            Chmod("run.sh", 0o755),
            Symlink("keep.txt", "link"),
            Write("docs/new.md", "new\n"),
            Mkdir("empty"),
            Write("notes/a/b.txt", "deep\n"),
            Git(STATUS),
            Git(PORCELAIN),
            Git(SHORT),
            GitIn("docs", STATUS),
            GitIn("docs", &["status", "-s"]),
            Git(DIFF),
            Git(&["add", "-A"]),
            Git(STATUS),
            Git(CACHED),
            Git(&["commit", "-q", "-m", "changes"]),
            Git(&["show", "--format=%s"]),
            Git(&["rm", "-q", "keep.txt"]),
            Git(PORCELAIN),
            Git(&["mv", "docs/guide.md", "guide.md"]),
            Git(STATUS),
            Git(PORCELAIN),
            Git(&["commit", "-q", "-m", "moves"]),
            Git(ONELINE),
            Git(&["ls-files"]),
            GitIn("notes", &["ls-files"]),
        ],
    );
}

#[test]
fn ignores_and_untracked_directories() {
    Twin::new().run(
        "ignores",
        &[
            Git(&["init", "-q"]),
            Write(".gitignore", "*.log\nbuild/\n!keep.log\n"),
            Write("app.log", "x\n"),
            Write("keep.log", "x\n"),
            Write("build/out.o", "x\n"),
            Write("src/main.c", "int main;\n"),
            Write("src/.gitignore", "gen.c\n"),
            Write("src/gen.c", "x\n"),
            Write("only_ignored/a.log", "x\n"),
            Git(PORCELAIN),
            Git(STATUS),
            Git(&["add", "."]),
            Git(PORCELAIN),
            Git(&["add", "app.log"]),
            Git(PORCELAIN),
            Git(&["add", "-f", "app.log"]),
            Git(PORCELAIN),
        ],
    );
}

#[test]
fn branches_checkout_and_reset() {
    Twin::new().run(
        "branches",
        &[
            Git(&["init", "-q", "-b", "main"]),
            Write("a.txt", "a\n"),
            Git(&["add", "a.txt"]),
            Git(&["commit", "-q", "-m", "one"]),
            Git(&["checkout", "-q", "-b", "feature"]),
            Git(&["branch"]),
            Write("b.txt", "b\n"),
            Write("a.txt", "a2\n"),
            Git(&["commit", "-q", "-a", "-m", "two"]),
            Git(&["add", "b.txt"]),
            Git(&["commit", "-q", "-m", "three"]),
            Git(ONELINE),
            Git(&["checkout", "-q", "main"]),
            Git(STATUS),
            Git(&["ls-files"]),
            Git(&["log", "--oneline", "feature"]),
            Git(&["log", "--oneline", "main..feature"]),
            Git(&["switch", "-q", "feature"]),
            Git(&["branch", "--show-current"]),
            Git(&["reset", "-q", "--soft", "HEAD~1"]),
            Git(PORCELAIN),
            Git(&["reset", "-q"]),
            Git(PORCELAIN),
            Git(&["reset", "-q", "--hard", "HEAD~1"]),
            Git(PORCELAIN),
            Git(ONELINE),
            Write("a.txt", "local\n"),
            Git(&["checkout", "main"]),
            Git(&["restore", "a.txt"]),
            Git(PORCELAIN),
            Git(&["checkout", "-q", "main"]),
            Git(&["branch", "-D", "feature"]),
            Git(&["branch"]),
            Git(&["checkout", "-q", "HEAD~0"]),
            Git(STATUS),
            Git(&["branch"]),
        ],
    );
}

#[test]
fn errors_match_exit_codes() {
    let twin = Twin::new();
    twin.run(
        "errors",
        &[
            Git(STATUS),
            Git(&["init", "-q"]),
            Git(&["log"]),
            Git(&["add", "missing.txt"]),
            Write("a", "a\n"),
            Git(&["add", "a"]),
            Git(&["commit", "-q", "-m", "a"]),
            Git(&["commit", "-m", "nothing"]),
            Git(&["checkout", "nope"]),
            Git(&["rev-parse", "--verify", "-q", "nope"]),
            Git(&["config", "user.name"]),
            Git(&["config", "user.name", "Someone"]),
            Git(&["config", "user.name"]),
        ],
    );
}

#[test]
fn stash_push_list_pop_and_drop() {
    Twin::new().run(
        "stash",
        &[
            Git(&["init", "-q"]),
            Write("a.txt", "a\n"),
            Write("b.txt", "b\n"),
            Git(&["add", "."]),
            Git(&["commit", "-q", "-m", "base"]),
            Git(&["stash"]),
            Write("a.txt", "a changed\n"),
            Write("c.txt", "new\n"),
            Git(&["add", "c.txt"]),
            Remove("b.txt"),
            Git(&["stash"]),
            Git(PORCELAIN),
            Git(&["stash", "list"]),
            Write("a.txt", "second\n"),
            Git(&["stash", "push", "-m", "my message"]),
            Git(&[
                "show",
                "-s",
                "--format=%T %P %an %ae %ad %cn %ce %cd %s",
                "stash",
            ]),
            Git(&[
                "show",
                "-s",
                "--format=%T %P %an %ae %ad %cn %ce %cd %s",
                "stash^2",
            ]),
            Git(&["show", "-s", "--format=%B|", "stash"]),
            Git(&["rev-parse", "stash", "stash^2", "stash@{0}"]),
            Git(&["stash", "list"]),
            Git(&["stash", "drop"]),
            Git(&["stash", "list"]),
            Git(&["stash", "pop"]),
            Git(PORCELAIN),
            Git(&["stash", "list"]),
            Git(&["stash", "pop"]),
        ],
    );
}

#[test]
fn the_forms_agents_type() {
    Twin::new().run(
        "the_forms_agents_type",
        &[
            Git(&["init", "-q"]),
            Write("a.txt", "one\ntwo\n"),
            Write("src/lib.rs", "fn main() {}\n"),
            Git(&[
                "-c",
                "user.name=Agent",
                "-c",
                "user.email=agent@example.com",
                "add",
                "-A",
            ]),
            Git(&[
                "-c",
                "color.ui=never",
                "--no-pager",
                "commit",
                "-qam",
                "first",
            ]),
            Write("a.txt", "one\n2\n"),
            Write("src/lib.rs", "fn main() { run() }\n"),
            Git(&["-C", "src", "status", "-s"]),
            Git(&["-C", "src", "-C", "..", "status", "--short"]),
            Git(&["-C", "nowhere", "status"]),
            Git(&["-C", "a.txt", "status"]),
            Git(&["-c", "core.pager=cat", "commit", "-qam", "second"]),
            Git(&["log", "--oneline", "-n", "1"]),
            Git(&["log", "--oneline", "-1"]),
            Git(&["diff", "--stat", "HEAD~1"]),
            Git(&["checkout", "-q", "-b", "feature"]),
            Git(&["rev-parse", "--abbrev-ref", "HEAD"]),
            Write("a.txt", "stashed\n"),
            Git(&["stash", "-q"]),
            Git(&["status", "-s"]),
            Git(&["stash", "list"]),
        ],
    );
}

#[test]
fn diff_stat_scales_long_changes_and_names() {
    let many: String = (0..300).map(|i| format!("line {i}\n")).collect();
    let changed: String = (0..300).map(|i| format!("LINE {i}\n")).collect();
    let long = "a/very/long/directory/name/that/goes/on/and/on/beyond/the/width/file.txt";
    Twin::new().run(
        "diff_stat_scales_long_changes_and_names",
        &[
            Git(&["init", "-q"]),
            Write("big.txt", &many),
            Write("small.txt", "x\n"),
            Write(long, "one\n"),
            Write("bin.dat", "a\0b"),
            Write("run.sh", "echo\n"),
            Git(&["add", "-A"]),
            Git(&["commit", "-qm", "base"]),
            Write("big.txt", &changed),
            Write("small.txt", "x\ny\n"),
            Write(long, "two\n"),
            Write("bin.dat", "a\0bc"),
            Chmod("run.sh", 0o755),
            Git(&["diff", "--stat"]),
            Git(&["add", "-A"]),
            Git(&["diff", "--cached", "--stat"]),
            Git(&["commit", "-qm", "change"]),
            Git(&["diff", "--stat", "HEAD~1", "HEAD"]),
            Remove("small.txt"),
            Git(&["diff", "--stat"]),
        ],
    );
}

#[test]
fn stats_in_logs_and_shows_and_the_later_format_wins() {
    Twin::new().run(
        "stats_in_logs_and_shows",
        &[
            Git(&["init", "-q"]),
            Write("a.txt", "a\n"),
            Git(&["add", "-A"]),
            Git(&["commit", "-qm", "first"]),
            Write("a.txt", "a\nb\n"),
            Write("b.txt", "x\n"),
            Git(&["add", "-A"]),
            Git(&["commit", "-qm", "second"]),
            Git(&["commit", "-q", "--allow-empty", "-m", "empty"]),
            Git(&["log", "--stat"]),
            Git(&["log", "--oneline", "--stat"]),
            Git(&["log", "--format=%s", "--stat"]),
            Git(&["log", "--format=format:%s", "--stat"]),
            Git(&["log", "--stat", "-n", "1", "HEAD~1"]),
            Git(&["show", "--stat"]),
            Git(&["show", "--stat", "HEAD~1"]),
            Git(&["show", "--stat", "--oneline", "HEAD~1"]),
            Git(&["show", "--stat", "--format=%s", "HEAD~2"]),
            Git(&["log", "--oneline", "--format=%s", "-1"]),
            Git(&["log", "--format=%s", "--oneline", "-1"]),
        ],
    );
}

/// `rev-parse --show-toplevel` (and `--show-prefix`) from the top and from a subdirectory:
/// each side names the repository as its own file system sees it (the host's directory,
/// `/workspace/repo` in ours), the rest is the same.
#[test]
fn rev_parse_names_the_top_level_as_each_side_sees_it() {
    let twin = Twin::new();
    twin.run(
        "rev_parse_names_the_top_level_as_each_side_sees_it",
        &[Git(&["init", "-q"]), Mkdir("src/deep")],
    );
    let env = crate::support::env(2);
    let host = twin.host_repo.to_string_lossy().into_owned();
    for sub in ["", "src", "src/deep"] {
        for args in [
            &["rev-parse", "--show-toplevel"][..],
            &["rev-parse", "--show-prefix"],
            &["-C", "..", "rev-parse", "--show-toplevel"],
        ] {
            if sub.is_empty() && args[0] == "-C" {
                continue;
            }
            let theirs = crate::support::real_git(&twin.host_repo.join(sub), args, &env);
            let ours = twin.ours(sub, args, &env);
            let theirs_out =
                String::from_utf8_lossy(&theirs.stdout).replace(&host, "/workspace/repo");
            assert_eq!(
                (
                    ours.status,
                    String::from_utf8_lossy(&ours.stdout).into_owned()
                ),
                (theirs.status, theirs_out),
                "git {} in {sub:?}",
                args.join(" ")
            );
        }
    }
}
