//! A private certificate authority made for a test (rcgen): its
//! certificate, and a server certificate it signed for `localhost` only,
//! as PEM files; and a second authority that signed nothing the servers
//! show (an unknown issuer).

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};

/// The files of a private authority and the server certificate it signed.
#[derive(Debug)]
pub(crate) struct Pki {
    /// The authority's certificate: what a client given it as `ca_file`
    /// trusts.
    pub(crate) ca: PathBuf,
    /// Another authority's certificate, which signed nothing here.
    pub(crate) stranger_ca: PathBuf,
    /// The server's certificate (for the name `localhost`, not for
    /// 127.0.0.1) and its key.
    pub(crate) cert: PathBuf,
    pub(crate) key: PathBuf,
}

fn authority(name: &str) -> (CertificateParams, KeyPair) {
    let key = KeyPair::generate().expect("a key");
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("parameters");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    (params, key)
}

impl Pki {
    /// Makes them in `directory`, readable by all (a broker started as
    /// root reads them as its own user).
    pub(crate) fn new(directory: &Path) -> Self {
        let write = |name: &str, text: String| {
            let path = directory.join(name);
            std::fs::write(&path, text).expect("writing a PEM file");
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644))
                .expect("a readable PEM file");
            path
        };
        let (ca_params, ca_key) = authority("netcfg test authority");
        let ca = write(
            "ca.pem",
            ca_params.self_signed(&ca_key).expect("the authority").pem(),
        );
        let (stranger_params, stranger_key) = authority("some other authority");
        let stranger_ca = write(
            "stranger-ca.pem",
            stranger_params
                .self_signed(&stranger_key)
                .expect("the other authority")
                .pem(),
        );
        let server_key = KeyPair::generate().expect("a key");
        let server = CertificateParams::new(vec!["localhost".to_owned()])
            .expect("parameters")
            .signed_by(&server_key, &Issuer::new(ca_params, ca_key))
            .expect("the server's certificate");
        Self {
            ca,
            stranger_ca,
            cert: write("server.pem", server.pem()),
            key: write("server.key", server_key.serialize_pem()),
        }
    }
}
