//! `computer mcp`: the agent tools over MCP on stdio, for one workspace.

use std::process::ExitCode;

use computer::Workspace;
use computer_tools::Toolkit;

/// `computer mcp` options.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Offer only read, ls, find and grep.
    #[arg(long)]
    read_only: bool,
}

/// Serves until the client closes standard input.
pub fn mcp(ws: Workspace, args: McpArgs) -> anyhow::Result<ExitCode> {
    let mut kit = Toolkit::new(ws).with_origin("mcp");
    if args.read_only {
        kit = kit.read_only();
    }
    computer_tools::mcp::serve_stdio(kit).map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}
