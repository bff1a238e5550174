//! The host's view of processes inside containers (same kernel, host pids): killing
//! everything one command started, and reading the memory cgroup's OOM-kill counter.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The environment variable that marks every process of one command (children inherit it,
/// and keep it when their parent dies and they are re-parented to the container's init).
pub(crate) const MARK: &str = "COMPUTER_EXEC";

/// Run in a container by `/bin/sh -c` with `COMPUTER_KILL` set to `COMPUTER_EXEC=MARK`: kills
/// every process whose environment holds that line, again until none is left, and prints
/// how many. Exits 3 if it could not look (no process could be started to read one: the
/// pids limit is full), so that the caller does something stronger. Each round stops every
/// process it finds before killing any (see [`kill_command`]).
pub(crate) const KILL_INSIDE: &str = r#"n=0
for round in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  found=0
  stopped=
  for d in /proc/[0-9]*; do
    tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qxF "$COMPUTER_KILL"
    case $? in
      0) kill -STOP "${d#/proc/}" 2>/dev/null && stopped="$stopped ${d#/proc/}" ;;
      1) ;;
      *) [ -e "$d" ] && exit 3 ;;
    esac
  done
  for pid in $stopped; do kill -9 "$pid" 2>/dev/null && found=$((found + 1)); done
  n=$((n + found))
  [ "$found" = 0 ] && break
  sleep 0.05
done
oom=-
for f in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do
  [ -r "$f" ] || continue
  while read -r key value; do [ "$key" = oom_kill ] && oom=$value; done < "$f"
  break
done
echo "$n $oom""#;

/// Host pids whose environment holds `MARK=mark`, or that descend from `root` (itself
/// included).
fn marked(mark: Option<&str>, root: Option<u32>) -> Vec<u32> {
    let needle = mark.map(|mark| format!("{MARK}={mark}"));
    let mut found = HashSet::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut parents = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(needle) = &needle
            && let Ok(env) = std::fs::read(entry.path().join("environ"))
            && env.split(|b| *b == 0).any(|var| var == needle.as_bytes())
        {
            found.insert(pid);
        }
        // Parents only matter when there is a tree to follow.
        if root.is_some()
            && let Some(ppid) = parent_of(pid)
        {
            parents.push((pid, ppid));
        }
    }
    // Descendants of the command's first process, in case one cleared its environment.
    if let Some(root) = root {
        let mut tree: HashSet<u32> = HashSet::from([root]);
        loop {
            let before = tree.len();
            for (pid, ppid) in &parents {
                if tree.contains(ppid) {
                    tree.insert(*pid);
                }
            }
            if tree.len() == before {
                break;
            }
        }
        found.extend(tree);
    }
    found.into_iter().collect()
}

/// The parent pid from `/proc/PID/stat` (the field after the command name in parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    stat_field(pid, 1)?.parse().ok()
}

/// Field `n` after the command name of `/proc/PID/stat` (0: the state, 1: the parent).
fn stat_field(pid: u32, n: usize) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(n).map(str::to_string)
}

/// The kernel's flag (`PF_EXITING`, in the flags field of `/proc/PID/stat`) on a process
/// that has begun to exit.
const PF_EXITING: u64 = 0x4;

/// Whether `pid` is running, waiting for a CPU or in the kernel, exiting, or waiting for the
/// workspace's FUSE server (whose answer, on a loaded host, may come late): not asleep on its
/// own account.
fn busy(pid: u32) -> bool {
    matches!(stat_field(pid, 0).as_deref(), Some("R" | "D"))
        || stat_field(pid, 6)
            .and_then(|flags| flags.parse::<u64>().ok())
            .is_some_and(|flags| flags & PF_EXITING != 0)
        || std::fs::read_to_string(format!("/proc/{pid}/wchan"))
            .is_ok_and(|w| w.contains("fuse") || w.contains("request_wait_answer"))
}

/// Whether `pid` has ended (a zombie its parent has not reaped yet) or is gone: nothing to
/// kill. The writer of `cat <(echo x)` is one when its shell exits first: it passes to the
/// container's init, which reaps it a moment later (on a loaded host, many ms later).
fn ended(pid: u32) -> bool {
    !matches!(stat_field(pid, 0).as_deref(), Some(state) if state != "Z" && state != "X")
}

/// Host pids whose parent is `ppid` (a single-threaded process: the container's init),
/// oldest first. The kernel's list of its children is one read; where it is missing, every
/// process's parent is looked at.
pub(crate) fn children_of(ppid: u32) -> Vec<u32> {
    let listed = std::fs::read_to_string(format!("/proc/{ppid}/task/{ppid}/children"));
    let mut children: Vec<u32> = match listed {
        Ok(text) => text
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect(),
        Err(_) => {
            let Ok(entries) = std::fs::read_dir("/proc") else {
                return Vec::new();
            };
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter(|&pid| parent_of(pid) == Some(ppid))
                .collect()
        }
    };
    children.sort_by_key(|&pid| started_at(pid));
    children
}

/// When `pid` started, in clock ticks since boot (field 22 of `/proc/PID/stat`).
fn started_at(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let after = &stat[stat.rfind(')')? + 1..];
            after.split_whitespace().nth(19)?.parse().ok()
        })
        .unwrap_or(u64::MAX)
}

/// Kills the children of the container's `init` other than its `main` process, and their
/// descendants: processes no command owns any more. Returns how many.
pub(crate) fn kill_orphans(init: u32, main: u32) -> usize {
    let mut killed = 0;
    // Descendants of a killed orphan become orphans themselves: look again.
    for _ in 0..10 {
        let orphans: Vec<u32> = children_of(init)
            .into_iter()
            .filter(|&pid| pid != main && !ended(pid))
            .collect();
        if orphans.is_empty() {
            break;
        }
        for orphan in orphans {
            killed += kill_command(None, Some(orphan));
        }
    }
    killed
}

/// The longest a busy leftover is waited for.
const BUSY_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Waits up to `grace` for the processes of the command marked `mark` to end by themselves:
/// what a command started last (the writer of a process substitution, say) may still be
/// exiting when its shell has exited, and is no background process to kill and report.
///
/// Leftovers that are still busy after `grace` (on a loaded machine, an exiting `printf`
/// may wait that long for a CPU or for the FUSE server), or still ending one after another
/// (a process substitution's subshell waits for its `tr`, which waited for its input to
/// end), get up to 5 s in all; ones asleep and unchanging (a server waiting for
/// connections) do not.
pub(crate) async fn settle(mark: &str, grace: std::time::Duration) {
    let start = std::time::Instant::now();
    let mut live = usize::MAX;
    let mut changed = start;
    loop {
        let left = marked(Some(mark), None);
        let now = left.iter().filter(|&&p| !ended(p)).count();
        if now != live {
            live = now;
            changed = std::time::Instant::now();
        }
        let waited = start.elapsed();
        let moving = changed.elapsed() < STILL_ENDING || left.iter().any(|&p| busy(p));
        if live == 0 || (waited >= grace && (waited >= BUSY_GRACE.max(grace) || !moving)) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// How recently one of a command's leftovers must have ended for the rest to count as still
/// ending.
const STILL_ENDING: std::time::Duration = std::time::Duration::from_millis(500);

/// Kills every process of the command marked `mark` (and every descendant of `root`) with
/// SIGKILL, again and again until none is left: a fork bomb keeps making new ones for a
/// while. Returns how many were killed.
pub(crate) fn kill_command(mark: Option<&str>, root: Option<u32>) -> usize {
    let mut killed = 0;
    for _ in 0..200 {
        let mut pids = marked(
            mark,
            root.filter(|p| Path::new(&format!("/proc/{p}")).exists()),
        );
        pids.retain(|&pid| !ended(pid));
        if pids.is_empty() {
            break;
        }
        let pids: Vec<Pid> = pids
            .into_iter()
            .filter_map(|pid| i32::try_from(pid).ok().map(Pid::from_raw))
            .collect();
        // All stopped before any is killed: a shell whose child died first would otherwise
        // run its next command for a moment (`sleep 30; echo never` printed `never`).
        for &pid in &pids {
            let _ = kill(pid, Signal::SIGSTOP);
        }
        for pid in pids {
            if kill(pid, Signal::SIGKILL).is_ok() {
                killed += 1;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    killed
}

/// The file that counts OOM kills in container `id`'s memory cgroup (cgroup v1 with the
/// cgroupfs or systemd driver, or cgroup v2), if there is one here.
pub(crate) fn oom_counter(id: &str) -> Option<PathBuf> {
    [
        format!("/sys/fs/cgroup/memory/docker/{id}/memory.oom_control"),
        format!("/sys/fs/cgroup/memory/system.slice/docker-{id}.scope/memory.oom_control"),
        format!("/sys/fs/cgroup/docker/{id}/memory.events"),
        format!("/sys/fs/cgroup/system.slice/docker-{id}.scope/memory.events"),
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

/// The `oom_kill` count in that file.
pub(crate) fn oom_kills(counter: &Path) -> u64 {
    std::fs::read_to_string(counter)
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("oom_kill "))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Whether host process `pid` is alive.
pub(crate) fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// This boot's id: pids are only comparable within one boot.
/// This machine, as far as a shared engine can tell it from another: the machine id and
/// the host name.
pub(crate) fn host_id() -> String {
    let read = |p: &str| std::fs::read_to_string(p).map(|s| s.trim().to_string());
    let machine = read("/etc/machine-id")
        .or_else(|_| read("/var/lib/dbus/machine-id"))
        .unwrap_or_default();
    let name = read("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("{machine}/{name}")
}

pub(crate) fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zombie (a child that exited and was not reaped yet) is no leftover: killing one
    /// "succeeds", and used to be reported as a background process killed.
    #[test]
    fn ended_processes_are_not_counted_as_killed() {
        // `sleep` stands for the container's init: its shell left it a zombie child, which
        // `sleep` never reaps.
        let mut init = std::process::Command::new("sh")
            .args(["-c", "(exit 0) & exec sleep 30"])
            .spawn()
            .expect("spawn sh");
        let pid = init.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let zombie = loop {
            let children = children_of(pid);
            if let [child] = children[..]
                && stat_field(child, 0).as_deref() == Some("Z")
                && std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|c| c == "sleep\n")
            {
                break child;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no zombie: {children:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert!(alive(zombie), "a zombie is listed until it is reaped");
        assert_eq!(kill_orphans(pid, 0), 0, "a zombie orphan is not killed");
        assert!(!ended(pid));
        assert_eq!(
            kill_command(None, Some(pid)),
            1,
            "only the live one of the tree"
        );
        assert!(!init.wait().expect("reap").success());
    }

    /// Runs `script` under `sh` with the mark `mark`, settles for 300 ms of grace, and
    /// returns how many of its processes were then left to kill (killing them).
    fn left_after_settling(mark: &str, script: &str) -> usize {
        let mut sh = std::process::Command::new("sh")
            .args(["-c", script])
            .env(MARK, mark)
            .spawn()
            .expect("spawn sh");
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("runtime")
            .block_on(settle(mark, std::time::Duration::from_millis(300)));
        let left = kill_command(Some(mark), None);
        let _ = sh.wait();
        left
    }

    /// Processes still ending one after another past the grace (a process substitution's
    /// subshell ends after its `tr`) are waited for, not reported as background processes;
    /// one asleep and unchanging is not waited for.
    #[test]
    fn settling_waits_for_a_command_still_ending_but_not_for_a_sleeper() {
        let chain = "sleep 0.25 & sleep 0.5 & sleep 0.75 & sleep 1 & wait";
        assert_eq!(left_after_settling("settle-chain", chain), 0);
        assert_eq!(
            left_after_settling("settle-sleeper", "exec sleep 30"),
            1,
            "a sleeping leftover is killed once the grace is over"
        );
    }
}
