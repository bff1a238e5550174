//! `computer compact`: rewrite the workspace file compactly.

use std::process::ExitCode;

use anyhow::Result;
use computer::Workspace;

use crate::format::human_size;

/// Rewrites the workspace's file and says how much smaller it got.
pub fn compact(ws: &Workspace) -> Result<ExitCode> {
    let done = ws.fs().compact()?;
    println!(
        "compacted: {} -> {}",
        human_size(done.before),
        human_size(done.after)
    );
    Ok(ExitCode::SUCCESS)
}
