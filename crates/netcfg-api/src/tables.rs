//! The route tables the server serves (one per API version) and their
//! published OpenAPI documents: plain data, handed to actix as
//! `web::Data<Tables>` beside the application's state. The router, the
//! dispatcher and the description are all built from it.

use std::sync::OnceLock;

use actix_web::web::Bytes;

use crate::{openapi, table::Table, version::ApiVersion};

/// Every version's table, with its OpenAPI document rendered on the first
/// request for it: the document is large (hundreds of kilobytes as JSON,
/// many times that as a tree), and a server nobody asks for it need not
/// hold it.
#[derive(Debug)]
pub struct Tables {
    published: Vec<Published>,
}

#[derive(Debug)]
struct Published {
    table: Table,
    rendered: OnceLock<Bytes>,
}

impl Tables {
    /// The API's own tables (5.1 and 5.0).
    pub fn standard() -> Self {
        Self::new(crate::routes::tables())
    }

    /// `tables`, one per version: for tests of the framework.
    ///
    /// # Panics
    /// When a version has no table: a wiring bug caught by the first test.
    pub fn new(tables: Vec<Table>) -> Self {
        let published: Vec<Published> = tables
            .into_iter()
            .map(|table| Published {
                table,
                rendered: OnceLock::new(),
            })
            .collect();
        for version in ApiVersion::ALL {
            assert!(
                published
                    .iter()
                    .any(|published| published.table.version == version),
                "no route table for version {version}"
            );
        }
        Self { published }
    }

    /// The table of `version`.
    pub fn table(&self, version: ApiVersion) -> &Table {
        &self.entry(version).table
    }

    /// Every table.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.published.iter().map(|published| &published.table)
    }

    /// The OpenAPI document of `version`, built anew.
    pub fn document(&self, version: ApiVersion) -> openapi::Document {
        openapi::document(self.table(version))
    }

    /// The OpenAPI document of `version` as served (pretty JSON), rendered
    /// once.
    pub(crate) fn document_bytes(&self, version: ApiVersion) -> Bytes {
        self.entry(version)
            .rendered
            .get_or_init(|| {
                let document = self.document(version);
                Bytes::from(
                    serde_json::to_vec_pretty(&document)
                        .expect("a document of strings, maps and schemas always renders"),
                )
            })
            .clone()
    }

    fn entry(&self, version: ApiVersion) -> &Published {
        self.published
            .iter()
            .find(|published| published.table.version == version)
            .unwrap_or(&self.published[0])
    }
}
