//! Serving the route tables: a request whose path matched a pattern of
//! either table (crate::router) goes to the row of the version it selected.

use std::{collections::BTreeSet, pin::Pin};

use actix_web::{
    HttpMessage, HttpRequest, HttpResponse,
    http::{
        StatusCode,
        header::{self, HeaderValue},
    },
    web,
};
use futures_core::Stream;
use netcfg_service::Service;

use crate::{
    conditional,
    context::Ctx,
    error_code::ErrorCode,
    events::data::ChangeEvent,
    render::{render_error, render_reply},
    reply::{ApiError, Reply},
    state::AppState,
    table::{Body, Route, Table},
    tables::Tables,
    version::ApiVersion,
};

/// The largest JSON body, in bytes: 1 MiB.
pub const JSON_BODY_LIMIT: usize = 1 << 20;
/// The largest file sent as a whole body (an uploaded recording); the
/// recordings' own limits apply too.
pub(crate) const FILE_BODY_LIMIT: usize = 4 << 30;
/// The largest upload, in bytes: 64 MiB.
pub const UPLOAD_BODY_LIMIT: usize = 64 << 20;

/// The version the version middleware chose for this request.
pub(crate) fn request_version(request: &HttpRequest, state: &AppState) -> ApiVersion {
    request
        .extensions()
        .get::<ApiVersion>()
        .copied()
        .unwrap_or(state.default_version)
}

/// Every path pattern of every table, ordered so that the router
/// (crate::router) tries static segments before parameters (`/nets/upload`
/// before `/nets/{net_name}`).
pub(crate) fn patterns(tables: &Tables) -> Vec<&'static str> {
    let unique: BTreeSet<&'static str> = tables
        .tables()
        .flat_map(|table| {
            table
                .routes
                .iter()
                .flat_map(|route| route.paths.iter().copied())
        })
        .collect();
    let mut patterns: Vec<&'static str> = unique.into_iter().collect();
    patterns.sort_by_key(|pattern| specificity(pattern));
    patterns
}

/// A sort key: per segment 0 for static, 1 for a parameter beside text, 2 for
/// a bare parameter. (A pattern matches a whole path, so only patterns with
/// as many segments compete; among them the more static one must come first.)
pub(crate) fn specificity(pattern: &str) -> Vec<u8> {
    pattern
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            match (
                segment.starts_with('{') && segment.ends_with('}'),
                segment.contains('{'),
            ) {
                (true, _) if segment.matches('{').count() == 1 => 2,
                (_, true) => 1,
                _ => 0,
            }
        })
        .collect()
}

/// The shape of a pattern: its parameters' names erased. Two patterns of
/// one shape match the same requests (`/position_limits/{id}` in 5.1,
/// `/position_limits/{name}` in 5.0).
pub(crate) fn shape(pattern: &str) -> String {
    let mut shape = String::with_capacity(pattern.len());
    let mut in_parameter = false;
    for character in pattern.chars() {
        match character {
            '{' => {
                in_parameter = true;
                shape.push('{');
            }
            '}' => {
                in_parameter = false;
                shape.push('}');
            }
            _ if in_parameter => {}
            other => shape.push(other),
        }
    }
    shape
}

/// Answers a request whose path matched `pattern` (crate::router): the
/// row of the version the request selected and its method.
pub(crate) async fn dispatch(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    tables: web::Data<Tables>,
    pattern: &'static str,
) -> HttpResponse {
    let version = request_version(&request, &state);
    let route = match select_route(&request, tables.table(version), pattern, version) {
        Ok(route) => route,
        Err(refusal) => return *refusal,
    };
    if let Some(refused) = crate::access::refusal(&request, route, state.service(), version) {
        return refused;
    }
    let (body, stream) = match read_body(&request, payload, route).await {
        Ok(body) => body,
        Err(error) => {
            let mut response = render_error(&error, Some(route), version);
            if error.status == StatusCode::PAYLOAD_TOO_LARGE {
                // Do not read the rest of a body already refused.
                response
                    .head_mut()
                    .set_connection_type(actix_web::http::ConnectionType::Close);
            }
            return response;
        }
    };
    let service = state.service();
    // A bad path or body is a 400 whatever the tag: read them before
    // comparing.
    if conditional::compares(&request, route) {
        let checked = (route.check_path)(&request)
            .and_then(|()| route.check_body.map_or(Ok(()), |check| check(&body)));
        if let Err(error) = checked {
            return render_error(&error, Some(route), version);
        }
    }
    let precondition = match conditional::precondition(&request, route, service, version).await {
        Ok(precondition) => precondition,
        Err(error) => return render_error(&error, Some(route), version),
    };
    let stamped = conditional::tag_before_reading(&request, route, service, version).await;
    let kept = request.clone();
    let context = Ctx {
        request,
        body,
        stream,
        version,
        state: state.clone(),
        precondition,
        summary: route.summary,
    };
    match route.handler.call(context).await {
        Ok(mut reply) => {
            if route.changes {
                publish_change(&kept, route, &reply, &state);
                if version == ApiVersion::V5_1 {
                    say_restart_needed(&kept, &mut reply, service).await;
                }
            }
            let sent = reply.sent.clone();
            if let Some(answer) = sent
                .as_ref()
                .and_then(|sent| sent.answer(&kept, version, stamped.as_deref()))
            {
                return answer;
            }
            let memo = sent.as_deref().map(|sent| (sent, version));
            let cookies = std::mem::take(&mut reply.set_cookies);
            let mut response = conditional::tagged(
                &kept,
                route,
                render_reply(reply, route, version),
                stamped,
                memo,
            );
            for value in cookies
                .iter()
                .filter_map(|cookie| HeaderValue::from_str(cookie).ok())
            {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
            response
        }
        Err(error) => render_error(&error, Some(route), version),
    }
}

/// The row of `table` that answers `request` on `pattern`, or the answer
/// that refuses it: the path is another version's, or its method is not
/// the row's.
fn select_route<'t>(
    request: &HttpRequest,
    table: &'t Table,
    pattern: &'static str,
    version: ApiVersion,
) -> Result<&'t Route, Box<HttpResponse>> {
    let candidates: Vec<&Route> = table
        .routes
        .iter()
        .filter(|route| route.paths.contains(&pattern))
        .collect();
    if candidates.is_empty() {
        let other = ApiVersion::ALL
            .into_iter()
            .find(|other| *other != version)
            .unwrap_or(version);
        let message = format!(
            "{} {} does not exist in API version {}; it exists in version {} (select it with the header `Api-Version: {}`)",
            request.method(),
            request.path(),
            version.short(),
            other.short(),
            other.short()
        );
        return Err(Box::new(render_error(
            &ApiError::new(ErrorCode::RouteInOtherVersion, message),
            None,
            version,
        )));
    }
    candidates
        .iter()
        .find(|route| route.method == request.method())
        .copied()
        .ok_or_else(|| Box::new(method_not_allowed(request, &candidates, version)))
}

/// Adds to the message of a successful write to a running configuration
/// that its network waits for a restart, when it does (5.1): a change of
/// its devices, roles, streams or settings reaches the network only then.
async fn say_restart_needed(request: &HttpRequest, reply: &mut Reply, service: &Service) {
    let Some(net) = request
        .match_info()
        .get("net_name")
        .and_then(|name| name.parse::<netcfg_model::ConfigName>().ok())
    else {
        return;
    };
    if !service.is_running(&net) {
        return;
    }
    if let Ok(true) = service.restart_needed(&net).await {
        reply.message.push_str(&format!(
            ". Configuration {net} is running: its network takes this change when it is restarted or reloaded (restart_needed)"
        ));
    }
}

/// Publishes a `change` event for a successful write: of the configuration
/// its path names, or that it made.
fn publish_change(request: &HttpRequest, route: &Route, reply: &Reply, state: &AppState) {
    let named = request
        .match_info()
        .get("net_name")
        .and_then(|name| name.parse::<netcfg_model::ConfigName>().ok());
    let Some(net) = reply.made.clone().or(named) else {
        return;
    };
    state.events().change(&net, || ChangeEvent {
        net: net.to_string(),
        resource: route.paths[0].to_owned(),
        method: request.method().to_string(),
        path: request.path().to_owned(),
    });
}

fn method_not_allowed(
    request: &HttpRequest,
    candidates: &[&Route],
    version: ApiVersion,
) -> HttpResponse {
    let allowed: Vec<&str> = candidates
        .iter()
        .map(|route| route.method.as_str())
        .collect();
    let message = format!(
        "{} is not allowed on {}; allowed: {}",
        request.method(),
        request.path(),
        allowed.join(", ")
    );
    let mut response = render_error(
        &ApiError::new(ErrorCode::MethodNotAllowed, message),
        None,
        version,
    );
    if let Ok(value) = HeaderValue::from_str(&allowed.join(", ")) {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

/// Reads the body of a route that takes one: checks its media type and size.
/// A JSON body is read whole (at most 1 MiB); a multipart body is handed on
/// as a stream, for the handler to read as it arrives (it counts the limit).
async fn read_body(
    request: &HttpRequest,
    mut payload: web::Payload,
    route: &Route,
) -> Result<(web::Bytes, Option<web::Payload>), ApiError> {
    let Some(body) = route.body else {
        return Ok((web::Bytes::new(), None));
    };
    let (expected, limit) = match body {
        Body::Json(_) => ("application/json", JSON_BODY_LIMIT),
        Body::Multipart(_) => ("multipart/form-data", UPLOAD_BODY_LIMIT),
        Body::File(media_type) => (media_type, FILE_BODY_LIMIT),
    };
    let declared_length = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse::<usize>().ok());
    let too_large = || {
        ApiError::new(
            ErrorCode::BodyTooLarge,
            format!("the body is larger than the limit of {limit} bytes"),
        )
    };
    if declared_length.is_some_and(|length| length > limit) {
        return Err(too_large());
    }
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    let octets = matches!(body, Body::File(_))
        && media_type.eq_ignore_ascii_case("application/octet-stream");
    if !media_type.eq_ignore_ascii_case(expected) && !octets {
        // A client that sends no body at all gets the body's own error.
        if declared_length == Some(0) || (media_type.is_empty() && declared_length.is_none()) {
            return Ok((web::Bytes::new(), None));
        }
        // A file is taken under its own type or as plain octets: say both.
        let wanted = if matches!(body, Body::File(_)) {
            format!("{expected} or application/octet-stream")
        } else {
            expected.to_owned()
        };
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!(
                "the body must be {wanted}; the request says Content-Type `{}`",
                content_type.chars().take(80).collect::<String>()
            ),
        ));
    }
    if let Body::Multipart(_) | Body::File(_) = body {
        return Ok((web::Bytes::new(), Some(payload)));
    }
    let mut bytes = web::BytesMut::new();
    while let Some(chunk) =
        std::future::poll_fn(|context| Pin::new(&mut payload).poll_next(context)).await
    {
        let chunk = chunk.map_err(|error| {
            ApiError::problem(
                ErrorCode::InvalidBody,
                "",
                format!("the body could not be read: {error}"),
            )
        })?;
        if bytes.len() + chunk.len() > limit {
            return Err(too_large());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes.freeze(), None))
}

/// The answer for a path no table knows.
pub(crate) async fn unknown_route(
    request: HttpRequest,
    state: web::Data<AppState>,
) -> HttpResponse {
    let version = request_version(&request, &state);
    let message = format!("no such route: {} {}", request.method(), request.path());
    render_error(
        &ApiError::new(ErrorCode::RouteNotFound, message),
        None,
        version,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_segments_are_tried_before_parameters() {
        let mut patterns = vec![
            "/nets/{net_name}",
            "/nets/upload",
            "/nets/{net_name}/devices/{device_key}",
            "/nets/{net_name}/devices/{device_key}-{interface_identifier}",
            "/nets/{net_name}/devices/action",
        ];
        patterns.sort_by_key(|pattern| specificity(pattern));
        assert_eq!(
            patterns,
            [
                "/nets/upload",
                "/nets/{net_name}",
                "/nets/{net_name}/devices/action",
                "/nets/{net_name}/devices/{device_key}-{interface_identifier}",
                "/nets/{net_name}/devices/{device_key}",
            ]
        );
    }

    #[test]
    fn shapes_ignore_parameter_names() {
        assert_eq!(shape("/a/{id}/b-{x}"), shape("/a/{name}/b-{y}"));
        assert_ne!(shape("/a/{id}"), shape("/a/{id}/b"));
    }
}
