//! The TLS configuration of the host's HTTP clients, made once per set of extra roots and
//! shared by every client of the process: making one loads and parses the system's roots
//! (3 to 6 ms, most of what a small request costs), while the pinned client each hop needs
//! is cheap once it is given a configuration.

use std::sync::{Arc, Mutex};

use rustls::ClientConfig;
use rustls::pki_types::CertificateDer;

/// How many configurations (one per distinct CA file) are kept.
const MAX_CONFIGS: usize = 16;

type Kept = Vec<(Vec<CertificateDer<'static>>, Arc<ClientConfig>)>;

static CONFIGS: Mutex<Kept> = Mutex::new(Vec::new());

/// The configuration that verifies servers against the system's roots plus `extra` (as
/// reqwest's own default does: rustls-platform-verifier, aws-lc-rs).
pub(crate) fn client_config(
    extra: &[CertificateDer<'static>],
) -> Result<Arc<ClientConfig>, String> {
    let mut configs = CONFIGS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, config)) = configs.iter().find(|(roots, _)| roots.as_slice() == extra) {
        return Ok(Arc::clone(config));
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new_with_extra_roots(
        extra.iter().cloned(),
        Arc::clone(&provider),
    )
    .map_err(|e| format!("network: the TLS roots: {e}"))?;
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("network: TLS: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    let config = Arc::new(config);
    if configs.len() >= MAX_CONFIGS {
        configs.remove(0);
    }
    configs.push((extra.to_vec(), Arc::clone(&config)));
    Ok(config)
}
