//! The API's integration tests, one binary (each binary links the whole
//! stack again; on two cores that is what a test run spends most on).

mod support;

mod auth;
mod device_list_cache;
mod framework;
mod front_end;
mod generated_docs;
mod openapi;
mod roles;
mod routes;
