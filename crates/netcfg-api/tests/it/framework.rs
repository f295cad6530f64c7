//! The dispatcher's rules, through the real actix app, on a small table whose
//! rows exercise each rule: version selection, the envelope per version,
//! levels from the table, 404 for the other table's paths, 405 with Allow,
//! 413, 415, 400 with every problem, 204 with its headers, 5.0 remaps, and the
//! self description.

use actix_web::{
    HttpRequest,
    http::{Method, StatusCode},
    test, web,
};
use netcfg_api::{
    ApiError, ApiVersion, AppState, Change, Ctx, Declared, ErrorCode, HandlerFuture, Operation,
    Payload, PayloadKey, Reply, Route, Services, Table, Tables, apply_changes, common_routes,
    create_app_with_tables,
    path::{NoPath, PathParameter, PathParams},
};
use netcfg_model::{Level, body::NetworkBody};
use serde_json::{Value, json};

/// The test table's payload keys: a key and its value's type, one
/// declaration.
struct Things;

impl PayloadKey for Things {
    const KEY: &'static str = "things";
    type Value = Vec<&'static str>;
}

struct Thing;

impl PayloadKey for Thing {
    const KEY: &'static str = "thing";
    type Value = Value;
}

/// `/things/{id}`: a path type written by hand, as a crate that mounts
/// its own routes would.
struct ThingPath {
    id: u32,
}

impl PathParams for ThingPath {
    fn shapes() -> Vec<&'static [PathParameter]> {
        const ID: &[PathParameter] = &[PathParameter {
            name: "id",
            schema: || json!({"type": "integer", "minimum": 0}),
        }];
        vec![ID]
    }
    fn extract(request: &HttpRequest) -> Result<Self, ApiError> {
        let text = request.match_info().get("id").unwrap_or("");
        text.parse()
            .map(|id| Self { id })
            .map_err(|error: std::num::ParseIntError| {
                ApiError::problem(ErrorCode::InvalidParameter, "id", error.to_string())
            })
    }
}

fn list(_: Ctx, _: NoPath) -> HandlerFuture {
    Box::pin(async { Reply::ok("2 things").with::<Things>(&vec!["a", "b"]) })
}

fn get(_: Ctx, path: ThingPath) -> HandlerFuture {
    Box::pin(async move {
        let id = path.id;
        if id == 1 {
            Reply::ok("thing 1").with::<Thing>(&json!({"id": 1}))
        } else {
            Err(ApiError::new(
                ErrorCode::DeviceNotFound,
                format!("no thing {id}"),
            ))
        }
    })
}

fn delete(_: Ctx, _: ThingPath) -> HandlerFuture {
    Box::pin(async { Ok(Reply::ok("Item Deleted")) })
}

fn create(context: Ctx, _: NoPath) -> HandlerFuture {
    Box::pin(async move {
        let body: NetworkBody = context.body()?;
        Reply::created(format!("created {}", body.name))
            .with::<Thing>(&json!({"name": body.name.as_str()}))
    })
}

fn undeclared(_: Ctx, _: NoPath) -> HandlerFuture {
    Box::pin(async { Ok(Reply::new(StatusCode::ACCEPTED, "accepted")) })
}

fn plain(_: Ctx, _: NoPath) -> HandlerFuture {
    Box::pin(async { Ok(Reply::ok("here")) })
}

/// The small table's rows borrow real operations' ids.
fn base_routes() -> Vec<Route> {
    let mut routes = common_routes();
    routes.extend([
        Route::new(
            Method::GET,
            &["/things"],
            Operation::ListDevices,
            "List things",
            list,
        )
        .responds(StatusCode::OK, Payload::of::<Things>(), Level::Debug),
        Route::new(
            Method::GET,
            &["/things/{id}", "/stuff/{id}"],
            Operation::GetDevice,
            "One thing",
            get,
        )
        .responds(StatusCode::OK, Payload::of::<Thing>(), Level::Debug)
        .responds(StatusCode::NOT_FOUND, Payload::Message, Level::Debug),
        Route::new(
            Method::DELETE,
            &["/things/{id}"],
            Operation::DeleteDevice,
            "Delete a thing",
            delete,
        )
        .responds(StatusCode::OK, Payload::Message, Level::Information),
        Route::new(
            Method::POST,
            &["/things"],
            Operation::CreateDevice,
            "Create a thing",
            create,
        )
        .json_body::<NetworkBody>()
        .responds(
            StatusCode::CREATED,
            Payload::of::<Thing>(),
            Level::Information,
        ),
        Route::new(
            Method::GET,
            &["/undeclared"],
            Operation::GetPackages,
            "Answers a status it does not declare",
            undeclared,
        )
        .responds(StatusCode::OK, Payload::Message, Level::Information),
        Route::new(
            Method::GET,
            &["/only51"],
            Operation::GetNetworkInfo,
            "Only in 5.1",
            plain,
        )
        .responds(StatusCode::OK, Payload::Message, Level::Information),
    ]);
    routes
}

fn app_parts(
    default_version: ApiVersion,
    directory: &std::path::Path,
) -> (web::Data<AppState>, web::Data<Tables>) {
    let v5_1 = Table::new(ApiVersion::V5_1, base_routes());
    let v5_0 = Table::new(
        ApiVersion::V5_0,
        apply_changes(
            base_routes(),
            vec![
                Change::Remove(Operation::GetNetworkInfo),
                Change::Add(
                    Route::new(
                        Method::GET,
                        &["/only50"],
                        Operation::EngineCommand,
                        "Only in 5.0",
                        plain,
                    )
                    .responds(
                        StatusCode::OK,
                        Payload::Message,
                        Level::Information,
                    ),
                ),
                Change::Remap {
                    operation: Operation::DeleteDevice,
                    from: StatusCode::OK,
                    to: Declared {
                        status: StatusCode::NO_CONTENT,
                        payload: Payload::Message,
                        level: Level::Information,
                        partial_level: None,
                    },
                },
            ],
        ),
    );
    (
        web::Data::new(AppState::new(default_version, services(directory))),
        web::Data::new(Tables::new(vec![v5_1, v5_0])),
    )
}

/// Real store on a temporary directory; an engine that must not be called
/// (the rows of this table never touch it).
fn services(directory: &std::path::Path) -> Services {
    Services {
        store: std::sync::Arc::new(netcfg_store::Store::open(directory).expect("a store")),
        engine: std::sync::Arc::new(netcfg_engine::MockEngine::new()),
        command_timeout: netcfg_api::DEFAULT_COMMAND_TIMEOUT,
    }
}

struct Answer {
    status: StatusCode,
    headers: actix_web::http::header::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "not JSON ({error}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

async fn call(default_version: ApiVersion, request: test::TestRequest) -> Answer {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (state, tables) = app_parts(default_version, directory.path());
    let app = test::init_service(create_app_with_tables(state, tables)).await;
    let response = test::call_service(&app, request.to_request()).await;
    let status = response.status();
    let headers = response.headers().clone();
    let body = test::read_body(response).await.to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

async fn call_51(request: test::TestRequest) -> Answer {
    call(ApiVersion::V5_1, request).await
}

#[actix_web::test]
async fn the_default_version_answers_and_says_so() {
    let answer = call_51(test::TestRequest::get().uri("/things")).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("Api-Version"), Some("5.1.0"));
    assert_eq!(
        answer.json(),
        json!({"message": "2 things", "Classification": 4, "things": ["a", "b"]})
    );

    let answer = call(ApiVersion::V5_0, test::TestRequest::get().uri("/things")).await;
    assert_eq!(answer.header("Api-Version"), Some("5.0.1"));
    assert_eq!(
        answer.json(),
        json!({"message": "2 things", "things": ["a", "b"]})
    );
}

#[actix_web::test]
async fn the_header_selects_a_table_in_every_spelling() {
    for (spelling, full) in [
        ("5.0", "5.0.1"),
        ("5.0.0", "5.0.1"),
        ("5.0.1", "5.0.1"),
        ("5.1", "5.1.0"),
        ("5.1.0", "5.1.0"),
    ] {
        let answer = call_51(
            test::TestRequest::get()
                .uri("/things")
                .insert_header(("Api-Version", spelling)),
        )
        .await;
        assert_eq!(answer.status, StatusCode::OK, "{spelling}");
        assert_eq!(answer.header("Api-Version"), Some(full), "{spelling}");
        assert_eq!(
            answer.json().get("Classification").is_some(),
            full == "5.1.0",
            "{spelling}"
        );
    }
}

#[actix_web::test]
async fn an_unknown_version_is_a_400_naming_the_supported_ones() {
    let answer = call_51(
        test::TestRequest::get()
            .uri("/things")
            .insert_header(("Api-Version", "4.2")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    let body = answer.json();
    assert_eq!(body["Classification"], 1);
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("4.2") && message.contains("5.1") && message.contains("5.0"),
        "{message}"
    );
}

#[actix_web::test]
async fn a_path_of_the_other_table_is_a_404_in_the_selected_envelope() {
    let answer = call_51(test::TestRequest::get().uri("/only50")).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.json()["Classification"], 1);
    let answer = call_51(
        test::TestRequest::get()
            .uri("/only51")
            .insert_header(("Api-Version", "5.0")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(answer.json().get("Classification").is_none());
    assert!(answer.json()["message"].as_str().unwrap().contains("5.1"));
    let answer = call_51(
        test::TestRequest::get()
            .uri("/only50")
            .insert_header(("Api-Version", "5.0")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[actix_web::test]
async fn unknown_routes_and_wrong_methods_are_enveloped() {
    let answer = call_51(test::TestRequest::get().uri("/nowhere")).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.json()["Classification"], 1);

    let answer = call_51(test::TestRequest::put().uri("/things")).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.header("Allow"), Some("GET, POST"));
    assert!(answer.json()["message"].as_str().unwrap().contains("PUT"));
}

#[actix_web::test]
async fn levels_come_from_the_table_and_aliases_answer_alike() {
    let answer = call_51(test::TestRequest::get().uri("/things/7")).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(
        answer.json(),
        json!({"message": "no thing 7", "Classification": 4, "code": "device_not_found"})
    );
    let answer = call_51(test::TestRequest::get().uri("/stuff/1")).await;
    assert_eq!(answer.json()["thing"], json!({"id": 1}));
    let answer = call_51(test::TestRequest::get().uri("/things/x")).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    let body = answer.json();
    assert_eq!(body["code"], "invalid_parameter");
    assert_eq!(body["problems"][0]["field"], "id");
}

#[actix_web::test]
async fn bodies_are_checked_for_type_size_syntax_and_every_rule() {
    let post = || test::TestRequest::post().uri("/things");
    let answer = call_51(post().set_json(json!({"instance": "sim", "name": "a"}))).await;
    assert_eq!(answer.status, StatusCode::CREATED);
    assert_eq!(answer.json()["Classification"], 3);

    let answer = call_51(
        post()
            .insert_header(("Content-Type", "text/plain"))
            .set_payload("name=a"),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(answer.json()["Classification"], 1);

    let answer = call_51(
        post()
            .insert_header(("Content-Type", "application/json"))
            .set_payload("{\"name\": "),
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(
        answer.json()["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );

    // Three bad fields: three problems, each beside its field.
    let answer =
        call_51(post().set_json(json!({"instance": 3, "name": "../x", "extra": true}))).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    let body = answer.json();
    assert_eq!(body["code"], "invalid_body");
    let message = body["message"].as_str().unwrap().to_owned();
    for field in ["instance:", "name:", "extra:"] {
        assert!(message.contains(field), "{field} missing from {message}");
    }
    let mut fields: Vec<&str> = body["problems"]
        .as_array()
        .expect("a list of problems")
        .iter()
        .map(|problem| {
            assert!(
                problem["problem"]
                    .as_str()
                    .is_some_and(|text| !text.is_empty())
            );
            problem["field"].as_str().expect("a field")
        })
        .collect();
    fields.sort_unstable();
    assert_eq!(fields, ["extra", "instance", "name"]);

    let huge = format!(
        "{{\"instance\": \"sim\", \"name\": \"{}\"}}",
        "a".repeat(netcfg_api::JSON_BODY_LIMIT)
    );
    let answer = call_51(
        post()
            .insert_header(("Content-Type", "application/json"))
            .set_payload(huge),
    )
    .await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.json()["Classification"], 1);

    let answer = call_51(post()).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(
        answer.json()["message"]
            .as_str()
            .unwrap()
            .contains("body is required")
    );
}

#[actix_web::test]
async fn a_remapped_deletion_is_a_204_with_its_message_in_a_header() {
    let answer = call_51(test::TestRequest::delete().uri("/things/1")).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.json(),
        json!({"message": "Item Deleted", "Classification": 3})
    );
    let answer = call_51(
        test::TestRequest::delete()
            .uri("/things/1")
            .insert_header(("Api-Version", "5.0")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert!(answer.body.is_empty());
    assert_eq!(answer.header("Netcfg-Message"), Some("Item Deleted"));
    assert_eq!(answer.header("Netcfg-Classification"), None);
}

#[actix_web::test]
async fn an_undeclared_status_fails_loudly_in_debug_builds() {
    let answer = call_51(test::TestRequest::get().uri("/undeclared")).await;
    assert_eq!(answer.status, StatusCode::INTERNAL_SERVER_ERROR);
    // The client learns an incident id, not what went wrong inside.
    let body = answer.json();
    assert_eq!(body["code"], "internal_error");
    let incident = body["incident"].as_str().expect("an incident id");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains(incident), "{message}");
    assert!(!message.contains("declare"), "{message}");
}

#[actix_web::test]
async fn the_description_lists_exactly_the_served_operations_of_each_table() {
    let answer = call_51(test::TestRequest::get().uri("/api.json")).await;
    assert_eq!(answer.status, StatusCode::OK);
    let document = answer.json();
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["info"]["version"], "5.1.0");
    let mut operations: Vec<String> = document["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, operations)| {
            operations
                .as_object()
                .unwrap()
                .keys()
                .map(move |method| format!("{} {path}", method.to_uppercase()))
        })
        .collect();
    operations.sort();
    assert_eq!(
        operations,
        [
            "DELETE /things/{id}",
            "GET /api.json",
            "GET /only51",
            "GET /stuff/{id}",
            "GET /things",
            "GET /things/{id}",
            "GET /undeclared",
            "POST /things",
        ]
    );
    let post = &document["paths"]["/things"]["post"];
    assert!(post["responses"]["413"].is_object() && post["responses"]["415"].is_object());
    assert_eq!(
        post["requestBody"]["content"]["application/json"]["schema"]["properties"]["name"]["type"],
        "string"
    );

    let answer = call_51(test::TestRequest::get().uri("/api.json?version=5.0")).await;
    let document = answer.json();
    assert_eq!(document["info"]["version"], "5.0.1");
    assert!(document["paths"]["/only50"].is_object() && document["paths"]["/only51"].is_null());
    assert!(document["paths"]["/things/{id}"]["delete"]["responses"]["204"].is_object());
}

#[actix_web::test]
async fn the_description_renders_as_html_on_request() {
    let answer = call_51(
        test::TestRequest::get()
            .uri("/api.json")
            .insert_header(("Accept", "text/html")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(
        answer
            .header("Content-Type")
            .unwrap()
            .starts_with("text/html")
    );
    let page = String::from_utf8(answer.body).unwrap();
    assert!(page.contains("<code>/things/{id}</code>") && page.contains("netcfg API 5.1.0"));
}

#[actix_web::test]
async fn the_browser_is_served_from_the_binary() {
    let answer = call_51(test::TestRequest::get().uri("/api")).await;
    assert_eq!(answer.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(answer.header("Location"), Some("/api/"));
    let answer = call_51(test::TestRequest::get().uri("/api/")).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&answer.body).contains("swagger"));
    let answer = call_51(test::TestRequest::get().uri("/api/swagger-initializer.js")).await;
    let script = String::from_utf8_lossy(&answer.body).into_owned();
    assert!(
        script.contains("/api.json?version=5.1") && script.contains("/api.json?version=5.0"),
        "{script}"
    );
}
