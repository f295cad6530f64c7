//! The server's integration tests, one binary (each binary links the whole
//! stack again; on two cores that is what a test run spends most on). The
//! layer rules are the module `layers`: `cargo xtask layers` runs
//! `cargo test -p netcfg-http --test it layers::`.

mod support;

mod alerts;
mod architecture_doc;
mod concurrency;
mod disks;
mod e2e;
mod events;
mod first_hour;
mod floods;
mod history;
mod layers;
mod operations;
mod outputs;
mod people;
mod recordings;
mod schedules;
mod secured_outputs;
mod security;
mod several_hosts;
mod sign_on;
mod site;
mod tls;
mod tracking;
mod zones;
