//! The store's integration tests, one binary (each binary links the crate
//! again; on two cores that is what a test run spends most on). Two stay
//! binaries of their own: `tests/crash.rs` has its own `main` (it runs
//! itself as the child it kills) and `tests/rest.rs` counts the writer
//! threads of its process, so no other test's store may live beside it.

mod support;

mod change;
mod generation;
mod history;
mod hostile;
mod lifecycle;
mod log_room;
mod people;
mod recordings;
mod restores;
mod retention;
mod scenarios;
mod secrets;
mod store;
mod surveys;
