//! Calls `computer:host/exec`: run (collected), spawn (streamed), and spawn-with-stdin (its
//! input written while it runs), as given on argv.
use test_programs::computer::host::exec::{self, Command};

fn command(argv: &[&str]) -> Command {
    Command {
        argv: argv.iter().map(|s| s.to_string()).collect(),
        source: None,
        cwd: None,
        env: vec![("GREETING".into(), "hi".into())],
        stdin: Some(b"input".to_vec()),
        backend: None,
        timeout_ms: None,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    match exec::run(&command(&argv)) {
        Ok(out) => println!(
            "run: status {} stdout {:?} stderr {:?}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => println!("run: error {e:?}"),
    }
    match exec::spawn(&command(&argv)) {
        Ok(process) => finish("spawn", &process),
        Err(e) => println!("spawn: error {e:?}"),
    }
    match exec::spawn_with_stdin(&command(&argv)) {
        Ok((process, stdin)) => {
            // A command that has already exited (one no backend has) takes no more input.
            let _ = stdin.blocking_write_and_flush(b" and more");
            drop(stdin);
            finish("piped", &process);
        }
        Err(e) => println!("piped: error {e:?}"),
    }
    let empty = Command {
        argv: vec![],
        ..command(&[])
    };
    println!("empty: {:?}", exec::run(&empty).err());
}

/// Reads a spawned process's stdout to its end, waits for it, and prints what came of it.
fn finish(what: &str, process: &exec::Process) {
    let stdout = process.stdout();
    let mut got = Vec::new();
    while let Ok(bytes) = stdout.blocking_read(65536) {
        got.extend(bytes);
    }
    process.subscribe().block();
    println!(
        "{what}: status {:?} stdout {:?} failure {:?}",
        process.status(),
        String::from_utf8_lossy(&got),
        process.failure()
    );
}
