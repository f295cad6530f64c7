//! The model's integration tests, one binary (each binary links the crate
//! again; on two cores that is what a test run spends most on).

mod body_fixtures;
mod max_tags;
mod max_tags_properties;
mod schedule_properties;
