//! The OpenAPI 3.1 document of a route table, built from the table itself.

use actix_web::http::StatusCode;
use schemars::{SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value, json};

use crate::{
    dispatch::{CLASSIFICATION_HEADER, MESSAGE_HEADER},
    table::{Body, Declared, Payload, Route, Table, path_parameters},
    version::{ApiVersion, VERSION_HEADER},
};

/// The document describing `table`, without access control.
pub fn document(table: &Table) -> Value {
    document_for(table, false)
}

/// The document describing `table`; with `access_control`, every operation
/// but the self description requires a bearer token and declares 401 and 403.
pub(crate) fn document_for(table: &Table, access_control: bool) -> Value {
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
    let mut paths = Map::new();
    for route in &table.routes {
        for (position, path) in route.paths.iter().enumerate() {
            let operation = operation(
                route,
                position,
                path,
                table.version,
                &mut responses,
                &mut requests,
            );
            let entry = paths.entry((*path).to_owned()).or_insert_with(|| json!({}));
            entry[route.method.as_str().to_lowercase()] = operation;
        }
    }
    let schemas: Map<String, Value> = responses.take_definitions(true).into_iter().collect();
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "netcfg: network configuration manager API",
            "version": table.version.full(),
            "description": description(table.version),
        },
        "paths": paths,
        "components": { "schemas": schemas },
    });
    bound_integers(&mut document);
    if access_control {
        require_tokens(&mut document);
    }
    document
}

/// Declares the bearer scheme, requires it everywhere but on `/api.json`,
/// and adds its refusals to every other operation.
fn require_tokens(document: &mut Value) {
    document["components"]["securitySchemes"] = json!({
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "A token of the server's configuration (auth.tokens): read-only tokens may GET, admin tokens may do everything."
        }
    });
    document["security"] = json!([{"bearer": []}]);
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for (path, operations) in paths.iter_mut() {
        for operation in operations
            .as_object_mut()
            .into_iter()
            .flat_map(|operations| operations.values_mut())
        {
            if path == "/api.json" {
                operation["security"] = json!([]);
                continue;
            }
            let refusal = |description: &str| {
                json!({
                    "description": description,
                    "content": {"application/json": {"schema": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}}}}
                })
            };
            operation["responses"]["401"] =
                refusal("No token, or not a known one (Classification 1)");
            operation["responses"]["403"] =
                refusal("A read-only token on a change (Classification 1)");
        }
    }
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
) -> Value {
    let operation_id = if position == 0 {
        route.operation_id.to_owned()
    } else {
        format!("{}_alias_{position}", route.operation_id)
    };
    let mut parameters: Vec<Value> = path_parameters(path)
        .into_iter()
        .map(|name| {
            json!({
                "name": name,
                "in": "path",
                "required": true,
                "schema": parameter_schema(name),
            })
        })
        .collect();
    parameters.push(json!({
        "name": VERSION_HEADER,
        "in": "header",
        "required": false,
        "description": "The API version that should answer.",
        "schema": {"type": "string", "enum": version_spellings(version), "default": version.short()},
    }));
    let mut operation = json!({
        "operationId": operation_id,
        "summary": route.summary,
        "tags": [route.tag],
        "parameters": parameters,
        "responses": route
            .responses
            .iter()
            .map(|declared| (declared.status.to_string(), response(declared, version, responses)))
            .collect::<Map<String, Value>>(),
    });
    if position > 0 {
        operation["description"] = json!(format!("An alias of `{}`.", route.paths[0]));
    }
    if let Some(body) = route.body {
        let (media_type, schema_fn) = match body {
            Body::Json(schema_fn) => ("application/json", schema_fn),
            Body::Multipart(schema_fn) => ("multipart/form-data", schema_fn),
        };
        operation["requestBody"] = json!({
            "required": true,
            "content": { media_type: { "schema": schema_fn(requests) } },
        });
    }
    operation
}

fn version_spellings(version: ApiVersion) -> Vec<&'static str> {
    match version {
        ApiVersion::V5_0 => vec!["5.0", "5.0.0", "5.0.1"],
        ApiVersion::V5_1 => vec!["5.1", "5.1.0"],
    }
}

/// The schema of a path parameter, by its name (the seed's common path
/// parameters and the 5.0 extras).
fn parameter_schema(name: &str) -> Value {
    match name {
        "net_name" => json!({"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$"}),
        "device_key" => json!({
            "type": "string",
            "description": "A serial number (XX:XX:XXXX) or an integer device id.",
            "pattern": "^([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8}|[1-9][0-9]{0,6})$"
        }),
        "serial_number" => {
            json!({"type": "string", "pattern": "^([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8})$"})
        }
        "interface_identifier" => json!({"type": "integer", "minimum": 0, "maximum": 255}),
        "id" | "identifier" | "role_id" | "setting_id" => {
            json!({"type": "integer", "minimum": 0, "maximum": u32::MAX})
        }
        "key" | "setting_class" => json!({"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$"}),
        "log_file_name" => {
            json!({"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$"})
        }
        "_type" => json!({"type": "string", "enum": ["twr", "blacklist"]}),
        "interface" => json!({
            "type": "string",
            "description": "<serial_number>-<interface_identifier>",
            "pattern": "^([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8})-(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$"
        }),
        "name" => json!({
            "type": "string", "minLength": 1, "maxLength": 64,
            "pattern": "^[^\\s\\x00-\\x1f\\x7f-\\x9f]([^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f])?$"
        }),
        _ => json!({"type": "string", "minLength": 1, "maxLength": 64}),
    }
}

fn response(declared: &Declared, version: ApiVersion, generator: &mut SchemaGenerator) -> Value {
    let reason = StatusCode::from_u16(declared.status)
        .ok()
        .and_then(|status| status.canonical_reason())
        .unwrap_or("Response");
    let description = if version.has_classification() {
        format!("{reason} (Classification {})", declared.level.value())
    } else {
        reason.to_owned()
    };
    if declared.status == 204 {
        let mut headers = json!({
            MESSAGE_HEADER: {"schema": {"type": "string"}, "description": "The message (percent-encoded where not printable ASCII)."}
        });
        if version.has_classification() {
            headers[CLASSIFICATION_HEADER] =
                json!({"schema": {"type": "integer", "const": declared.level.value()}});
        }
        return json!({"description": description, "headers": headers});
    }
    let content = match declared.payload {
        Payload::Message => {
            json!({"application/json": {"schema": envelope(declared, version, None)}})
        }
        Payload::Json { key, schema } => {
            json!({"application/json": {"schema": envelope(declared, version, Some((key, schema(generator).to_value())))}})
        }
        Payload::File { content_type } => json!({content_type: {"schema": {"type": "string"}}}),
        Payload::Html => json!({"text/html": {"schema": {"type": "string"}}}),
    };
    json!({"description": description, "content": content})
}

fn envelope(declared: &Declared, version: ApiVersion, payload: Option<(&str, Value)>) -> Value {
    let mut required = vec!["message".to_owned()];
    let mut properties = Map::new();
    properties.insert("message".into(), json!({"type": "string"}));
    if version.has_classification() {
        required.push("Classification".into());
        properties.insert(
            "Classification".into(),
            json!({"type": "integer", "const": declared.level.value()}),
        );
    }
    if let Some((key, schema)) = payload {
        required.push(key.to_owned());
        properties.insert(key.to_owned(), schema);
    }
    json!({"type": "object", "required": required, "properties": properties})
}
