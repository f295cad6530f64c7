//! The benchmarks' baseline route (`cargo xtask bench`, docs/benchmarks.md).
//!
//! When `NETCFG_BENCH_BASELINE=<file>` is set, the server reads the file once
//! at start and serves its bytes, already rendered, on `GET /_bench/baseline`
//! through the same actix server, workers and middleware as the API. The
//! rate of that route is this framework's ceiling on this machine, the
//! denominator of the read benchmark. Without the variable the route does
//! not exist. Only the bench sets it; it is not a setting, so it is kept out
//! of the `NETCFG_<KEY>` settings (which refuse unknown keys).

use std::path::PathBuf;

use actix_web::{HttpResponse, web};
use anyhow::{Context, Result};

/// The environment variable that names the file to serve.
pub(crate) const VARIABLE: &str = "NETCFG_BENCH_BASELINE";
/// Where the bytes are served.
pub(crate) const PATH: &str = "/_bench/baseline";

/// The bytes of the baseline route, when the bench asked for it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Baseline(Option<web::Bytes>);

impl Baseline {
    /// Reads the file named by [`VARIABLE`], if it is set.
    pub(crate) fn from_env() -> Result<Self> {
        let Some(path) = std::env::var_os(VARIABLE).map(PathBuf::from) else {
            return Ok(Self(None));
        };
        let bytes = std::fs::read(&path)
            .with_context(|| format!("{VARIABLE}: could not read {}", path.display()))?;
        log::info!(
            "benchmark baseline: {} bytes of {} on GET {PATH}",
            bytes.len(),
            path.display()
        );
        Ok(Self(Some(web::Bytes::from(bytes))))
    }

    /// Whether an environment variable is this one, which the settings must
    /// not see.
    pub(crate) fn is_variable(name: &str) -> bool {
        name == VARIABLE
    }

    /// Adds `GET /_bench/baseline` when there are bytes to serve.
    pub(crate) fn register(&self, config: &mut web::ServiceConfig) {
        if let Some(bytes) = &self.0 {
            let bytes = bytes.clone();
            config.route(
                PATH,
                web::get().to(move || {
                    let body = bytes.clone();
                    async move {
                        HttpResponse::Ok()
                            .content_type("application/json")
                            .body(body)
                    }
                }),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use actix_web::{App, test as actix_test};

    use super::*;

    /// The answer of an app that serves `baseline` to a GET of its path.
    async fn get(baseline: Baseline) -> actix_web::dev::ServiceResponse {
        let app =
            actix_test::init_service(App::new().configure(|config| baseline.register(config)))
                .await;
        actix_test::call_service(&app, actix_test::TestRequest::get().uri(PATH).to_request()).await
    }

    #[actix_web::test]
    async fn serves_the_bytes_as_they_are() {
        let response = get(Baseline(Some(web::Bytes::from_static(b"{\"devices\":[]}")))).await;
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers().get("content-type").unwrap(),
            "application/json"
        );
        assert_eq!(actix_test::read_body(response).await, "{\"devices\":[]}");
    }

    #[actix_web::test]
    async fn does_not_exist_without_the_variable() {
        let response = get(Baseline::default()).await;
        assert_eq!(response.status(), 404);
    }

    #[test]
    fn only_the_baseline_variable_is_kept_from_the_settings() {
        assert!(Baseline::is_variable("NETCFG_BENCH_BASELINE"));
        assert!(!Baseline::is_variable("NETCFG_PORT"));
    }
}
