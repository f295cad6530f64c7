//! The blocking HTTP client of outbound calls (webhooks, and the service's
//! single sign-on): ureq through rustls with the ring provider, trusting a
//! given CA file or the system's roots, never following a redirect (a
//! webhook's redirect is a refusal; OpenID Connect forbids following them
//! on its back channel).

use std::{sync::Arc, time::Duration};

use ureq::{
    Agent,
    tls::{Certificate, RootCerts, TlsConfig, TlsProvider},
};

use crate::tls::{self, TlsError};

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// An agent whose requests take at most `timeout` each, and whose `https`
/// trusts `ca_file`'s certificates (PEM) or, with none, the system's.
/// Statuses are answers, not errors: the caller reads them.
pub fn http_agent(ca_file: Option<&str>, timeout: Duration) -> Result<Agent, TlsError> {
    let roots: Vec<Certificate<'static>> = tls::root_certificates(ca_file)?
        .iter()
        .map(|der| Certificate::from_der(der.as_ref()).to_owned())
        .collect();
    let config = config(timeout).tls_config(
        TlsConfig::builder()
            .provider(TlsProvider::Rustls)
            .root_certs(RootCerts::Specific(Arc::new(roots)))
            .unversioned_rustls_crypto_provider(tls::provider())
            .build(),
    );
    Ok(Agent::new_with_config(config.build()))
}

/// [`http_agent`] for plain `http://` only: it reads no certificates, so a
/// missing CA file cannot stop it.
pub(crate) fn plain_http_agent(timeout: Duration) -> Agent {
    Agent::new_with_config(config(timeout).build())
}

/// What every agent shares: time limits, no redirects, statuses as answers.
fn config(timeout: Duration) -> ureq::config::ConfigBuilder<ureq::typestate::AgentScope> {
    Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        .timeout_global(Some(timeout))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .user_agent(concat!("netcfg/", env!("CARGO_PKG_VERSION")))
}
