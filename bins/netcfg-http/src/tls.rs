//! HTTPS (decisions.md §11): the rustls configuration of `tls_cert` and
//! `tls_key`, TLS 1.2 and 1.3 with the `ring` provider (no C toolchain
//! beyond what ring builds; aws-lc-rs would need cmake). The files are read
//! once, at start; a bad file stops the server with a message naming it.

use std::{path::Path, sync::Arc};

use anyhow::{Context, Result, ensure};
use rustls::{
    ServerConfig,
    pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
};

/// The server's TLS configuration from its certificate chain and key.
pub(crate) fn server_config(cert: &Path, key: &Path) -> Result<ServerConfig> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .with_context(|| format!("tls_cert {}: cannot read it", cert.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("tls_cert {}: not a PEM certificate chain", cert.display()))?;
    ensure!(
        !chain.is_empty(),
        "tls_cert {}: holds no certificate",
        cert.display()
    );
    let private = PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("tls_key {}: no PEM private key in it", key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS 1.2 and 1.3 with the ring provider")?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .with_context(|| {
            format!(
                "tls_key {} does not go with tls_cert {}",
                key.display(),
                cert.display()
            )
        })?;
    // HTTP/1.1 only, as over plain TCP: no HTTP/2 without a reason.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}
