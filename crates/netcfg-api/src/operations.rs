//! What operators and their tools read, outside the route tables
//! (decisions.md §10): `GET /healthz` (200 while the process serves),
//! `GET /readyz` (200 when the data directory takes a write, 503 when it is
//! full or read-only) and `GET /metrics` (the Prometheus text format).
//!
//! Requests are counted by a middleware around the whole application, by
//! the route's template (the actix resource pattern, so the label set is
//! bounded by the tables), method and status. The store's and the engine's
//! counters, the event subscribers and the notifications are read when
//! `/metrics` is scraped.

use std::time::Instant;

use actix_web::{
    HttpMessage, HttpResponse,
    body::MessageBody,
    dev::{ServiceRequest, ServiceResponse},
    http::header,
    middleware::Next,
    web,
};
use netcfg_service::{IoFault, ServiceError, StoreError};

use crate::{
    auth::{HEALTH, METRICS, READY},
    router::Matched,
    state::AppState,
};

/// The middleware that counts every request (`App::wrap(from_fn(count))`).
pub(crate) async fn count_requests(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let state = request.app_data::<web::Data<AppState>>().cloned();
    let method = request.method().clone();
    let response = next.call(request).await?;
    if let Some(state) = state {
        // The API's routes name their pattern; the others (the front end,
        // these operations) are actix's own resources.
        let matched = response.request().extensions().get::<Matched>().copied();
        let route = match matched {
            Some(Matched(pattern)) => std::borrow::Cow::Borrowed(pattern),
            None => std::borrow::Cow::Owned(
                response
                    .request()
                    .match_pattern()
                    .unwrap_or_else(|| "unmatched".to_owned()),
            ),
        };
        let route = route.as_ref();
        state.metrics().observe(
            route,
            &method,
            response.status().as_u16(),
            started.elapsed(),
        );
    }
    Ok(response)
}

/// Mounts `/healthz`, `/readyz` and `/metrics`.
pub(crate) fn register(config: &mut web::ServiceConfig) {
    config
        .route(HEALTH, web::get().to(health))
        .route(READY, web::get().to(ready))
        .route(METRICS, web::get().to(metrics));
}

fn text(mut response: actix_web::HttpResponseBuilder, body: String) -> HttpResponse {
    response
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .content_type("text/plain; charset=utf-8")
        .body(body)
}

async fn health() -> HttpResponse {
    text(HttpResponse::Ok(), "ok\n".to_owned())
}

async fn ready(state: web::Data<AppState>) -> HttpResponse {
    let why = match state.service().probe_writable().await {
        Ok(()) => None,
        Err(ServiceError::Store(StoreError::Io { fault, .. })) => Some(match fault {
            IoFault::DiskFull => "the data directory is full",
            IoFault::ReadOnly => {
                "the data directory cannot be written (read-only or not permitted)"
            }
            IoFault::Other => "the data directory cannot be written (an I/O error)",
        }),
        Err(_) => Some("the data directory could not be checked"),
    };
    state.metrics().set_ready(why.is_none());
    match why {
        None => text(HttpResponse::Ok(), "ready\n".to_owned()),
        Some(why) => {
            log::warn!("not ready: {why}");
            text(
                HttpResponse::ServiceUnavailable(),
                format!("not ready: {why}\n"),
            )
        }
    }
}

async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let body = state.metrics().render(state.events(), state.service());
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .content_type(prometheus::Encoder::format_type(
            &prometheus::TextEncoder::new(),
        ))
        .body(body)
}
