//! Echoes its arguments, environment, working directory and stdin; writes to stderr too.
use std::io::Read;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    println!("args: {args:?}");
    let mut env: Vec<(String, String)> = std::env::vars().collect();
    env.sort();
    println!("env: {env:?}");
    println!(
        "initial cwd: {:?}",
        std::env::current_dir().map(|p| p.display().to_string())
    );
    // Rust's wasi-libc starts in `/` and ignores `initial-cwd`; `PWD` says where we are.
    if let Ok(pwd) = std::env::var("PWD") {
        std::env::set_current_dir(pwd).unwrap();
    }
    println!(
        "cwd: {:?}",
        std::env::current_dir().map(|p| p.display().to_string())
    );
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    println!("stdin: {input:?}");
    eprintln!("to stderr");
    std::fs::write("relative.txt", b"written relative to cwd").unwrap();
    if let Some(code) = std::env::var("EXIT_CODE").ok().and_then(|c| c.parse().ok()) {
        std::process::exit(code);
    }
}
