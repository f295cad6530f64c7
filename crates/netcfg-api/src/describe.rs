//! The API describes itself: `GET /api.json` (the OpenAPI document of the
//! selected table, as JSON or as an HTML page) and `GET /api` (an
//! interactive browser that can switch between the two documents).

use actix_web::{
    HttpResponse,
    http::{StatusCode, header},
    web,
};
use netcfg_model::Level;
use utoipa_swagger_ui::{Config, SwaggerUi, Url};

use crate::{
    context::Ctx,
    error_code::ErrorCode,
    operation::Operation,
    path::NoPath,
    reply::{ApiError, Reply},
    table::{Payload, Route},
    tables::Tables,
    version::ApiVersion,
};

/// The `GET /api.json` row of every table.
pub(crate) fn api_json_route() -> Route {
    Route::new(
        actix_web::http::Method::GET,
        &["/api.json"],
        Operation::GetApiDescription,
        "The API description of the selected table: OpenAPI 3.1 as JSON, or an HTML page for `Accept: text/html`",
        api_json,
    )
    .open_to_all()
    .responds(StatusCode::OK, Payload::File { content_type: "application/json" }, Level::Debug)
}

async fn api_json(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    {
        let version = match context.query("version") {
            Some(text) => text.parse::<ApiVersion>().map_err(|error| {
                ApiError::problem(ErrorCode::InvalidParameter, "version", error.to_string())
            })?,
            None => context.version(),
        };
        let tables = context
            .request()
            .app_data::<web::Data<Tables>>()
            .ok_or_else(|| ApiError::internal("the route tables are not in the app's data"))?;
        if prefers_html(&context) {
            let document = tables.document(version);
            return Ok(Reply::html(render_html(&document, version)));
        }
        let bytes = tables.document_bytes(version);
        Ok(Reply::document(bytes, "application/json"))
    }
}

/// True when the client asks for HTML before JSON.
fn prefers_html(context: &Ctx) -> bool {
    let accept = context
        .request()
        .headers()
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let position = |media: &str| accept.find(media);
    match (position("text/html"), position("application/json")) {
        (Some(_), None) => true,
        (Some(html), Some(json)) => html < json,
        _ => false,
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A plain HTML rendering of the document: every operation with its
/// responses, readable without JavaScript.
fn render_html(document: &crate::openapi::Document, version: ApiVersion) -> String {
    let mut rows = String::new();
    for (path, operations) in &document.paths {
        for (method, operation) in operations {
            let responses: Vec<String> = operation
                .responses
                .iter()
                .map(|(status, response)| format!("{status} {}", escape(&response.description)))
                .collect();
            rows.push_str(&format!(
                "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
                method.to_uppercase(),
                escape(path),
                escape(operation.summary),
                responses.join("<br>"),
            ));
        }
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>netcfg API {version}</title>\
         <style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}}</style></head>\n\
         <body><h1>netcfg API {version}</h1><p>{}</p>\
         <p>Interactive browser: <a href=\"/api/\">/api</a>. JSON: <a href=\"/api.json?version={short}\">/api.json?version={short}</a>.</p>\n\
         <table><tr><th>Method</th><th>Path</th><th>Summary</th><th>Responses</th></tr>\n{rows}</table></body></html>\n",
        escape(&document.info.description),
        short = version.short(),
    )
}

/// Mounts the interactive browser on `/api/`, with both documents: in a
/// scope, whose prefix actix compares as text, so that the browser's
/// expression runs only on paths under `/api/`.
pub(crate) fn register_browser(config: &mut web::ServiceConfig) {
    let urls = ApiVersion::ALL.map(|version| match version {
        ApiVersion::V5_1 => Url::new("API 5.1", "/api.json?version=5.1"),
        ApiVersion::V5_0 => Url::new("API 5.0", "/api.json?version=5.0"),
    });
    config.route(
        "/api",
        web::get().to(|| async {
            HttpResponse::PermanentRedirect()
                .insert_header((header::LOCATION, "/api/"))
                .finish()
        }),
    );
    config.service(
        web::scope("/api")
            .service(SwaggerUi::new("/{_:.*}").config(Config::new(urls).try_it_out_enabled(true))),
    );
}
