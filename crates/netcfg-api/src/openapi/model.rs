//! The OpenAPI 3.1 document as typed values: what the builder may write is
//! what these types can hold. Schemas are schemars' JSON Schema 2020-12
//! values, which OpenAPI 3.1 takes as they are.
//!
//! (utoipa's `openapi` model was the other candidate; its `Schema` type
//! holds OpenAPI 3.0 schemas and cannot carry what schemars writes, such as
//! `const`, `$defs` or `prefixItems`, so the document would lose rules.)

use std::collections::BTreeMap;

use schemars::Schema;
use serde::Serialize;

/// The whole document.
#[derive(Debug, Clone, Serialize)]
pub struct Document {
    /// The OpenAPI version.
    pub openapi: &'static str,
    /// What the API is.
    pub info: Info,
    /// Every path, with its operations by method.
    pub paths: BTreeMap<String, PathItem>,
    /// Shared schemas and security schemes.
    pub components: Components,
    /// The security every operation needs unless it says otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<Vec<SecurityRequirement>>,
}

/// The document's `info`.
#[derive(Debug, Clone, Serialize)]
pub struct Info {
    /// Its title.
    pub title: &'static str,
    /// The API version it describes.
    pub version: &'static str,
    /// A paragraph about it.
    pub description: String,
}

/// The operations of one path, by lower-case method.
pub type PathItem = BTreeMap<String, Operation>;

/// A security requirement: scheme name to scopes.
pub type SecurityRequirement = BTreeMap<&'static str, Vec<String>>;

/// One operation.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    /// Its id (aliases get a suffix).
    pub operation_id: String,
    /// One line about it.
    pub summary: &'static str,
    /// More about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its group.
    pub tags: Vec<&'static str>,
    /// Its path and header parameters.
    pub parameters: Vec<Parameter>,
    /// Its body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<RequestBody>,
    /// Every response, by status.
    pub responses: BTreeMap<String, Response>,
    /// Its own security (an empty list: none needed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<Vec<SecurityRequirement>>,
    /// The least role it needs (decisions §17), as data a client can read
    /// (the web front end disables what its role may not do); absent: open
    /// to all.
    #[serde(rename = "x-least-role", skip_serializing_if = "Option::is_none")]
    pub least_role: Option<netcfg_model::people::AccessRole>,
}

/// Where a parameter is.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParameterIn {
    /// In the path.
    Path,
    /// In the query string.
    Query,
    /// In a header.
    Header,
}

/// A parameter of an operation.
#[derive(Debug, Clone, Serialize)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// Where it is.
    #[serde(rename = "in")]
    pub location: ParameterIn,
    /// Whether it must be given.
    pub required: bool,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'static str>,
    /// Its schema.
    pub schema: Schema,
}

/// A request body.
#[derive(Debug, Clone, Serialize)]
pub struct RequestBody {
    /// Whether it must be given.
    pub required: bool,
    /// Its media types.
    pub content: BTreeMap<String, MediaType>,
}

/// One media type of a body or response.
#[derive(Debug, Clone, Serialize)]
pub struct MediaType {
    /// Its schema.
    pub schema: Schema,
}

/// One response.
#[derive(Debug, Clone, Serialize)]
pub struct Response {
    /// Its description.
    pub description: String,
    /// Its headers, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<&'static str, Header>>,
    /// Its body, by media type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, MediaType>>,
}

/// A response header.
#[derive(Debug, Clone, Serialize)]
pub struct Header {
    /// Its schema.
    pub schema: Schema,
    /// What it carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'static str>,
}

/// Shared parts of the document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Components {
    /// Schemas referred to as `#/components/schemas/<name>`.
    pub schemas: BTreeMap<String, Schema>,
    /// Security schemes, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_schemes: Option<BTreeMap<&'static str, SecurityScheme>>,
}

/// A security scheme: HTTP bearer, or a key in a cookie.
#[derive(Debug, Clone, Serialize)]
pub struct SecurityScheme {
    /// `http` or `apiKey`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// For `http`: the HTTP scheme (`bearer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheme: Option<&'static str>,
    /// For `apiKey`: where it is sent (`cookie`).
    #[serde(rename = "in", skip_serializing_if = "Option::is_none")]
    pub location: Option<&'static str>,
    /// For `apiKey`: the cookie's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'static str>,
    /// What the credentials are.
    pub description: &'static str,
}
