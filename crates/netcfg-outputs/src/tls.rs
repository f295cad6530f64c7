//! TLS for `mqtts://` and `https://`: rustls with the ring provider (the
//! workspace's only one), trusting the system's roots or an output's
//! `ca_file`.

use std::sync::{Arc, OnceLock};

use rustls::{
    ClientConfig, RootCertStore,
    crypto::CryptoProvider,
    pki_types::{CertificateDer, pem::PemObject},
};

/// Why an output (or another outbound client) cannot set up TLS.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The CA file cannot be read or holds no certificate.
    #[error("cannot use the CA file {path}: {reason}")]
    CaFile {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The system has no usable root certificate.
    #[error("no trusted root certificates found on this system")]
    NoSystemRoots,
    /// rustls refused the configuration.
    #[error("TLS setup failed: {0}")]
    Rustls(#[from] rustls::Error),
}

/// The ring provider, shared.
pub(crate) fn provider() -> Arc<CryptoProvider> {
    static PROVIDER: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    PROVIDER
        .get_or_init(|| Arc::new(rustls::crypto::ring::default_provider()))
        .clone()
}

/// The system's roots, read once (the file is the same for every output).
fn system_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for error in &found.errors {
            log::warn!("reading the system's root certificates: {error}");
        }
        found.certs
    })
}

/// The certificates to trust: `ca_file`'s, or the system's.
pub(crate) fn root_certificates(
    ca_file: Option<&str>,
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    match ca_file {
        Some(path) => {
            let certs = CertificateDer::pem_file_iter(path)
                .and_then(|iter| iter.collect::<Result<Vec<_>, _>>())
                .map_err(|error| TlsError::CaFile {
                    path: path.to_owned(),
                    reason: error.to_string(),
                })?;
            if certs.is_empty() {
                return Err(TlsError::CaFile {
                    path: path.to_owned(),
                    reason: "no certificate in it".to_owned(),
                });
            }
            Ok(certs)
        }
        None => {
            let roots = system_roots();
            if roots.is_empty() {
                return Err(TlsError::NoSystemRoots);
            }
            Ok(roots.to_vec())
        }
    }
}

/// A rustls client configuration trusting `ca_file` or the system.
pub(crate) fn client_config(ca_file: Option<&str>) -> Result<Arc<ClientConfig>, TlsError> {
    let mut store = RootCertStore::empty();
    let (added, _ignored) = store.add_parsable_certificates(root_certificates(ca_file)?);
    if added == 0 {
        return Err(TlsError::CaFile {
            path: ca_file.unwrap_or("(system)").to_owned(),
            reason: "no usable certificate".to_owned(),
        });
    }
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_root_certificates(store)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_ca_file_is_an_error() {
        let error = client_config(Some("/nonexistent/ca.pem")).unwrap_err();
        assert!(error.to_string().contains("/nonexistent/ca.pem"), "{error}");
    }

    #[test]
    fn a_ca_file_without_certificates_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate\n").unwrap();
        assert!(client_config(Some(path.to_str().unwrap())).is_err());
    }
}
