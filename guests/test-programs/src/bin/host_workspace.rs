//! Calls `computer:host/workspace` and `computer:host/git` from inside a guest.
use test_programs::computer::host::{git, workspace};

fn main() {
    let before = workspace::revision();
    std::fs::write("/workspace/from-guest.txt", b"x").unwrap();
    let after = workspace::revision();
    println!("revision advanced: {}", after > before);
    let changes = workspace::changes_since(before).unwrap();
    for c in &changes {
        println!("change: {:?} {}", c.kind, c.path);
    }
    println!("snapshot: {:?}", workspace::snapshot("from-guest"));
    println!("snapshots: {:?}", workspace::snapshots());
    println!(
        "changes from the future: {}",
        workspace::changes_since(after + 1000)
            .map(|c| c.len())
            .unwrap_or(0)
    );
    println!("git: {:?}", git::status("/workspace", true));
}
