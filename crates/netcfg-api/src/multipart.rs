//! Reading a `multipart/form-data` body (the upload form) that is already in
//! memory, within the upload limit. Strict: a malformed form is a 400 that
//! says what is wrong, never a guess.

use actix_web::http::header;

use crate::{context::Ctx, error_code::ErrorCode, reply::ApiError};

/// One field of a form.
#[derive(Debug)]
pub(crate) struct Part<'a> {
    pub(crate) name: String,
    pub(crate) file_name: Option<String>,
    pub(crate) bytes: &'a [u8],
}

/// The fields of a form, in order.
#[derive(Debug)]
pub(crate) struct Form<'a> {
    parts: Vec<Part<'a>>,
}

impl<'a> Form<'a> {
    /// The first field `name` that carries a file.
    pub(crate) fn file(&self, name: &str) -> Option<&Part<'a>> {
        self.parts
            .iter()
            .find(|part| part.name == name && part.file_name.is_some())
            .or_else(|| self.parts.iter().find(|part| part.name == name))
    }

    /// The text of the field `name`, if it is UTF-8.
    pub(crate) fn text(&self, name: &str) -> Option<&'a str> {
        self.parts
            .iter()
            .find(|part| part.name == name && part.file_name.is_none())
            .and_then(|part| std::str::from_utf8(part.bytes).ok())
            .map(str::trim)
    }
}

fn bad(message: impl std::fmt::Display) -> ApiError {
    ApiError::problem(
        ErrorCode::InvalidUpload,
        "",
        format!("the multipart form is malformed: {message}"),
    )
}

/// The form in the request's body.
pub(crate) fn parse(context: &Ctx) -> Result<Form<'_>, ApiError> {
    let content_type = context
        .request()
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let boundary = boundary(content_type).ok_or_else(|| bad("the Content-Type has no boundary"))?;
    parse_body(context.raw_body(), &boundary)
}

/// The `boundary` parameter of a `multipart/form-data` content type.
fn boundary(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (key, value) = parameter.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"').to_owned())
            .filter(|boundary| !boundary.is_empty() && boundary.len() <= 200)
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

pub(crate) fn parse_body<'a>(body: &'a [u8], boundary: &str) -> Result<Form<'a>, ApiError> {
    if body.is_empty() {
        return Err(ApiError::problem(
            ErrorCode::InvalidUpload,
            "net_file",
            "the upload form is empty; send the file in the field net_file",
        ));
    }
    let delimiter = format!("--{boundary}");
    let start =
        find(body, delimiter.as_bytes()).ok_or_else(|| bad("the boundary never appears"))?;
    let mut rest = &body[start + delimiter.len()..];
    let next_delimiter = format!("\r\n--{boundary}");
    let mut parts = Vec::new();
    loop {
        if rest.starts_with(b"--") {
            break;
        }
        rest = rest
            .strip_prefix(b"\r\n")
            .ok_or_else(|| bad("a boundary is not followed by a line break"))?;
        let headers_end = find(rest, b"\r\n\r\n")
            .ok_or_else(|| bad("a part has no blank line after its headers"))?;
        let headers = std::str::from_utf8(&rest[..headers_end])
            .map_err(|_| bad("a part's headers are not UTF-8"))?;
        let content = &rest[headers_end + 4..];
        let content_end = find(content, next_delimiter.as_bytes())
            .ok_or_else(|| bad("the form has no closing boundary"))?;
        let (name, file_name) = disposition(headers)?;
        parts.push(Part {
            name,
            file_name,
            bytes: &content[..content_end],
        });
        rest = &content[content_end + next_delimiter.len()..];
    }
    Ok(Form { parts })
}

/// The `name` and `filename` of a part's `Content-Disposition` header.
fn disposition(headers: &str) -> Result<(String, Option<String>), ApiError> {
    let line = headers
        .split("\r\n")
        .find(|line| {
            line.to_ascii_lowercase()
                .starts_with("content-disposition:")
        })
        .ok_or_else(|| bad("a part has no Content-Disposition"))?;
    let mut name = None;
    let mut file_name = None;
    for parameter in line.split(';').skip(1) {
        if let Some((key, value)) = parameter.split_once('=') {
            let value = value.trim().trim_matches('"').to_owned();
            match key.trim().to_ascii_lowercase().as_str() {
                "name" => name = Some(value),
                "filename" => file_name = Some(value),
                _ => {}
            }
        }
    }
    Ok((name.ok_or_else(|| bad("a part has no name"))?, file_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_file_and_a_text_field() {
        let body = b"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nsite-a\r\n--XyZ\r\nContent-Disposition: form-data; name=\"net_file\"; filename=\"site.sqlite\"\r\nContent-Type: application/octet-stream\r\n\r\n\x00\x01\r\n--X\r\n--XyZ--\r\n";
        let form = parse_body(body, "XyZ").unwrap();
        assert_eq!(form.text("name"), Some("site-a"));
        let file = form.file("net_file").unwrap();
        assert_eq!(file.file_name.as_deref(), Some("site.sqlite"));
        assert_eq!(file.bytes, b"\x00\x01\r\n--X");
    }

    #[test]
    fn malformed_forms_are_refused_with_a_reason() {
        for (body, reason) in [
            (&b"no boundary here"[..], "never appears"),
            (
                b"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated",
                "closing boundary",
            ),
            (b"--XyZ\r\nX: y\r\n\r\nv\r\n--XyZ--", "Content-Disposition"),
            (
                b"--XyZ\r\nContent-Disposition: form-data\r\n\r\nv\r\n--XyZ--",
                "no name",
            ),
        ] {
            let error = parse_body(body, "XyZ").unwrap_err();
            assert!(error.message.contains(reason), "{}", error.message);
        }
        assert_eq!(
            boundary("multipart/form-data; boundary=\"a b\""),
            Some("a b".to_owned())
        );
        assert_eq!(boundary("multipart/form-data"), None);
    }
}
