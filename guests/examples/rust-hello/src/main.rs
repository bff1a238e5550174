//! An example guest: counts the lines of every file in a directory of the workspace, writes a
//! report next to them, and asks the host to run a command through `computer:host/exec`.
//!
//! Build: `cargo build --release --target wasm32-wasip2` (in `guests/`).
//! Run:   `computer run target/wasm32-wasip2/release/rust-hello.wasm -- /workspace/src`

wit_bindgen::generate!({
    path: "../../../wit",
    world: "computer:host/extensions",
    generate_all,
});

use computer::host::exec;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/workspace".into());
    let mut report = String::new();
    let mut entries: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd.filter_map(Result::ok).collect(),
        Err(e) => {
            eprintln!("rust-hello: {dir}: {e}");
            std::process::exit(1);
        }
    };
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            report.push_str(&format!(
                "{:6} {}\n",
                text.lines().count(),
                entry.file_name().to_string_lossy()
            ));
        }
    }
    print!("{report}");
    let out = format!("{dir}/LINES.txt");
    if let Err(e) = std::fs::write(&out, &report) {
        eprintln!("rust-hello: {out}: {e}");
        std::process::exit(1);
    }
    println!("wrote {out}");
    let cmd = exec::Command {
        argv: vec!["uname".into(), "-a".into()],
        source: None,
        cwd: None,
        env: vec![],
        stdin: None,
        backend: None,
        timeout_ms: Some(5_000),
    };
    match exec::run(&cmd) {
        Ok(output) => print!("host says: {}", String::from_utf8_lossy(&output.stdout)),
        Err(e) => println!("host could not run uname: {e:?}"),
    }
}
