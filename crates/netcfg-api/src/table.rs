//! A route table is data: method, paths, handler, request body type and
//! declared responses. The actix router and the OpenAPI document are both
//! built from it, so what is served and what is described cannot drift.

use std::{fmt, future::Future, pin::Pin, sync::Arc};

use actix_web::http::{Method, StatusCode};
use netcfg_model::{FromJson, Level, people::AccessRole};
use netcfg_service::StampKind;
use schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::{
    context::Ctx,
    etag::{IF_MATCH, IF_NONE_MATCH},
    operation::Operation,
    path::{PathParameter, PathParams},
    payload::{PayloadKey, key_id},
    reply::{ApiError, Reply},
    version::ApiVersion,
};

pub use crate::table_changes::{Change, apply_changes};

/// What a handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Reply, ApiError>>>>;

/// A handler: one async function per operation, shared by every version
/// that serves the operation.
#[derive(Clone)]
pub struct Handler(Arc<dyn Fn(Ctx) -> HandlerFuture + Send + Sync>);

impl Handler {
    /// Wraps `handler`, any `async fn(Ctx, P) -> Result<Reply, ApiError>`:
    /// the path parameters `P` are extracted first (a malformed one is a 400
    /// and the handler does not run).
    pub fn new<P, F, Fut>(handler: F) -> Self
    where
        P: PathParams,
        F: Fn(Ctx, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply, ApiError>> + 'static,
    {
        Self(Arc::new(move |context: Ctx| {
            match P::extract(context.request()) {
                Ok(path) => Box::pin(handler(context, path)) as HandlerFuture,
                Err(error) => Box::pin(std::future::ready(Err(error))),
            }
        }))
    }

    /// Runs the handler on one request.
    pub fn call(&self, context: Ctx) -> HandlerFuture {
        (self.0)(context)
    }
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Handler")
    }
}
/// Writes the JSON schema of a type into a generator.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// The schema of `T` (a `SchemaFn` for any `T: JsonSchema`).
pub fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// What a response carries beside its message.
#[derive(Debug, Clone, Copy)]
pub enum Payload {
    /// The message alone.
    Message,
    /// A payload under a key of the envelope ([`Payload::of`]).
    Json {
        /// The payload's key in the envelope.
        key: &'static str,
        /// The schema of its value.
        schema: SchemaFn,
        /// The key's type: a reply is sent only under the key its row
        /// declares.
        key_type: fn() -> std::any::TypeId,
    },
    /// A file in its own format (no envelope).
    File {
        /// Its media type.
        content_type: &'static str,
    },
    /// An HTML page (no envelope).
    Html,
    /// A stream of Server-Sent Events (`text/event-stream`), each event as
    /// `schema` describes it.
    Events {
        /// The schema of one event.
        schema: SchemaFn,
    },
    /// No body at all (304 Not Modified).
    Empty,
}

/// How a row takes part in optimistic concurrency (decisions.md §10),
/// decided when the table is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Conditional {
    /// Neither.
    #[default]
    None,
    /// A GET of a configuration's item or list: a strong `ETag` on 200,
    /// 304 for an `If-None-Match` that holds the current tag.
    Tagged(Tagging),
    /// A write to a path that a [`Conditional::Tagged`] row reads: with
    /// `If-Match`, 412 unless the tag names the reader's current stamp
    /// (checked before the handler runs).
    IfMatch(Stamp),
}

/// How a tagged GET's `ETag` is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tagging {
    /// The digest of the bytes sent: for what nobody writes conditionally
    /// (the engine's views, the history, the logs).
    Digest,
    /// The configuration's stamp of a kind of data, read before the
    /// representation: a write to the same path can then check `If-Match`
    /// with no reading and no rendering.
    Stamp(Stamp),
}

/// What a stamped tag stands for: the configuration's stamp of `kind`,
/// and, for the configuration itself, its network's run state (which its
/// representation shows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// The kind of data the representation shows.
    pub kind: StampKind,
    /// Whether it shows the network's run state too.
    pub run_state: bool,
}

impl Stamp {
    /// The stamp of the representation a GET of `path` sends.
    fn of_path(path: &str) -> Self {
        Self {
            kind: if path.starts_with("/nets/{net_name}/notifications") {
                StampKind::Notifications
            } else if path.starts_with("/nets/{net_name}/schedules") {
                StampKind::Schedules
            } else {
                StampKind::Content
            },
            run_state: path == "/nets/{net_name}",
        }
    }
}

impl Payload {
    /// The payload of key `K`: its key and its value's schema, one
    /// declaration ([`PayloadKey`]).
    pub fn of<K: PayloadKey>() -> Self {
        Self::Json {
            key: K::KEY,
            schema: schema_of::<K::Value>,
            key_type: key_id::<K>,
        }
    }
}

/// One response a route declares: its status, payload and classification level.
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    /// The HTTP status.
    pub status: StatusCode,
    /// What it carries.
    pub payload: Payload,
    /// Its classification level (sent in 5.1 only).
    pub level: Level,
    /// The level of a partial success with this status, if the operation
    /// can succeed in part (a command some devices did not answer).
    pub partial_level: Option<Level>,
}

/// Reads a request body as a row's body type: `Ok` when the handler will
/// read it, else the 400 it would answer.
pub type CheckBody = fn(&[u8]) -> Result<(), ApiError>;

/// Reads a request's path parameters as a row's path type: `Ok` when the
/// handler will read them, else the error it would answer.
pub type CheckPath = fn(&actix_web::HttpRequest) -> Result<(), ApiError>;

/// The kind of request body a route takes.
#[derive(Debug, Clone, Copy)]
pub enum Body {
    /// `application/json`, read by the model's `FromJson`; the schema of the body type.
    Json(SchemaFn),
    /// `multipart/form-data` (the upload); the schema of its form.
    Multipart(SchemaFn),
    /// A file sent as the whole body (a pcap capture), read as a stream;
    /// its media type.
    File(&'static str),
}

/// One operation of a route table.
#[derive(Debug, Clone)]
pub struct Route {
    /// The HTTP method.
    pub method: Method,
    /// The path; the first is the canonical one, the others its aliases.
    pub paths: Vec<&'static str>,
    /// Its operation (unique within a table; aliases get a suffix in OpenAPI).
    pub operation: Operation,
    /// One line saying what the operation does.
    pub summary: &'static str,
    /// The group it is listed under.
    pub tag: &'static str,
    /// The request body, if any.
    pub body: Option<Body>,
    /// For a JSON body: reads one as the row's body type, for the
    /// dispatcher to refuse a bad body (400) before it compares `If-Match`.
    pub check_body: Option<CheckBody>,
    /// Reads the path's parameters as the handler's path type, for the
    /// dispatcher to refuse a bad path (400) before it compares `If-Match`.
    pub check_path: CheckPath,
    /// Every response it may give.
    pub responses: Vec<Declared>,
    /// Status replacements this row makes to what the handler answers
    /// (5.0 answers 204 where 5.1 answers 200 for some deletions; a conflict
    /// becomes 400 where the seed's row lists no 409).
    pub remaps: Vec<(StatusCode, StatusCode)>,
    /// The handler answers some conflicts with 400 (`ApiError::
    /// conflict_as_invalid`, as `copy` onto a taken name does): the 400's
    /// codes include the conflicts'.
    pub conflicts_as_bad_request: bool,
    /// The parameter sets of the handler's path type: every path of the
    /// route has exactly one of these (checked when the table is built).
    pub shapes: Vec<&'static [PathParameter]>,
    /// Query and header parameters the handler reads.
    pub parameters: Vec<Parameter>,
    /// Whether a success changes a configuration: the dispatcher then
    /// publishes a `change` event. Every method but GET does, unless the
    /// row says it does not ([`Route::changes_nothing`]).
    pub changes: bool,
    /// Its part in optimistic concurrency (set by [`Table::new`]).
    pub conditional: Conditional,
    /// The least role that may call it (decisions §17), checked by the
    /// dispatcher before the handler: a read needs `viewer` and a change
    /// `editor` unless the row says otherwise ([`Route::least_role`]);
    /// `None`: anyone, signed in or not ([`Route::open_to_all`]).
    pub least_role: Option<AccessRole>,
    /// The handler.
    pub handler: Handler,
}

/// A query or header parameter of a route.
#[derive(Debug, Clone, Copy)]
pub struct Parameter {
    /// Its name.
    pub name: &'static str,
    /// Where it is sent.
    pub location: ParameterLocation,
    /// What it means.
    pub description: &'static str,
    /// Its schema.
    pub schema: SchemaFn,
}

/// Where a [`Parameter`] is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterLocation {
    /// In the query string.
    Query,
    /// In a header.
    Header,
}

impl Route {
    /// A route with no responses declared yet; `handler` is any
    /// `async fn(Ctx, P) -> Result<Reply, ApiError>` where `P` is the type
    /// of the paths' parameters.
    pub fn new<P, F, Fut>(
        method: Method,
        paths: &[&'static str],
        operation: Operation,
        summary: &'static str,
        handler: F,
    ) -> Self
    where
        P: PathParams,
        F: Fn(Ctx, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply, ApiError>> + 'static,
    {
        let changes = method != Method::GET;
        let least_role = Some(if method == Method::GET {
            AccessRole::Viewer
        } else {
            AccessRole::Editor
        });
        Self {
            method,
            paths: paths.to_vec(),
            operation,
            summary,
            tag: tag_of(paths[0]),
            body: None,
            check_body: None,
            check_path: |request| P::extract(request).map(drop),
            responses: Vec::new(),
            remaps: Vec::new(),
            conflicts_as_bad_request: false,
            shapes: P::shapes(),
            parameters: Vec::new(),
            changes,
            conditional: Conditional::None,
            least_role,
            handler: Handler::new(handler),
        }
    }

    /// Needs at least `role`.
    pub fn least_role(mut self, role: AccessRole) -> Self {
        self.least_role = Some(role);
        self
    }

    /// Open to anyone, signed in or not (signing in itself).
    pub fn open_to_all(mut self) -> Self {
        self.least_role = None;
        self
    }

    /// Declares an optional query parameter of type `T`.
    pub fn query<T: JsonSchema>(mut self, name: &'static str, description: &'static str) -> Self {
        self.add_parameter::<T>(ParameterLocation::Query, name, description);
        self
    }

    /// Declares an optional request header of type `T`.
    pub fn header<T: JsonSchema>(mut self, name: &'static str, description: &'static str) -> Self {
        self.add_parameter::<T>(ParameterLocation::Header, name, description);
        self
    }

    /// Adds a parameter, beside any declared before.
    fn add_parameter<T: JsonSchema>(
        &mut self,
        location: ParameterLocation,
        name: &'static str,
        description: &'static str,
    ) {
        self.parameters.push(Parameter {
            name,
            location,
            description,
            schema: schema_of::<T>,
        });
    }

    /// Says that a success changes no configuration (a computation, a
    /// command to devices): no `change` event.
    pub fn changes_nothing(mut self) -> Self {
        self.changes = false;
        self
    }

    /// Declares a JSON request body of type `T`.
    pub fn json_body<T: JsonSchema + FromJson>(mut self) -> Self {
        self.body = Some(Body::Json(schema_of::<T>));
        self.check_body = Some(|bytes| crate::context::read_json::<T>(bytes).map(drop));
        self
    }

    /// Declares a multipart request body described by `T`.
    pub fn multipart_body<T: JsonSchema>(mut self) -> Self {
        self.body = Some(Body::Multipart(schema_of::<T>));
        self
    }

    /// Declares a file sent as the whole body, of `media_type`
    /// (`application/octet-stream` is taken too).
    pub fn file_body(mut self, media_type: &'static str) -> Self {
        self.body = Some(Body::File(media_type));
        self
    }

    /// Declares a response.
    pub fn responds(mut self, status: StatusCode, payload: Payload, level: Level) -> Self {
        self.responses.retain(|declared| declared.status != status);
        self.add_response(status, payload, level);
        self
    }

    /// Adds a response, beside any declared for the same status.
    fn add_response(&mut self, status: StatusCode, payload: Payload, level: Level) {
        self.responses.push(Declared {
            status,
            payload,
            level,
            partial_level: None,
        });
    }

    /// Declares a response that may also be a partial success, sent at
    /// `partial_level` (the handler's reply says which).
    pub fn responds_partly(
        mut self,
        status: StatusCode,
        payload: Payload,
        level: Level,
        partial_level: Level,
    ) -> Self {
        self = self.responds(status, payload, level);
        if let Some(declared) = self.responses.last_mut() {
            declared.partial_level = Some(partial_level);
        }
        self
    }

    /// Declares message-only error responses at level 1.
    pub fn errors(mut self, statuses: &[StatusCode]) -> Self {
        for status in statuses {
            self = self.responds(*status, Payload::Message, Level::Error);
        }
        self
    }

    /// Answers `to` where the handler answers `from`, declaring `to` as
    /// message-only at level 1 (an error this row gives another status).
    pub fn remap_error(mut self, from: StatusCode, to: StatusCode) -> Self {
        self.remaps.push((from, to));
        self.responses.retain(|declared| declared.status != from);
        if self.declared(to).is_none() {
            self = self.responds(to, Payload::Message, Level::Error);
        }
        self
    }

    /// Says that the handler answers some conflicts with 400.
    pub fn conflicts_as_bad_request(mut self) -> Self {
        self.conflicts_as_bad_request = true;
        self
    }

    /// The declared response with `status`.
    pub fn declared(&self, status: StatusCode) -> Option<&Declared> {
        self.responses
            .iter()
            .find(|declared| declared.status == status)
    }

    /// The status this row sends where the handler answers `status`, if it
    /// remaps it.
    pub fn remapped(&self, status: StatusCode) -> Option<StatusCode> {
        self.remaps
            .iter()
            .find(|(from, _)| *from == status)
            .map(|(_, to)| *to)
    }

    /// The typed parameters of `path`, one of the route's paths, in path
    /// order.
    pub fn parameters_of(&self, path: &str) -> Vec<PathParameter> {
        let named = path_parameters(path);
        let shape = self
            .shapes
            .iter()
            .find(|shape| same_names(shape, &named))
            .copied()
            .unwrap_or_default();
        named
            .iter()
            .filter_map(|name| shape.iter().find(|parameter| parameter.name == *name))
            .copied()
            .collect()
    }

    /// Adds the responses every route of this shape can give besides the
    /// seed's rows: 400 for a bad header, body or path parameter, 404 for a
    /// missing configuration, 413 and 415 for bodies, 401 and 403 for a row
    /// that needs a role, 500 for faults of the host.
    /// They are declared so that the published description tells the truth.
    pub(crate) fn with_implied_responses(mut self) -> Self {
        // 400 for any row: an unknown Api-Version header is refused before
        // the row is chosen.
        let mut implied = vec![StatusCode::BAD_REQUEST, StatusCode::INTERNAL_SERVER_ERROR];
        if self.body.is_some() {
            implied.extend([
                StatusCode::PAYLOAD_TOO_LARGE,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ]);
        }
        if path_parameters(self.paths[0]).contains(&"net_name") {
            implied.push(StatusCode::NOT_FOUND);
        }
        // Access control turns on with the first user or token: then a row
        // that needs a role refuses 401 and 403 (decisions §17).
        if self.least_role.is_some() {
            implied.extend([StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN]);
        }
        for status in implied {
            if self.declared(status).is_none() {
                self = self.responds(status, Payload::Message, Level::Error);
            }
        }
        self.responses.sort_by_key(|declared| declared.status);
        self
    }
}

/// The names of the `{parameters}` of a path, in order.
pub(crate) fn path_parameters(path: &str) -> Vec<&str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .collect()
}

/// True when `shape` has exactly the parameters `named`.
fn same_names(shape: &[PathParameter], named: &[&str]) -> bool {
    shape.len() == named.len()
        && named
            .iter()
            .all(|name| shape.iter().any(|parameter| parameter.name == *name))
}

/// The OpenAPI tag of a path: its first segment after `/nets/{net_name}`, or
/// its first segment.
fn tag_of(path: &str) -> &'static str {
    let segments: Vec<&str> = path
        .split('/')
        .filter(|segment| !segment.is_empty())
        .collect();
    let key = match segments.as_slice() {
        ["nets", "{net_name}", resource, ..] => *resource,
        [first, ..] => *first,
        [] => "",
    };
    match key {
        "devices" | "unconfigured_devices" => "Devices",
        "device_pairs" => "Device pairs",
        "data-streams" | "data_streams" | "default-data-streams" => "Data streams",
        "roles" => "Roles",
        "rf_settings" => "RF settings",
        "position_limits" => "Position limits",
        "settings" | "default-settings" | "default_settings" => "Settings",
        "notifications" | "notification" | "notifications_count" => "Notifications",
        "logs" | "log_messages" => "Logs",
        "cache-manager" => "Cache manager",
        "calculate_maximum_tags" => "Maximum tags",
        "network_mode" | "network_modes" => "Operating modes",
        "group_image" => "Group image",
        "network-info" | "packages" => "Host",
        "api.json" | "api" => "Self description",
        _ => "Configurations",
    }
}

/// One version's table: its routes, checked for unique operation ids and
/// with the implied responses added.
#[derive(Debug, Clone)]
pub struct Table {
    /// The version this table serves.
    pub version: ApiVersion,
    /// The routes.
    pub routes: Vec<Route>,
}

impl Table {
    /// A table of `routes`.
    ///
    /// # Panics
    /// When two routes share an operation, or two share a method and path,
    /// or a path's parameters are not those of its handler's path type: a
    /// bug in a table literal, which every test that builds an app catches.
    pub fn new(version: ApiVersion, routes: Vec<Route>) -> Self {
        let routes: Vec<Route> = routes
            .into_iter()
            .map(Route::with_implied_responses)
            .collect();
        let routes = with_conditional_requests(routes);
        for (index, route) in routes.iter().enumerate() {
            for path in &route.paths {
                let named = path_parameters(path);
                assert!(
                    route.shapes.iter().any(|shape| same_names(shape, &named)),
                    "{version}: {path} has other parameters than the path type of {}",
                    route.operation
                );
            }
            for earlier in &routes[..index] {
                assert_ne!(
                    earlier.operation, route.operation,
                    "operation given twice in {version}"
                );
                let same_path = route.paths.iter().any(|path| earlier.paths.contains(path));
                assert!(
                    !(same_path && earlier.method == route.method),
                    "{} {:?} is routed twice in {version}",
                    route.method,
                    route.paths
                );
            }
        }
        Self { version, routes }
    }

    /// The route of `operation`.
    pub fn route(&self, operation: Operation) -> Option<&Route> {
        self.routes
            .iter()
            .find(|route| route.operation == operation)
    }
}

/// Marks the rows that take part in optimistic concurrency and declares
/// what that adds: a GET with a JSON payload of a path under
/// `/nets/{net_name}` is [`Conditional::Tagged`] (`If-None-Match`, 304);
/// a write to a path such a GET reads is [`Conditional::IfMatch`]
/// (`If-Match`, 412), and the GET of a path written so is tagged by a
/// [`Stamp`], which the write compares. Writes with no representation to
/// compare (device commands, calculations) take no part.
/// Paths of what a configuration has beside its content (recordings, a
/// replay): no stamp of the store changes with them, so their GETs are
/// tagged by their bytes and their writes take no `If-Match`.
fn beside_content(path: &str) -> bool {
    path.starts_with("/nets/{net_name}/recordings") || path.starts_with("/nets/{net_name}/replay")
}

fn with_conditional_requests(mut routes: Vec<Route>) -> Vec<Route> {
    let is_tagged = |route: &Route| {
        route.method == Method::GET
            && route.paths[0].starts_with("/nets/{net_name}")
            && route
                .declared(StatusCode::OK)
                .is_some_and(|declared| matches!(declared.payload, Payload::Json { .. }))
    };
    let tagged_paths: Vec<&'static str> = routes
        .iter()
        .filter(|route| is_tagged(route))
        .flat_map(|route| route.paths.iter().copied())
        .collect();
    let written = |path: &&str| {
        routes
            .iter()
            .any(|route| route.method != Method::GET && route.paths.contains(path))
    };
    let stamped: Vec<&'static str> = tagged_paths
        .iter()
        .copied()
        .filter(written)
        .filter(|path| !beside_content(path))
        .collect();
    for route in &mut routes {
        if is_tagged(route) {
            let stamp = route.paths.iter().find(|path| stamped.contains(path));
            route.conditional = Conditional::Tagged(
                stamp.map_or(Tagging::Digest, |path| Tagging::Stamp(Stamp::of_path(path))),
            );
            route.add_response(StatusCode::NOT_MODIFIED, Payload::Empty, Level::Debug);
            route.add_parameter::<String>(
                ParameterLocation::Header,
                IF_NONE_MATCH,
                "The ETag of the representation the client holds: 304, with no body, while it is current.",
            );
        } else if let Some(path) = (route.method != Method::GET)
            .then(|| {
                route
                    .paths
                    .iter()
                    .find(|path| tagged_paths.contains(path) && !beside_content(path))
            })
            .flatten()
        {
            route.conditional = Conditional::IfMatch(Stamp::of_path(path));
            if route.declared(StatusCode::PRECONDITION_FAILED).is_none() {
                route.add_response(
                    StatusCode::PRECONDITION_FAILED,
                    Payload::Message,
                    Level::Error,
                );
            }
            route.add_parameter::<String>(
                ParameterLocation::Header,
                IF_MATCH,
                "The ETag of the resource as the client read it (GET of the same path), or `*`: 412, changing nothing, unless it is current.",
            );
        }
        route.responses.sort_by_key(|declared| declared.status);
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_are_read_in_order() {
        assert_eq!(
            path_parameters("/nets/{net_name}/devices/{device_key}-{interface_identifier}"),
            ["net_name", "device_key", "interface_identifier"]
        );
        assert!(path_parameters("/nets").is_empty());
    }

    /// Every write that takes `If-Match` compares the stamp its path's GET
    /// is tagged with, and a GET of a path nobody writes is tagged by its
    /// bytes: else a tag a client read could never be current.
    #[test]
    fn a_write_compares_the_stamp_its_path_is_tagged_with() {
        let tables = crate::tables::Tables::standard();
        for version in ApiVersion::ALL {
            let routes = &tables.table(version).routes;
            let reader_of = |path: &str| {
                routes
                    .iter()
                    .find(|route| {
                        matches!(route.conditional, Conditional::Tagged(_))
                            && route.paths.contains(&path)
                    })
                    .map(|route| route.conditional)
            };
            let mut writes = 0;
            for route in routes {
                let Conditional::IfMatch(stamp) = route.conditional else {
                    continue;
                };
                writes += 1;
                let tagged: Vec<Conditional> = route
                    .paths
                    .iter()
                    .filter_map(|path| reader_of(path))
                    .collect();
                assert!(
                    !tagged.is_empty(),
                    "{version}: {} has no reader",
                    route.operation
                );
                for reader in tagged {
                    assert_eq!(
                        reader,
                        Conditional::Tagged(Tagging::Stamp(stamp)),
                        "{version}: {}",
                        route.operation
                    );
                }
            }
            assert!(writes >= 20, "{version}: {writes} conditional writes");
            let history = routes
                .iter()
                .find(|route| route.operation == Operation::ListHistory);
            if let Some(history) = history {
                assert_eq!(history.conditional, Conditional::Tagged(Tagging::Digest));
            }
        }
    }
}
