//! A writer process is killed with SIGKILL at random moments; every write it acknowledged
//! must survive, and the database must pass SQLite's integrity check.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use computer_tests::crash_data;
use computer_vfs::Vfs;

const ROUNDS: u64 = 30;

#[test]
fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let mut acked_total = 0u64;
    // A simple deterministic spread of kill times (10..200 ms), different every round.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..ROUNDS {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_millis(10 + seed % 190);
        let mut child = Command::new(env!("CARGO_BIN_EXE_vfs-writer"))
            .arg("crash")
            .arg(&db)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn vfs-writer");
        let stdout = child.stdout.take().unwrap();
        // Wait for the first ack so that every round really writes, then kill at random.
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().expect("writer printed nothing").unwrap();
        assert!(first.starts_with("ack "), "round {round}: {first}");
        std::thread::sleep(delay);
        child.kill().unwrap();
        child.wait().unwrap();
        let acked: Vec<u64> = std::iter::once(Ok(first))
            .chain(lines)
            .map_while(Result::ok)
            .filter_map(|l| l.strip_prefix("ack ")?.parse().ok())
            .collect();
        let last = *acked.last().unwrap();

        let vfs = Vfs::open(&db).expect("reopen after SIGKILL");
        vfs.check_integrity().expect("integrity after SIGKILL");
        for i in &acked {
            let path = format!("/workspace/crash/{i:08}.dat");
            let data = vfs
                .read_file(&path)
                .unwrap_or_else(|e| panic!("round {round}: acked write {i} lost: {e}"));
            assert_eq!(data, crash_data(*i), "round {round}: write {i} damaged");
        }
        let log = String::from_utf8(vfs.read_file("/workspace/crash.log").unwrap()).unwrap();
        let logged: Vec<u64> = log.lines().map(|l| l.parse().unwrap()).collect();
        assert!(
            logged.len() as u64 > last,
            "round {round}: log has {} lines, write {last} was acked",
            logged.len()
        );
        assert_eq!(logged, (0..logged.len() as u64).collect::<Vec<_>>());
        acked_total += acked.len() as u64;
    }
    assert!(acked_total >= ROUNDS, "the writer made too little progress");
}
