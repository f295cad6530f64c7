//! The web front end of netcfg (decisions.md §9), in a crate of its own:
//! `GET /` serves the single-page application and `/ui/...` its assets:
//! plain ES modules, a stylesheet and the vendored libraries of
//! `ui/vendor/`. [`register`] mounts both routes in any actix-web
//! application.
//!
//! What holds, and what its tests check:
//! - it serves files and nothing else: no state, no data, no other route;
//!   every other method than `GET` and `HEAD` is answered 405;
//! - in the browser, the application talks to nothing but the public 5.1
//!   API and its event streams (and never to another host: the
//!   Content-Security-Policy allows only this server's own files);
//! - no JavaScript toolchain runs at build or run time: the files under
//!   `ui/` are served as they are in the source tree;
//! - they are embedded in the binary at compile time by `build.rs` (a table
//!   of every file under `ui/`, each with its content type from
//!   `src/content_types.rs`; a file of an unknown kind stops the build), so
//!   the server needs nothing beside it. Anything that must not be served
//!   (the type-checking configuration, type declarations, tests) lives
//!   outside `ui/`.
//!
//! Every answer carries a strong `ETag` (a digest of the file) and
//! `Cache-Control: no-cache`, so a browser revalidates with one 304 instead
//! of running stale code after an upgrade; and a Content-Security-Policy
//! that lets the page load nothing but this server's own files.

// Debug builds serve DEV_UI_DIR's files by their kind, as build.rs does.
#[cfg(debug_assertions)]
mod content_types;

use std::sync::LazyLock;

use actix_web::{
    HttpRequest, HttpResponse,
    http::header::{self, HeaderValue},
    web,
};
use sha2::{Digest, Sha256};

/// One embedded file of the front end.
#[derive(Debug)]
pub struct Asset {
    /// Its path under `/ui/`, with `/` separators.
    pub path: &'static str,
    /// What it is served as (`src/content_types.rs`).
    pub content_type: &'static str,
    /// Its bytes, as they are in the source tree.
    pub bytes: &'static [u8],
}

/// Every file under `ui/`, sorted by path (written by `build.rs`).
static ASSETS: &[Asset] = include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));

/// The strong entity tag of each asset, in the order of [`ASSETS`].
static ETAGS: LazyLock<Vec<String>> = LazyLock::new(|| {
    ASSETS
        .iter()
        .map(|asset| {
            let digest = Sha256::digest(asset.bytes);
            let hex: String = digest[..16]
                .iter()
                .map(|byte| format!("{byte:02x}"))
                .collect();
            format!("\"{hex}\"")
        })
        .collect()
});

/// The page `GET /` serves.
const INDEX: &str = "index.html";

/// Only this server's own files, no inline script, no framing. Styles set
/// through the DOM (`element.style`) are not inline styles and need no
/// exception; images may be `data:` or `blob:` URLs (the group image, a
/// download's preview).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Every embedded file.
pub fn assets() -> &'static [Asset] {
    ASSETS
}

fn find(path: &str) -> Option<usize> {
    ASSETS.binary_search_by(|asset| asset.path.cmp(path)).ok()
}

/// Mounts `/` and `/ui/{path}`. The assets are a scope: actix compares its
/// prefix as text, and the expression of `{path:.*}` runs only on paths
/// under `/ui/`, not on every request the server takes.
pub fn register(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/")
            .route(web::get().to(index))
            .route(web::head().to(index))
            .default_service(web::to(only_reads)),
    );
    config.service(
        web::scope("/ui").service(
            web::resource("/{path:.*}")
                .route(web::get().to(asset))
                .route(web::head().to(asset))
                .default_service(web::to(only_reads)),
        ),
    );
}

async fn index(request: HttpRequest) -> HttpResponse {
    serve(&request, INDEX).await
}

async fn asset(request: HttpRequest, path: web::Path<String>) -> HttpResponse {
    serve(&request, &path).await
}

async fn only_reads() -> HttpResponse {
    HttpResponse::MethodNotAllowed()
        .insert_header((header::ALLOW, "GET, HEAD"))
        .content_type("text/plain; charset=utf-8")
        .body("the front end's files are only read (GET, HEAD)\n")
}

async fn serve(request: &HttpRequest, path: &str) -> HttpResponse {
    #[cfg(debug_assertions)]
    if let Some(response) = development::serve(path).await {
        return response;
    }
    let Some(index) = find(path) else {
        return not_found(path);
    };
    let asset = &ASSETS[index];
    let etag = &ETAGS[index];
    let fresh = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|tag| tag.trim() == etag || tag.trim() == "*")
        });
    let mut response = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::ETAG, etag.as_str()))
        .insert_header((header::CACHE_CONTROL, "no-cache"));
    secure(&mut response);
    if fresh {
        return response.finish();
    }
    response.content_type(asset.content_type).body(asset.bytes)
}

/// The headers every front-end answer carries.
fn secure(response: &mut actix_web::HttpResponseBuilder) {
    response
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"));
}

fn not_found(path: &str) -> HttpResponse {
    HttpResponse::NotFound()
        .content_type("text/plain; charset=utf-8")
        .body(format!("the front end has no file {path:?}\n"))
}

/// Debug builds only: with `DEV_UI_DIR` set (not `NETCFG_...`: that prefix
/// is the server's settings) to a directory (the source
/// `ui/` directory), files are read from it at each request, so the front
/// end's code can be changed and reloaded without rebuilding the server.
/// Release builds always serve the embedded files.
#[cfg(debug_assertions)]
mod development {
    use std::path::PathBuf;

    use actix_web::{HttpResponse, http::header, web};

    use crate::content_types::content_type_of;

    pub(super) async fn serve(path: &str) -> Option<HttpResponse> {
        let root = PathBuf::from(std::env::var_os("DEV_UI_DIR")?);
        let safe = path.split('/').all(|segment| {
            !segment.is_empty() && segment != "." && segment != ".." && !segment.contains('\\')
        });
        if !safe {
            return Some(super::not_found(path));
        }
        let file = root.join(path);
        let content_type = content_type_of(path).unwrap_or("application/octet-stream");
        match web::block(move || std::fs::read(file)).await {
            Ok(Ok(bytes)) => {
                let mut response = HttpResponse::Ok();
                response.insert_header((header::CACHE_CONTROL, "no-store"));
                super::secure(&mut response);
                Some(response.content_type(content_type).body(bytes))
            }
            _ => Some(super::not_found(path)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_holds_the_page_and_its_libraries() {
        assert!(ASSETS.windows(2).all(|pair| pair[0].path < pair[1].path));
        for path in [
            INDEX,
            "app.js",
            "style.css",
            "vendor/preact.mjs",
            "vendor/hooks.mjs",
            "vendor/htm.mjs",
        ] {
            assert!(find(path).is_some(), "{path} is not embedded");
        }
    }
}
