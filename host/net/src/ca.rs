//! The certificate authority of one container's egress proxy: made in memory when the
//! container starts (its key is never written anywhere), trusted inside that container only,
//! and used to end TLS at the proxy for the hosts whose requests the host must see (a secret
//! is bound to them, or a rule limits their paths or methods).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::error::NetError;

/// The most hosts one CA keeps a certificate for (each is made once, on the first CONNECT).
pub const MAX_PROXY_HOSTS: usize = 1000;

/// A per-container CA and the server certificates it made.
pub struct ProxyCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
    pem: String,
    made: Mutex<HashMap<String, Arc<ServerConfig>>>,
}

impl std::fmt::Debug for ProxyCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyCa").finish_non_exhaustive()
    }
}

fn failed(what: &str) -> impl FnOnce(rcgen::Error) -> NetError + '_ {
    move |e| NetError::Proxy(format!("{what}: {e}"))
}

impl ProxyCa {
    /// A new CA with a fresh key.
    pub fn new() -> Result<ProxyCa, NetError> {
        let mut params = CertificateParams::new(Vec::<String>::new())
            .map_err(failed("the proxy CA's parameters"))?;
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, "computer egress proxy CA");
        params.distinguished_name = name;
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().map_err(failed("the proxy CA's key"))?;
        let issuer = CertifiedIssuer::self_signed(params, key).map_err(failed("the proxy CA"))?;
        let pem = issuer.pem();
        Ok(ProxyCa {
            issuer,
            pem,
            made: Mutex::new(HashMap::new()),
        })
    }

    /// The CA's certificate (PEM), to install in the container's trust store.
    pub fn cert_pem(&self) -> &str {
        &self.pem
    }

    /// The TLS server side for `host` (a name or an address), with a certificate for it
    /// signed by this CA; made on first use.
    pub fn server_config(&self, host: &str) -> Result<Arc<ServerConfig>, NetError> {
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(config) = made.get(host) {
            return Ok(Arc::clone(config));
        }
        if made.len() >= MAX_PROXY_HOSTS {
            return Err(NetError::Proxy(format!(
                "more than {MAX_PROXY_HOSTS} hosts reached through TLS ended at the proxy \
                 (MAX_PROXY_HOSTS)"
            )));
        }
        let mut params = CertificateParams::new(vec![host.to_string()])
            .map_err(failed("a proxy certificate"))?;
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, host);
        params.distinguished_name = name;
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.use_authority_key_identifier_extension = true;
        let key = KeyPair::generate().map_err(failed("a proxy certificate's key"))?;
        let cert = params
            .signed_by(&key, &self.issuer)
            .map_err(failed("a proxy certificate"))?;
        let chain = vec![cert.der().clone(), self.issuer.der().clone()];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let mut config = ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| NetError::Proxy(format!("the proxy's TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| NetError::Proxy(format!("the proxy's TLS: {e}")))?;
        // The proxy reads HTTP/1.1 only.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);
        made.insert(host.to_string(), Arc::clone(&config));
        Ok(config)
    }

    /// The CA certificate in DER (tests check chains with it).
    pub fn cert_der(&self) -> CertificateDer<'static> {
        self.issuer.der().clone()
    }
}
