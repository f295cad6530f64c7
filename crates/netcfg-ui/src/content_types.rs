//! The content type of each kind of file the front end is made of, by
//! extension. Shared by `build.rs` (which refuses a file of any other kind,
//! so nothing is served with a guessed type) and the front end's routes.

/// The content type of `path`, or `None` for an extension the front end
/// does not serve.
pub(crate) fn content_type_of(path: &str) -> Option<&'static str> {
    let (_, extension) = path.rsplit_once('.')?;
    Some(match extension {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => return None,
    })
}
