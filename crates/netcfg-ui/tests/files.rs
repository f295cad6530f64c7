//! The web front end's files through its own routes (decisions.md §9),
//! mounted alone in an actix-web test application: `/` and every file under
//! `/ui/` served with its type, bytes, entity tag and security headers;
//! revalidation; writes refused; and the files' references checked
//! statically, so a module that imports a file that is not embedded, or
//! anything from another host, fails here. That the files load before a
//! token is known, through the API's gate, is netcfg-api's test
//! (tests/it/front_end.rs).

use std::collections::BTreeSet;

use actix_web::{
    App,
    http::{StatusCode, header},
    test as actix_test,
};
use netcfg_ui as front_end;

async fn get(
    uri: &str,
    headers: &[(header::HeaderName, &str)],
) -> (StatusCode, header::HeaderMap, Vec<u8>) {
    let app = actix_test::init_service(App::new().configure(front_end::register)).await;
    let mut request = actix_test::TestRequest::get().uri(uri);
    for (name, value) in headers {
        request = request.insert_header((name.clone(), *value));
    }
    let response = actix_test::call_service(&app, request.to_request()).await;
    let status = response.status();
    let headers = response.headers().clone();
    let body = actix_test::read_body(response).await.to_vec();
    (status, headers, body)
}

fn header_of(headers: &header::HeaderMap, name: header::HeaderName) -> &str {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
}

#[actix_web::test]
async fn the_page_and_every_file_are_served_with_their_type_and_bytes() {
    let (status, headers, body) = get("/", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        header_of(&headers, header::CONTENT_TYPE),
        "text/html; charset=utf-8"
    );
    let page = String::from_utf8(body).expect("UTF-8");
    assert!(
        page.contains(r#"<script type="module" src="/ui/app.js"></script>"#),
        "{page}"
    );

    assert!(!front_end::assets().is_empty());
    for asset in front_end::assets() {
        let (status, headers, body) = get(&format!("/ui/{}", asset.path), &[]).await;
        assert_eq!(status, StatusCode::OK, "{}", asset.path);
        assert_eq!(
            header_of(&headers, header::CONTENT_TYPE),
            asset.content_type,
            "{}",
            asset.path
        );
        assert_eq!(body, asset.bytes, "{}", asset.path);
        assert_eq!(header_of(&headers, header::CACHE_CONTROL), "no-cache");
        assert_eq!(
            header_of(&headers, header::CONTENT_SECURITY_POLICY),
            front_end::CONTENT_SECURITY_POLICY
        );
        assert_eq!(
            header_of(&headers, header::X_CONTENT_TYPE_OPTIONS),
            "nosniff"
        );
    }
}

#[actix_web::test]
async fn a_browser_revalidates_with_the_entity_tag() {
    let (_, headers, _) = get("/ui/app.js", &[]).await;
    let etag = header_of(&headers, header::ETAG).to_owned();
    assert!(
        etag.starts_with('"') && etag.len() > 10,
        "a strong tag: {etag}"
    );

    let (status, headers, body) = get("/ui/app.js", &[(header::IF_NONE_MATCH, &etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    assert_eq!(header_of(&headers, header::ETAG), etag);

    let (status, _, _) = get("/ui/app.js", &[(header::IF_NONE_MATCH, "\"stale\"")]).await;
    assert_eq!(status, StatusCode::OK);
    let (_, page_headers, _) = get("/", &[]).await;
    assert_ne!(
        header_of(&page_headers, header::ETAG),
        etag,
        "each file has its own tag"
    );
}

#[actix_web::test]
async fn unknown_files_and_writes_are_refused() {
    let (status, headers, _) = get("/ui/no-such-file.js", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(header_of(&headers, header::CONTENT_TYPE).starts_with("text/plain"));
    let (status, _, _) = get("/ui/../Cargo.toml", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let app = actix_test::init_service(App::new().configure(front_end::register)).await;
    let response =
        actix_test::call_service(&app, actix_test::TestRequest::post().uri("/").to_request()).await;
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header_of(response.headers(), header::ALLOW), "GET, HEAD");
}

/// The relative module imports of a JavaScript file (`from "./x.js"`,
/// `import("./x.js")`), resolved against the file's directory.
fn imports_of(path: &str, source: &str) -> Vec<String> {
    let directory = path.rsplit_once('/').map_or("", |(directory, _)| directory);
    let mut found = Vec::new();
    for marker in ["from \"", "from\"", "import(\"", "import \""] {
        for (start, _) in source.match_indices(marker) {
            let rest = &source[start + marker.len()..];
            let Some(end) = rest.find('"') else { continue };
            let target = &rest[..end];
            if target.starts_with("./") || target.starts_with("../") {
                found.push(resolve(directory, target));
            }
        }
    }
    found
}

fn resolve(directory: &str, target: &str) -> String {
    let mut parts: Vec<&str> = directory
        .split('/')
        .filter(|part| !part.is_empty())
        .collect();
    for segment in target.split('/') {
        match segment {
            "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

#[test]
fn every_import_and_every_view_resolves_to_an_embedded_file() {
    let embedded: BTreeSet<&str> = front_end::assets().iter().map(|asset| asset.path).collect();
    for asset in front_end::assets() {
        if !asset.content_type.starts_with("text/javascript") {
            continue;
        }
        let source = std::str::from_utf8(asset.bytes).expect("UTF-8");
        for import in imports_of(asset.path, source) {
            assert!(
                embedded.contains(import.as_str()),
                "{} imports {import}, which is not embedded",
                asset.path
            );
        }
    }
    // The views are loaded by name (`import(`./views/${module}.js`)`): each
    // name in the table of views (lib/views.js) must be a file.
    let table = front_end::assets()
        .iter()
        .find(|asset| asset.path == "lib/views.js")
        .expect("lib/views.js");
    let table = std::str::from_utf8(table.bytes).expect("UTF-8");
    let modules: Vec<&str> = table
        .match_indices("module: \"")
        .map(|(start, marker)| {
            let rest = &table[start + marker.len()..];
            &rest[..rest.find('"').expect("a closing quote")]
        })
        .collect();
    assert!(modules.len() >= 10, "the views: {modules:?}");
    for module in modules {
        let file = format!("views/{module}.js");
        assert!(
            embedded.contains(file.as_str()),
            "lib/views.js names the view {module}, but {file} is not embedded"
        );
    }
}

/// Whether a JavaScript module is comments and `export {};` only: it runs
/// nothing, so loads nothing (the JSDoc types, `lib/types.js` generated from
/// the OpenAPI document, whose descriptions name URL schemes).
fn is_comments_only(source: &str) -> bool {
    let mut in_block = false;
    source.lines().map(str::trim).all(|line| {
        if in_block {
            in_block = !line.contains("*/");
            return true;
        }
        if line.starts_with("/*") {
            in_block = !line.contains("*/");
            return true;
        }
        line.is_empty() || line.starts_with("//") || line == "export {};"
    }) && !in_block
}

#[test]
fn nothing_is_loaded_from_another_host() {
    let mut types_only = 0;
    for asset in front_end::assets() {
        if asset.content_type.starts_with("text/plain") {
            continue; // licences and notes
        }
        if asset.content_type.starts_with("text/javascript")
            && is_comments_only(&String::from_utf8_lossy(asset.bytes))
        {
            types_only += 1;
            continue;
        }
        let text = String::from_utf8_lossy(asset.bytes);
        for scheme in ["http://", "https://", "//cdn", "ws://", "wss://"] {
            for (start, _) in text.match_indices(scheme) {
                let rest = &text[start..];
                // XML namespaces name a vocabulary; nothing is fetched from them.
                let namespace = rest.starts_with("http://www.w3.org/");
                assert!(
                    namespace,
                    "{} refers to {}",
                    asset.path,
                    &rest[..rest.len().min(60)]
                );
            }
        }
    }
    // The types' modules, and no other: a module with code is scanned.
    assert_eq!(
        types_only, 3,
        "lib/types.js, lib/types_events.js and lib/types_extra.js"
    );
}
