//! Writes `include/computer.h` from the crate's `extern "C"` items with cbindgen, only when
//! it changes (the header is committed, so C users need no Rust tools to read it).

fn main() {
    let crate_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(format!("{crate_dir}/cbindgen.toml"))
        .expect("cbindgen.toml reads");
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen makes the header");
    let mut text = Vec::new();
    bindings.write(&mut text);
    let header = format!("{crate_dir}/include/computer.h");
    if std::fs::read(&header).ok().as_deref() != Some(&text[..]) {
        std::fs::write(&header, &text).expect("include/computer.h is written");
    }
}
