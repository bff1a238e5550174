//! `computer net show|allow|deny|check`: the workspace's network egress policy, which every
//! request of a guest (today: its git) meets on the host.

use std::process::ExitCode;

use anyhow::Result;
use computer::Workspace;
use computer::net::Policy;

/// `computer net` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum NetCommand {
    /// Print the policy: its allow and deny rules, or that nothing is reachable.
    Show,
    /// Allow a URL prefix, `SCHEME://HOST[:PORT][/PATH]` (`*.NAME` for every subdomain,
    /// `:*` for every port; http, https or git), or `all` public hosts. Loopback and
    /// private addresses open only to a rule that names the host itself.
    Allow {
        /// The rule, or `all`.
        rule: String,
        /// The methods it allows (default: any); may be repeated or comma-separated.
        #[arg(long = "method", value_name = "METHOD")]
        methods: Vec<String>,
    },
    /// Remove an allow rule, or refuse a URL prefix that `all` or a wider rule allows; `deny
    /// all` refuses everything again (the default).
    Deny {
        /// The rule, or `all`.
        rule: String,
        /// The methods it refuses (default: any).
        #[arg(long = "method", value_name = "METHOD")]
        methods: Vec<String>,
    },
    /// Say whether a request would be allowed, and to which addresses (the name is
    /// resolved here); exits 1 when it would be refused. Nothing is sent.
    Check {
        /// The URL.
        url: String,
        /// The method.
        #[arg(long = "method", default_value = "GET", value_name = "METHOD")]
        method: String,
    },
}

pub fn run(ws: &Workspace, cmd: NetCommand) -> Result<ExitCode> {
    match cmd {
        NetCommand::Show => show(&ws.net_policy()?),
        NetCommand::Allow { rule, methods } => show(&ws.net_allow(&rule, &methods)?),
        NetCommand::Deny { rule, methods } => show(&ws.net_deny(&rule, &methods)?),
        NetCommand::Check { url, method } => match ws.net_check(&method, &url, "cli") {
            Ok(allowed) => {
                let addrs: Vec<String> = allowed.addrs.iter().map(|a| a.to_string()).collect();
                println!("allowed: {}", addrs.join(", "));
                Ok(ExitCode::SUCCESS)
            }
            Err(computer::Error::Net(e)) => {
                println!("{e}");
                Ok(ExitCode::FAILURE)
            }
            Err(e) => Err(e.into()),
        },
    }
}

fn show(policy: &Policy) -> Result<ExitCode> {
    if policy.is_none() {
        println!("none: no host is reachable (`computer net allow URL` opens one)");
    }
    print!("{}", policy.to_text());
    Ok(ExitCode::SUCCESS)
}
