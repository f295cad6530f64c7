//! The OpenAPI 3.1 document of a route table, built from the table itself
//! as typed values (`model`).

pub mod model;

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
pub use model::Document;
use model::{
    Components, Header, Info, MediaType, Operation, Parameter, ParameterIn, RequestBody, Response,
    SecurityScheme,
};
use schemars::{Schema, SchemaGenerator, generate::SchemaSettings, json_schema};
use serde_json::{Value, json};

use crate::{
    envelope::{CLASSIFICATION_HEADER, MESSAGE_HEADER},
    error_code::ErrorCode,
    reply::FieldProblem,
    table::{Body, Conditional, Declared, ParameterLocation, Payload, Route, Table},
    version::{ApiVersion, VERSION_HEADER},
};

/// The document describing `table`. Access control is described whether it
/// is on or not (the first user or token turns it on): every operation that
/// needs a role takes a bearer key or token or the session cookie, and
/// declares 401, 403 and 429; the others need nothing.
pub fn document(table: &Table) -> Document {
    // Responses use shared components; request bodies are inlined, because a
    // body's schema (what is accepted) and a resource's (what is sent) differ
    // for the same type.
    let mut responses = SchemaSettings::draft2020_12()
        .with(|settings| settings.definitions_path = "#/components/schemas/".into())
        .for_serialize()
        .into_generator();
    let mut requests = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .for_deserialize()
        .into_generator();
    let mut paths: BTreeMap<String, model::PathItem> = BTreeMap::new();
    for route in &table.routes {
        for (position, path) in route.paths.iter().enumerate() {
            let mut operation = operation(
                route,
                position,
                path,
                table.version,
                &mut responses,
                &mut requests,
            );
            describe_access(route, &mut operation);
            paths
                .entry((*path).to_owned())
                .or_default()
                .insert(route.method.as_str().to_lowercase(), operation);
        }
    }
    let schemas = responses
        .take_definitions(true)
        .into_iter()
        .filter_map(|(name, value)| Schema::try_from(value).ok().map(|schema| (name, schema)))
        .map(|(name, schema)| (name, bounded(schema)))
        .collect();
    let mut document = Document {
        openapi: "3.1.0",
        info: Info {
            title: "netcfg: network configuration manager API",
            version: table.version.full(),
            description: description(table.version),
        },
        paths,
        components: Components {
            schemas,
            security_schemes: None,
        },
        security: None,
    };
    declare_credentials(&mut document);
    document
}

/// Declares the credentials (decisions §17) and requires one of them
/// wherever an operation does not say it needs none.
fn declare_credentials(document: &mut Document) {
    document.components.security_schemes = Some(BTreeMap::from([
        (
            "bearer",
            SecurityScheme {
                kind: "http",
                scheme: Some("bearer"),
                location: None,
                name: None,
                description: "An API key of a user (`ncfg_...`, acting with the lower of its role and its user's) or a token of the server's configuration (`auth.tokens`: read-only acts as viewer, admin as admin).",
            },
        ),
        (
            "session",
            SecurityScheme {
                kind: "apiKey",
                scheme: None,
                location: Some("cookie"),
                name: Some(crate::access::SESSION_COOKIE),
                description: "The cookie of a session begun with POST /session; a change made with it carries the header X-CSRF-Token with the session's token.",
            },
        ),
    ]));
    document.security = Some(vec![
        BTreeMap::from([("bearer", Vec::new())]),
        BTreeMap::from([("session", Vec::new())]),
    ]);
}

/// An operation's part in access control: none for a row open to all;
/// else the refusals of decisions §17, each with its code.
fn describe_access(route: &Route, operation: &mut model::Operation) {
    let Some(least) = route.least_role else {
        operation.security = Some(Vec::new());
        return;
    };
    let needs = format!("Needs the role {least} or more (decisions §17).");
    operation.description = Some(match operation.description.take() {
        Some(description) => format!("{description}\n\n{needs}"),
        None => needs,
    });
    for (status, description, codes) in [
        (
            StatusCode::UNAUTHORIZED,
            "Access control is on and the request shows no live identity: no session, key or token, or an ended one (Classification 1)",
            &[ErrorCode::Unauthorized][..],
        ),
        (
            StatusCode::FORBIDDEN,
            "The identity's role is less than the operation needs, or a change made with the session cookie lacks its CSRF token (Classification 1)",
            &[ErrorCode::Forbidden, ErrorCode::Csrf][..],
        ),
        (
            StatusCode::TOO_MANY_REQUESTS,
            "Too many unknown tokens or keys from this client lately: its credential is not checked until Retry-After seconds have passed (Classification 1)",
            &[ErrorCode::TooManyTokenFailures][..],
        ),
    ] {
        let codes: Vec<&str> = codes.iter().map(|code| code.as_str()).collect();
        let schema = json_schema!({
            "type": "object",
            "required": ["message", "code"],
            "properties": {
                "message": {"type": "string"},
                "code": {"type": "string", "enum": codes}
            }
        });
        operation.responses.insert(
            status.as_u16().to_string(),
            Response {
                description: description.to_owned(),
                headers: None,
                content: Some(json_content(schema)),
            },
        );
    }
}

/// `schema` as the only media type, `application/json`.
fn json_content(schema: Schema) -> BTreeMap<String, MediaType> {
    BTreeMap::from([("application/json".to_owned(), MediaType { schema })])
}

/// `schema` with the bounds its integers' formats imply.
fn bounded(schema: Schema) -> Schema {
    let mut value = schema.to_value();
    bound_integers(&mut value);
    // A schema stays an object or a boolean: the conversion cannot fail.
    Schema::try_from(value).unwrap_or_default()
}

/// A schema written as JSON.
fn schema(value: Value) -> Schema {
    Schema::try_from(value).unwrap_or_default()
}

/// Gives every integer schema the bounds its `format` implies (schemars
/// writes `"format": "uint32"` and `"minimum": 0` but no maximum, and
/// validators ignore formats they do not know), so that the description
/// says what the server reads.
fn bound_integers(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let bounds: Option<(i128, i128)> = match object.get("format").and_then(Value::as_str) {
                Some("uint8") => Some((0, u8::MAX.into())),
                Some("uint16") => Some((0, u16::MAX.into())),
                Some("uint32") => Some((0, u32::MAX.into())),
                Some("uint64") => Some((0, u64::MAX.into())),
                Some("int8") => Some((i8::MIN.into(), i8::MAX.into())),
                Some("int16") => Some((i16::MIN.into(), i16::MAX.into())),
                Some("int32") => Some((i32::MIN.into(), i32::MAX.into())),
                Some("int64") => Some((i64::MIN.into(), i64::MAX.into())),
                _ => None,
            };
            if let Some((minimum, maximum)) = bounds {
                object.entry("minimum").or_insert_with(|| number(minimum));
                object.entry("maximum").or_insert_with(|| number(maximum));
            }
            object.values_mut().for_each(bound_integers);
        }
        Value::Array(items) => items.iter_mut().for_each(bound_integers),
        _ => {}
    }
}

/// A JSON number for an integer bound (all fit an i64 or a u64).
fn number(bound: i128) -> Value {
    u64::try_from(bound)
        .map(Value::from)
        .or_else(|_| i64::try_from(bound).map(Value::from))
        .unwrap_or(Value::Null)
}

fn description(version: ApiVersion) -> String {
    let other = ApiVersion::ALL
        .into_iter()
        .find(|other| *other != version)
        .unwrap_or(version);
    format!(
        "Version {} of the API. Select a version per request with the header `{VERSION_HEADER}: {}` \
         (or `{}` for the other table); every response names the version that answered in the same header. \
         Responses are one JSON object with `message`{}, and the payload under one key. \
         A 204 response carries its message in the `{MESSAGE_HEADER}` header.",
        version.short(),
        version.short(),
        other.short(),
        if version.has_classification() {
            " and `Classification` (1 error, 2 warning, 3 information, 4 debug)"
        } else {
            ""
        },
    )
}

fn operation(
    route: &Route,
    position: usize,
    path: &str,
    version: ApiVersion,
    responses: &mut SchemaGenerator,
    requests: &mut SchemaGenerator,
) -> Operation {
    let operation_id = if position == 0 {
        route.operation.as_str().to_owned()
    } else {
        format!("{}_alias_{position}", route.operation)
    };
    let mut parameters: Vec<Parameter> = route
        .parameters_of(path)
        .into_iter()
        .map(|parameter| Parameter {
            name: parameter.name.to_owned(),
            location: ParameterIn::Path,
            required: true,
            description: None,
            schema: schema((parameter.schema)()),
        })
        .collect();
    parameters.extend(route.parameters.iter().map(|parameter| Parameter {
        name: parameter.name.to_owned(),
        location: match parameter.location {
            ParameterLocation::Query => ParameterIn::Query,
            ParameterLocation::Header => ParameterIn::Header,
        },
        required: false,
        description: Some(parameter.description),
        schema: (parameter.schema)(requests),
    }));
    parameters.push(Parameter {
        name: VERSION_HEADER.to_owned(),
        location: ParameterIn::Header,
        required: false,
        description: Some("The API version that should answer."),
        schema: schema(
            json!({"type": "string", "enum": version_spellings(version), "default": version.short()}),
        ),
    });
    let request_body = route.body.map(|body| {
        let content = match body {
            Body::Json(schema_fn) => BTreeMap::from([(
                "application/json".to_owned(),
                MediaType {
                    schema: bounded(schema_fn(requests)),
                },
            )]),
            Body::Multipart(schema_fn) => BTreeMap::from([(
                "multipart/form-data".to_owned(),
                MediaType {
                    schema: bounded(schema_fn(requests)),
                },
            )]),
            // The file's own type, and the generic one the server takes too.
            Body::File(media_type) => [media_type, "application/octet-stream"]
                .into_iter()
                .map(|media_type| {
                    let schema = schema(json!({"type": "string", "format": "binary"}));
                    (media_type.to_owned(), MediaType { schema })
                })
                .collect(),
        };
        RequestBody {
            required: true,
            content,
        }
    });
    Operation {
        operation_id,
        summary: route.summary,
        description: (position > 0).then(|| format!("An alias of `{}`.", route.paths[0])),
        tags: vec![route.tag],
        parameters,
        request_body,
        responses: route
            .responses
            .iter()
            .map(|declared| {
                (
                    declared.status.as_u16().to_string(),
                    response(route, declared, version, responses),
                )
            })
            .collect(),
        security: None,
        least_role: route.least_role,
    }
}

fn version_spellings(version: ApiVersion) -> Vec<&'static str> {
    match version {
        ApiVersion::V5_0 => vec!["5.0", "5.0.0", "5.0.1"],
        ApiVersion::V5_1 => vec!["5.1", "5.1.0"],
    }
}

fn response(
    route: &Route,
    declared: &Declared,
    version: ApiVersion,
    generator: &mut SchemaGenerator,
) -> Response {
    let reason = declared.status.canonical_reason().unwrap_or("Response");
    let description = if version.has_classification() {
        match declared.partial_level {
            Some(partial) => format!(
                "{reason} (Classification {}; {} when it succeeds only in part)",
                declared.level.value(),
                partial.value()
            ),
            None => format!("{reason} (Classification {})", declared.level.value()),
        }
    } else {
        reason.to_owned()
    };
    if declared.status == StatusCode::NO_CONTENT {
        let mut headers = BTreeMap::from([(
            MESSAGE_HEADER,
            Header {
                schema: json_schema!({"type": "string"}),
                description: Some("The message (percent-encoded where not printable ASCII)."),
            },
        )]);
        if version.has_classification() {
            headers.insert(
                CLASSIFICATION_HEADER,
                Header {
                    schema: schema(json!({"type": "integer", "const": declared.level.value()})),
                    description: None,
                },
            );
        }
        return Response {
            description,
            headers: Some(headers),
            content: None,
        };
    }
    // A tagged row's 200 and 304 carry the representation's tag.
    let etag = || {
        BTreeMap::from([(
            "ETag",
            Header {
                schema: json_schema!({"type": "string"}),
                description: Some(
                    "The strong tag of this representation: send it in If-None-Match (304 while current) or in If-Match on a write of the same path (412 when stale).",
                ),
            },
        )])
    };
    let content = match declared.payload {
        Payload::Empty => {
            return Response {
                description,
                headers: Some(etag()),
                content: None,
            };
        }
        Payload::Message => json_content(envelope(route, declared, version, None, generator)),
        Payload::Json { key, schema, .. } => {
            let payload = bounded(schema(generator));
            json_content(envelope(
                route,
                declared,
                version,
                Some((key, payload)),
                generator,
            ))
        }
        Payload::File { content_type } => BTreeMap::from([(
            content_type.to_owned(),
            MediaType {
                schema: json_schema!({"type": "string"}),
            },
        )]),
        Payload::Html => BTreeMap::from([(
            "text/html".to_owned(),
            MediaType {
                schema: json_schema!({"type": "string"}),
            },
        )]),
        Payload::Events { schema } => BTreeMap::from([(
            "text/event-stream".to_owned(),
            MediaType {
                schema: schema(generator),
            },
        )]),
    };
    let tagged =
        matches!(route.conditional, Conditional::Tagged(_)) && declared.status == StatusCode::OK;
    Response {
        description,
        headers: tagged.then(etag),
        content: Some(content),
    }
}

/// The codes an error response of `declared`'s status can carry on
/// `route`: those of its status, those of statuses the row remaps to it,
/// and a conflict's where the handler answers one with 400.
fn codes_of(route: &Route, declared: &Declared) -> Vec<&'static str> {
    let conflicts = (route.conflicts_as_bad_request && declared.status == StatusCode::BAD_REQUEST)
        .then_some(StatusCode::CONFLICT);
    let sources: Vec<StatusCode> = std::iter::once(declared.status)
        .chain(
            route
                .remaps
                .iter()
                .filter(|(_, to)| *to == declared.status)
                .map(|(from, _)| *from),
        )
        .chain(conflicts)
        .collect();
    ErrorCode::ALL
        .iter()
        .filter(|code| sources.contains(&code.status()))
        .map(|code| code.as_str())
        .collect()
}

fn envelope(
    route: &Route,
    declared: &Declared,
    version: ApiVersion,
    payload: Option<(&str, Schema)>,
    generator: &mut SchemaGenerator,
) -> Schema {
    let mut required = vec!["message".to_owned()];
    let mut properties = serde_json::Map::new();
    properties.insert("message".into(), json!({"type": "string"}));
    if version.has_classification() {
        required.push("Classification".into());
        let levels: Vec<u32> = std::iter::once(declared.level)
            .chain(declared.partial_level)
            .map(|level| level.value())
            .collect();
        let classification = match levels.as_slice() {
            [level] => json!({"type": "integer", "const": level}),
            several => json!({"type": "integer", "enum": several}),
        };
        properties.insert("Classification".into(), classification);
    }
    if declared.status.is_client_error() || declared.status.is_server_error() {
        required.push("code".into());
        properties.insert(
            "code".into(),
            json!({"type": "string", "enum": codes_of(route, declared)}),
        );
        if declared.status == StatusCode::BAD_REQUEST {
            required.push("problems".into());
            properties.insert(
                "problems".into(),
                json!({"type": "array", "minItems": 1, "items": generator.subschema_for::<FieldProblem>()}),
            );
        }
        if declared.status == StatusCode::CONFLICT {
            properties.insert(
                "problems".into(),
                json!({
                    "type": "array",
                    "description": "When the request's own values conflict with each other (inputs_conflict): each with its field.",
                    "items": generator.subschema_for::<FieldProblem>(),
                }),
            );
        }
        if declared.status.is_server_error() {
            properties.insert(
                "incident".into(),
                json!({"type": "string", "description": "The id the cause was logged under."}),
            );
        }
    }
    if let Some((key, payload)) = payload {
        required.push(key.to_owned());
        properties.insert(key.to_owned(), payload.to_value());
    }
    schema(json!({"type": "object", "required": required, "properties": properties}))
}
