//! `computer image build`: the container backend's image, built here (no registry needed):
//! Debian bookworm from debootstrap with python3, git and build-essential by default, or a
//! few-MB busybox image.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use computer::containers::{DEFAULT_IMAGE, DEFAULT_PACKAGES, Engine};

/// `computer image` subcommands.
#[derive(Debug, Subcommand)]
pub enum ImageCommand {
    /// Build the container image locally (about a minute, once).
    Build(BuildArgs),
}

/// `computer image build` arguments.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The image name to build.
    #[arg(long, default_value = DEFAULT_IMAGE)]
    tag: String,
    /// Debian packages beyond the minimal base (comma-separated).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_PACKAGES.iter().map(|p| p.to_string()))]
    packages: Vec<String>,
    /// Build a tiny image of the host's static busybox instead (seconds, no network).
    #[arg(long)]
    busybox: bool,
    /// Build even if the image exists.
    #[arg(long)]
    force: bool,
}

pub fn run(cmd: ImageCommand) -> Result<ExitCode> {
    let ImageCommand::Build(args) = cmd;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    runtime.block_on(async {
        let engine = Engine::connect().await?;
        if !args.force && engine.has_image(&args.tag).await {
            eprintln!("computer image: {} exists (--force rebuilds it)", args.tag);
            return Ok(ExitCode::SUCCESS);
        }
        let started = std::time::Instant::now();
        if args.busybox {
            engine.build_busybox_image(&args.tag).await?;
        } else {
            let packages: Vec<&str> = args.packages.iter().map(String::as_str).collect();
            let mut progress = |step: &str| eprintln!("computer image: {step}");
            engine
                .build_debian_image(&args.tag, &packages, &mut progress)
                .await?;
        }
        eprintln!(
            "computer image: built {} in {:.0} s",
            args.tag,
            started.elapsed().as_secs_f64()
        );
        Ok::<_, anyhow::Error>(ExitCode::SUCCESS)
    })
}
