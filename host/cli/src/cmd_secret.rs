//! `computer secret set|list|rm`: the host's secret store (`--secrets`, default
//! `.computer/secrets.json`, outside every workspace file). A guest sees a secret only as the
//! placeholder `computer-secret:NAME` in `$NAME`; the host puts the value into the headers of
//! https requests to the hosts it is bound to.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use computer::net::{Secret, SecretStore};

/// `computer secret` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum SecretCommand {
    /// Store a secret, its value read from standard input (or `--from-file`), never from
    /// the command line. Replaces a secret of the same name.
    Set {
        /// Its name: letters, digits and `_` (a guest's `$NAME` holds its placeholder).
        name: String,
        /// A host it is sent to, over https only (`*.NAME` for every subdomain); may be
        /// repeated. Required: a secret bound to no host is sent nowhere.
        #[arg(long = "host", value_name = "HOST", required = true)]
        hosts: Vec<String>,
        /// A header the host adds to every request to those hosts that lacks it.
        #[arg(long, value_name = "NAME")]
        header: Option<String>,
        /// How the value is written in that header: `{}` is the value, `{base64}` its
        /// base64 (default `{}`; `'Bearer {}'`, `'Basic {base64}'`).
        #[arg(long, value_name = "FORMAT", requires = "header")]
        format: Option<String>,
        /// Read the value from this file instead of standard input.
        #[arg(long, value_name = "FILE")]
        from_file: Option<PathBuf>,
    },
    /// List the secrets: names, hosts and headers, never values.
    List,
    /// Remove a secret.
    Rm {
        /// Its name.
        name: String,
    },
}

pub fn run(store: &SecretStore, cmd: SecretCommand) -> Result<ExitCode> {
    let secrets = store.load()?;
    match cmd {
        SecretCommand::Set {
            name,
            hosts,
            header,
            format,
            from_file,
        } => {
            let value = match &from_file {
                Some(file) => std::fs::read_to_string(file)
                    .with_context(|| format!("read {}", file.display()))?,
                None => {
                    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                        eprintln!(
                            "computer: the value of {name}, then Ctrl-D (or pipe it in, or use --from-file)"
                        );
                    }
                    let mut text = String::new();
                    std::io::stdin()
                        .read_to_string(&mut text)
                        .context("read the value from standard input")?;
                    text
                }
            };
            // A file or `echo` ends the value with a line break; it is not part of it.
            let value = value
                .strip_suffix('\n')
                .map(|v| v.strip_suffix('\r').unwrap_or(v))
                .unwrap_or(&value);
            let secret = Secret::new(&name, value, &hosts, header.as_deref(), format.as_deref())?;
            store.save(&secrets.with(secret)?)?;
            eprintln!(
                "computer: secret {name} stored in {} (a guest's ${name} is computer-secret:{name})",
                store.path().display()
            );
            Ok(ExitCode::SUCCESS)
        }
        SecretCommand::List => {
            if secrets.is_empty() {
                eprintln!("computer: no secrets in {}", store.path().display());
            }
            for secret in secrets.list() {
                let header = match secret.header() {
                    Some(h) => format!("  header {h}: {}", secret.format()),
                    None => String::new(),
                };
                println!("{}  {}{header}", secret.name(), secret.hosts().join(","));
            }
            Ok(ExitCode::SUCCESS)
        }
        SecretCommand::Rm { name } => {
            let Some(rest) = secrets.without(&name) else {
                bail!("no secret {name} in {}", store.path().display());
            };
            store.save(&rest)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
