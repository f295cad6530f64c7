//! Hostile saved-state files (issue 17): valid files mutated (flipped
//! bits, truncation, lies in the header) and files given schema objects of
//! their own (triggers, views, indexes, virtual tables) are uploaded. Each
//! is refused as a bad upload, writing nothing, or accepted with exactly
//! the project's schema; the store never panics and keeps no temporary file.
//! (A file is opened with SQLite's defences on: defensive mode, untrusted
//! schema, cell size checks; `database::connection::configure`.)

use std::path::Path;

use netcfg_store::{BadUpload, Store, StoreError};
use proptest::prelude::*;

use crate::support::{edited, name, store_with_net, tag};

/// Schema objects: type, name, SQL text.
type Schema = Vec<(String, String, Option<String>)>;

/// The schema objects of the file at `path`, sorted.
fn schema_at(path: &Path) -> Schema {
    let conn = rusqlite::Connection::open(path).expect("an SQLite file");
    let mut statement = conn
        .prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name, type")
        .expect("the schema");
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .expect("the schema")
        .collect::<Result<_, _>>()
        .expect("the schema")
}

/// A valid file (a configuration with devices), and the schema every
/// accepted file must have.
fn valid_file() -> (Vec<u8>, Schema) {
    let (temp, net) = store_with_net();
    for number in 1..=5 {
        net.create_device(tag(number)).expect("a device");
    }
    let bytes = temp.store.download(&name("net")).expect("the file");
    let schema = schema_at(&temp.store.data_dir().join("net.sqlite"));
    (bytes, schema)
}

/// Uploads `bytes` into a fresh store and checks the outcome: a bad upload
/// that wrote nothing, or a configuration whose file has exactly `schema`.
/// Either way, no temporary file is left.
fn check_upload(bytes: &[u8], schema: &Schema) -> Result<(), String> {
    let directory = tempfile::tempdir().map_err(|error| error.to_string())?;
    let store = Store::open(directory.path()).map_err(|error| error.to_string())?;
    let outcome = store.upload(&name("uploaded"), bytes);
    let file = directory.path().join("uploaded.sqlite");
    match outcome {
        Ok(_) => {
            let found = schema_at(&file);
            if &found != schema {
                return Err(format!("accepted with another schema: {found:?}"));
            }
        }
        Err(StoreError::BadUpload(_)) => {
            if file.exists() {
                return Err("refused, but the file was written".to_owned());
            }
        }
        Err(other) => {
            return Err(format!(
                "refused as something else than a bad upload: {other}"
            ));
        }
    }
    drop(store);
    let leftovers: Vec<_> = std::fs::read_dir(directory.path().join(".tmp"))
        .map_err(|error| error.to_string())?
        .collect();
    if leftovers.is_empty() {
        Ok(())
    } else {
        Err(format!("temporary files left: {leftovers:?}"))
    }
}

#[test]
fn schema_objects_an_uploader_adds_are_refused() {
    let (good, _) = valid_file();
    for addition in [
        "CREATE TRIGGER spy AFTER INSERT ON devices BEGIN DELETE FROM devices; END",
        "CREATE VIEW everything AS SELECT * FROM devices",
        "CREATE INDEX by_name ON devices (name)",
        "CREATE VIRTUAL TABLE search USING fts5(text)",
        "CREATE TABLE extra (x)",
    ] {
        let bytes = edited(&good, addition);
        let directory = tempfile::tempdir().expect("a directory");
        let store = Store::open(directory.path()).expect("a store");
        match store.upload(&name("uploaded"), &bytes) {
            Err(StoreError::BadUpload(BadUpload::SchemaMismatch { .. })) => {}
            other => panic!("{addition}: {other:?}"),
        }
        assert!(
            !directory.path().join("uploaded.sqlite").exists(),
            "{addition}"
        );
    }
}

/// What is done to a valid file.
#[derive(Debug, Clone)]
enum Mutation {
    /// Flip these bits (byte index modulo the length, bit 0 to 7).
    FlipBits(Vec<(usize, u8)>),
    /// Keep only this share of the file (per mille).
    Truncate(u16),
    /// Write a value into a header field: (offset, bytes).
    HeaderLie(usize, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        prop::collection::vec((any::<usize>(), 0_u8..8), 1..16).prop_map(Mutation::FlipBits),
        (0_u16..1000).prop_map(Mutation::Truncate),
        // The page size (16), the write and read versions (18, 19), the
        // reserved bytes (20), the page count (28), the freelist (32, 36),
        // the schema cookie (40), the schema format (44), the text encoding
        // (56), the user version (60), the application id (68).
        (
            prop::sample::select(vec![16_usize, 18, 19, 20, 28, 32, 36, 40, 44, 56, 60, 68]),
            prop::collection::vec(any::<u8>(), 1..5)
        )
            .prop_map(|(offset, bytes)| Mutation::HeaderLie(offset, bytes)),
    ]
}

fn mutate(good: &[u8], mutation: &Mutation) -> Vec<u8> {
    let mut bytes = good.to_vec();
    match mutation {
        Mutation::FlipBits(flips) => {
            for (index, bit) in flips {
                let at = index % bytes.len();
                bytes[at] ^= 1 << bit;
            }
        }
        Mutation::Truncate(per_mille) => {
            bytes.truncate(bytes.len() * usize::from(*per_mille) / 1000);
        }
        Mutation::HeaderLie(offset, lie) => {
            for (at, byte) in lie.iter().enumerate() {
                bytes[offset + at] = *byte;
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_mutated_file_is_refused_or_accepted_with_exactly_the_schema(mutation in mutation()) {
        let (good, schema) = valid_file();
        let bytes = mutate(&good, &mutation);
        prop_assert_eq!(check_upload(&bytes, &schema), Ok(()), "{:?}", mutation);
    }
}
