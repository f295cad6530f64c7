//! What the API's integration tests share: `app_state`, an application
//! state on a real store and a real engine; and the harness of the route
//! walk: a real app on a real store and the real
//! engine (simulator), and a runner that sends each fixture step and checks
//! its response against the step and against the route table.

pub(crate) mod app_state;
pub(crate) mod fixture;
pub(crate) mod router;

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
    sync::Arc,
    time::Duration,
};

use actix_web::{
    body::MessageBody,
    dev::{Service, ServiceResponse},
    http::{Method, StatusCode, header::HeaderMap},
    test, web,
};
use netcfg_api::{ApiVersion, AppState, Services};
use netcfg_engine::{EngineOptions, NetcfgEngine, sim::SimOptions};
use serde_json::Value;

use fixture::{Expect, Step};
use router::Router;

/// The engine's runtime and the data directory, alive as long as the test.
#[derive(Debug)]
pub(crate) struct World {
    pub(crate) runtime: tokio::runtime::Runtime,
    pub(crate) directory: tempfile::TempDir,
}

impl World {
    pub(crate) fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("the engine's runtime");
        let directory = tempfile::tempdir().expect("a temporary data directory");
        Self { runtime, directory }
    }

    /// The state the server binary would build: a store on the data
    /// directory, the engine on its own runtime (plain `sim` reports every
    /// 200 ms so the walk does not wait long), the notification pump.
    pub(crate) fn state(&self) -> web::Data<AppState> {
        let store = Arc::new(netcfg_store::Store::open(self.directory.path()).expect("a store"));
        let engine = NetcfgEngine::new(
            EngineOptions {
                push_timeout: Duration::from_secs(5),
                simulator: Some(SimOptions {
                    status_period: Duration::from_millis(200),
                    lost_after: Duration::from_millis(500),
                    ..SimOptions::default()
                }),
                ..EngineOptions::default()
            },
            self.runtime.handle().clone(),
        );
        let state = web::Data::new(AppState::new(
            ApiVersion::V5_1,
            Services {
                store,
                engine: Arc::new(engine),
                command_timeout: Duration::from_secs(3),
            },
        ));
        state.service().start_background_work(self.runtime.handle());
        state.start_events(self.runtime.handle());
        state
    }
}

/// What a response was.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    fn show(&self) -> String {
        let mut text = format!("{}\n", self.status);
        for (name, value) in &self.headers {
            text.push_str(&format!(
                "{name}: {}\n",
                value.to_str().unwrap_or("<binary>")
            ));
        }
        let body = String::from_utf8_lossy(&self.body);
        let body: String = body.chars().take(3000).collect();
        text.push_str(&body);
        text
    }
}

/// Every (version, operation id, status) a step got, and the failures.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub(crate) covered: BTreeSet<(String, String, u16)>,
    pub(crate) aliases: BTreeSet<(String, &'static str)>,
    pub(crate) steps: usize,
    pub(crate) failures: Vec<String>,
    saved: BTreeMap<String, Value>,
    bodies: BTreeMap<String, Vec<u8>>,
}

/// An app the walk sends its requests to: actix-web's test service, its
/// requests of type `R` and its bodies of type `B`.
pub(crate) trait App<R, B>:
    Service<R, Response = ServiceResponse<B>, Error = actix_web::Error>
{
}

impl<S, R, B> App<R, B> for S where
    S: Service<R, Response = ServiceResponse<B>, Error = actix_web::Error>
{
}

/// `text` read as a `T`, or the fixture's fault naming `what`.
fn parse<T>(text: &str, what: &str) -> Result<T, String>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    text.parse()
        .map_err(|error| format!("fixture: bad {what} `{text}`: {error}"))
}

/// Runs every step of every fixture against `app`.
pub(crate) async fn walk<S, R, B>(
    app: &S,
    to_request: fn(test::TestRequest) -> R,
    fixtures: &[(String, fixture::Fixture)],
) -> Walk
where
    S: App<R, B>,
    B: MessageBody,
{
    let router = Router::new();
    let mut walk = Walk::default();
    for (file, fixture) in fixtures {
        for (index, step) in fixture.steps.iter().enumerate() {
            walk.steps += 1;
            if let Err(failure) = run_step(app, to_request, &router, &mut walk, step).await {
                walk.failures.push(format!(
                    "{file} step {index}{}\n  request: {} (Api-Version {}) body {}\n  {failure}",
                    step.note
                        .as_deref()
                        .map(|note| format!(" ({note})"))
                        .unwrap_or_default(),
                    substitute(&step.request, &walk.saved),
                    step.v,
                    step.body
                        .as_ref()
                        .map(Value::to_string)
                        .or_else(|| step.raw.as_ref().map(|raw| raw.text.clone()))
                        .unwrap_or_else(|| "-".to_owned()),
                ));
            }
        }
    }
    walk
}

async fn run_step<S, R, B>(
    app: &S,
    to_request: fn(test::TestRequest) -> R,
    router: &Router,
    walk: &mut Walk,
    step: &Step,
) -> Result<(), String>
where
    S: App<R, B>,
    B: MessageBody,
{
    let version: ApiVersion = parse(&step.v, "version")?;
    let request = substitute(&step.request, &walk.saved);
    let (method, path) = request
        .split_once(' ')
        .ok_or_else(|| format!("fixture: `do` must be `METHOD /path`, not `{request}`"))?;
    if step.expect.level.is_some() && version == ApiVersion::V5_0 {
        return Err("fixture: a 5.0 step gives no level (5.0 has none)".to_owned());
    }
    let route = router.route(version, method, path);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let answer = loop {
        let answer = send(app, to_request, walk, step, version, method, path).await?;
        let verdict = check(
            &answer,
            &step.expect,
            version,
            route.map(|(route, _)| route),
        );
        match verdict {
            Err(failure) if step.poll && std::time::Instant::now() < deadline => {
                let _ = failure;
                actix_web::rt::time::sleep(Duration::from_millis(100)).await;
            }
            Err(failure) => return Err(format!("{failure}\n  response: {}", answer.show())),
            Ok(()) => break answer,
        }
    };
    let operation = match route {
        Some((route, pattern)) => {
            walk.aliases.insert((step.v.clone(), pattern));
            route.operation.as_str().to_owned()
        }
        None => "(none)".to_owned(),
    };
    walk.covered
        .insert((step.v.clone(), operation, answer.status.as_u16()));
    for (name, pointer) in &step.save {
        let json: Value = serde_json::from_slice(&answer.body)
            .map_err(|error| format!("save {name}: the body is not JSON: {error}"))?;
        let value = json
            .pointer(pointer)
            .ok_or_else(|| format!("save {name}: nothing at {pointer}"))?;
        walk.saved.insert(name.clone(), value.clone());
    }
    for (name, header) in &step.save_header {
        let value = answer
            .header(header)
            .ok_or_else(|| format!("save_header {name}: no header {header}"))?;
        walk.saved
            .insert(name.clone(), Value::String(value.to_owned()));
    }
    if let Some(name) = &step.save_body {
        walk.bodies.insert(name.clone(), answer.body.clone());
    }
    Ok(())
}

async fn send<S, R, B>(
    app: &S,
    to_request: fn(test::TestRequest) -> R,
    walk: &Walk,
    step: &Step,
    version: ApiVersion,
    method: &str,
    path: &str,
) -> Result<Answer, String>
where
    S: App<R, B>,
    B: MessageBody,
{
    let method: Method = parse(method, "method")?;
    let mut request = test::TestRequest::default()
        .method(method)
        .uri(path)
        .insert_header(("Api-Version", version.short()));
    for (name, value) in &step.headers {
        request = request.insert_header((name.as_str(), substitute(value, &walk.saved)));
    }
    if let Some(from) = &step.from {
        request = request.peer_addr(parse(from, "from")?);
    }
    if let Some(body) = &step.body {
        request = request.set_json(substitute_json(body, &walk.saved));
    }
    if let Some(raw) = &step.raw {
        let payload = match &raw.saved {
            Some(saved) => walk
                .bodies
                .get(saved)
                .ok_or_else(|| format!("fixture: no saved body {saved}"))?
                .clone(),
            None => raw.text.clone().into_bytes(),
        };
        request = request
            .insert_header(("Content-Type", raw.content_type.as_str()))
            .set_payload(payload);
    }
    if let Some(parts) = &step.multipart {
        let boundary = "netcfg-walk-boundary-7c1e";
        let mut payload = Vec::new();
        for part in parts {
            payload.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
            let mut disposition = format!("Content-Disposition: form-data; name=\"{}\"", part.name);
            if let Some(file_name) = &part.file_name {
                disposition.push_str(&format!("; filename=\"{file_name}\""));
            }
            payload.extend_from_slice(format!("{disposition}\r\n").as_bytes());
            if part.file_name.is_some() {
                payload.extend_from_slice(b"Content-Type: application/octet-stream\r\n");
            }
            payload.extend_from_slice(b"\r\n");
            match (&part.text, &part.saved) {
                (Some(text), None) => payload.extend_from_slice(text.as_bytes()),
                (None, Some(saved)) => payload.extend_from_slice(
                    walk.bodies
                        .get(saved)
                        .ok_or_else(|| format!("fixture: no saved body {saved}"))?,
                ),
                _ => return Err("fixture: a form part has text or saved".to_owned()),
            }
            payload.extend_from_slice(b"\r\n");
        }
        payload.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        request = request
            .insert_header((
                "Content-Type",
                format!("multipart/form-data; boundary={boundary}"),
            ))
            .set_payload(payload);
    }
    let response = test::call_service(app, to_request(request)).await;
    let status = response.status();
    let headers = response.headers().clone();
    let body = test::read_body(response).await.to_vec();
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// Checks a response against the step's expectations, the envelope rules of
/// its version and the row it reached.
fn check(
    answer: &Answer,
    expect: &Expect,
    version: ApiVersion,
    route: Option<&netcfg_api::Route>,
) -> Result<(), String> {
    let alternative = check_status_and_version(answer, expect, version)?;
    let level = expected_level(answer, expect, version, route, alternative)?;
    if let Some(content_type) = &expect.file {
        let actual = answer.header("Content-Type").unwrap_or("");
        if !actual.starts_with(content_type.as_str()) {
            return Err(format!("Content-Type {actual}, not {content_type}"));
        }
        return Ok(());
    }
    if answer.status == StatusCode::NO_CONTENT {
        return check_no_content(answer, expect, level);
    }
    check_envelope(answer, expect, level)
}

/// The status is the expected one (or its alternative: then `true`), and
/// the Api-Version header names the version.
fn check_status_and_version(
    answer: &Answer,
    expect: &Expect,
    version: ApiVersion,
) -> Result<bool, String> {
    let status = answer.status.as_u16();
    let alternative = expect.also == Some(status);
    if status != expect.status && !alternative {
        return Err(format!(
            "status {status} where {} was expected",
            expect.status
        ));
    }
    if answer.header("Api-Version") != Some(version.full()) {
        return Err(format!(
            "Api-Version header {:?}, not {}",
            answer.header("Api-Version"),
            version.full()
        ));
    }
    Ok(alternative)
}

/// The classification level the answer must carry (5.1 only): the
/// fixture's, which must be the one the row declares for the status (or its
/// partial level), or the table's for an alternative status.
fn expected_level(
    answer: &Answer,
    expect: &Expect,
    version: ApiVersion,
    route: Option<&netcfg_api::Route>,
    alternative: bool,
) -> Result<Option<u32>, String> {
    // The level the table gives this status; a response no row names is level 1.
    let declared = route.and_then(|route| route.declared(answer.status));
    if let Some(route) = route
        && declared.is_none()
    {
        return Err(format!(
            "{} does not declare status {}",
            route.operation,
            answer.status.as_u16()
        ));
    }
    let table_level = declared.map_or(1, |declared| declared.level.value());
    // A partial success is sent at the row's partial level.
    let partial_level =
        declared.and_then(|declared| declared.partial_level.map(|level| level.value()));
    Ok(match (version, expect.level) {
        (ApiVersion::V5_1, Some(_)) if alternative => Some(table_level),
        (ApiVersion::V5_1, Some(level)) => {
            if level != table_level && Some(level) != partial_level {
                return Err(format!(
                    "the fixture says level {level}, the table declares {table_level}"
                ));
            }
            Some(level)
        }
        (ApiVersion::V5_1, None) if expect.file.is_none() => {
            return Err("fixture: a 5.1 step must give the level".to_owned());
        }
        _ => None,
    })
}

/// A JSON body: an object with its message, the classification `level`
/// (or none), the error fields, the expected payload key and nothing more,
/// and the payload as the step says.
fn check_envelope(answer: &Answer, expect: &Expect, level: Option<u32>) -> Result<(), String> {
    let json: Value = serde_json::from_slice(&answer.body)
        .map_err(|error| format!("the body is not JSON: {error}"))?;
    let object = json
        .as_object()
        .ok_or_else(|| "the body is not a JSON object".to_owned())?;
    let mut keys: BTreeSet<&str> = object.keys().map(String::as_str).collect();
    if !keys.remove("message") || !object["message"].is_string() {
        return Err("no message string".to_owned());
    }
    match (level, object.get("Classification")) {
        (None, None) => {}
        (Some(level), Some(actual)) if actual == &Value::from(level) => {}
        (level, actual) => {
            return Err(format!(
                "Classification {actual:?} where {level:?} was expected"
            ));
        }
    }
    keys.remove("Classification");
    check_error_fields(object, &mut keys, expect, answer.status)?;
    let expected_keys: BTreeSet<&str> = expect.key.iter().map(String::as_str).collect();
    if keys != expected_keys {
        return Err(format!(
            "payload keys {keys:?} where {expected_keys:?} were expected"
        ));
    }
    check_message_and_payload(object, expect)
}

/// The message contains the step's text; the payload contains the step's,
/// has none of the fields that must never be shown, and has at least the
/// step's number of items.
fn check_message_and_payload(
    object: &serde_json::Map<String, Value>,
    expect: &Expect,
) -> Result<(), String> {
    if let Some(text) = &expect.message {
        let message = object["message"].as_str().unwrap_or("");
        if !message.contains(text.as_str()) {
            return Err(format!("the message does not contain `{text}`"));
        }
    }
    let payload = expect.key.as_ref().map(|key| &object[key]);
    if let (Some(expected), Some(payload)) = (&expect.payload, payload)
        && !fixture::contains(expected, payload)
    {
        return Err(format!("the payload does not contain {expected}"));
    }
    for key in expect.absent.iter().flatten() {
        if payload.and_then(|payload| payload.get(key)).is_some() {
            return Err(format!(
                "the payload has {key:?}, which must never be shown"
            ));
        }
    }
    if let Some(minimum) = expect.min_items {
        let items = payload.and_then(Value::as_array).map_or(0, Vec::len);
        if items < minimum {
            return Err(format!(
                "{items} items where at least {minimum} were expected"
            ));
        }
    }
    Ok(())
}

/// The fields every error carries (decisions.md §2): `code`; for a 400
/// and for a 409 `inputs_conflict`, `problems` with each problem's field;
/// for a fault of the server, the incident id, which the message repeats.
fn check_error_fields(
    object: &serde_json::Map<String, Value>,
    keys: &mut BTreeSet<&str>,
    expect: &Expect,
    status: StatusCode,
) -> Result<(), String> {
    if !(status.is_client_error() || status.is_server_error()) {
        if keys.contains("code") {
            return Err("a success with an error code".to_owned());
        }
        return Ok(());
    }
    keys.remove("code");
    let code = object
        .get("code")
        .and_then(Value::as_str)
        .ok_or_else(|| "an error without a code".to_owned())?;
    if !netcfg_api::ErrorCode::ALL
        .iter()
        .any(|known| known.as_str() == code)
    {
        return Err(format!("code {code} is not in the table of codes"));
    }
    if let Some(expected) = &expect.code
        && expected != code
    {
        return Err(format!("code {code}, not {expected}"));
    }
    if status == StatusCode::BAD_REQUEST || code == "inputs_conflict" {
        keys.remove("problems");
        let problems = object
            .get("problems")
            .and_then(Value::as_array)
            .filter(|problems| !problems.is_empty())
            .ok_or_else(|| format!("a {status} {code} without problems"))?;
        let fields: Vec<&str> = problems
            .iter()
            .map(|problem| problem["field"].as_str().unwrap_or("<no field>"))
            .collect();
        if let Some(expected) = &expect.problems
            && fields != *expected
        {
            return Err(format!("problems of {fields:?}, not of {expected:?}"));
        }
    }
    if status.is_server_error() {
        keys.remove("incident");
        let incident = object
            .get("incident")
            .and_then(Value::as_str)
            .ok_or_else(|| "a 5xx without an incident id".to_owned())?;
        let message = object["message"].as_str().unwrap_or("");
        if !message.contains(incident) {
            return Err("the message does not give the incident id".to_owned());
        }
    }
    Ok(())
}

fn check_no_content(answer: &Answer, expect: &Expect, level: Option<u32>) -> Result<(), String> {
    if !answer.body.is_empty() {
        return Err("a 204 with a body".to_owned());
    }
    if expect.key.is_some() || expect.payload.is_some() {
        return Err("fixture: a 204 has no payload".to_owned());
    }
    let message = answer
        .header(netcfg_api::MESSAGE_HEADER)
        .ok_or_else(|| "a 204 without Netcfg-Message".to_owned())?;
    if message.is_empty() {
        return Err("an empty Netcfg-Message".to_owned());
    }
    if let Some(text) = &expect.message
        && !message.contains(text.as_str())
    {
        return Err(format!("Netcfg-Message does not contain `{text}`"));
    }
    let classification = answer.header(netcfg_api::CLASSIFICATION_HEADER);
    let wanted = level.map(|level| level.to_string());
    if classification != wanted.as_deref() {
        return Err(format!(
            "Netcfg-Classification {classification:?} where {wanted:?} was expected"
        ));
    }
    Ok(())
}

/// `text` with each `{{name}}` replaced by the saved value.
fn substitute(text: &str, saved: &BTreeMap<String, Value>) -> String {
    let mut text = text.to_owned();
    for (name, value) in saved {
        let replacement = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        text = text.replace(&format!("{{{{{name}}}}}"), &replacement);
    }
    text
}

fn substitute_json(value: &Value, saved: &BTreeMap<String, Value>) -> Value {
    match value {
        Value::String(text) => {
            if let Some(name) = text
                .strip_prefix("{{")
                .and_then(|rest| rest.strip_suffix("}}"))
                && let Some(saved) = saved.get(name)
            {
                return saved.clone();
            }
            Value::String(substitute(text, saved))
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| substitute_json(item, saved))
                .collect(),
        ),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| (key.clone(), substitute_json(value, saved)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The fixture directory.
pub(crate) fn fixtures_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/api")
}
