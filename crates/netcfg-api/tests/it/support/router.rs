//! Which row of a table a request reaches, found independently of the
//! app's dispatcher (`src/dispatch.rs`, `src/router.rs`), so that the
//! walk checks it rather than copies it: a path's candidates are the
//! patterns of both tables that actix's own `ResourceDef` matches, and the
//! one reached is the candidate that keeps the most of the path as literal
//! text (a static segment beats a parameter, a parameter beside text
//! beats a bare one). Patterns that differ only in their parameters' names
//! (`{id}` in 5.1, `{name}` in 5.0) keep as much, and are told apart by
//! the version whose table uses them. Where this rule and the dispatcher disagree, the walk
//! fails on a status its row does not declare.

use std::collections::BTreeSet;

use actix_web::dev::{Path, ResourceDef};
use netcfg_api::{ApiVersion, Route, Tables};

/// The path patterns of both tables.
#[derive(Debug)]
pub(crate) struct Router {
    patterns: Vec<(&'static str, ResourceDef)>,
    tables: Tables,
}

impl Router {
    /// The router of the API's own tables, as `create_app` serves them.
    pub(crate) fn new() -> Self {
        let tables = Tables::standard();
        let unique: BTreeSet<&'static str> = tables
            .tables()
            .flat_map(|table| table.routes.iter().flat_map(|route| route.paths.clone()))
            .collect();
        let patterns = unique
            .into_iter()
            .map(|pattern| (pattern, ResourceDef::new(pattern)))
            .collect();
        Self { patterns, tables }
    }

    /// The pattern a path reaches in `version`.
    pub(crate) fn pattern(&self, version: ApiVersion, path: &str) -> Option<&'static str> {
        let path = path.split('?').next().unwrap_or(path);
        // Twins keep as much literal text: the version's own comes first.
        self.patterns
            .iter()
            .filter_map(|(pattern, definition)| {
                let mut matched = Path::new(path);
                let rank = (
                    literal_length(path, matched_or_none(definition, &mut matched)?),
                    uses(&self.tables, version, pattern),
                );
                Some((rank, *pattern))
            })
            .max_by_key(|(rank, _)| *rank)
            .map(|(_, pattern)| pattern)
    }

    /// The row a request reaches in `version`'s table.
    pub(crate) fn route(
        &self,
        version: ApiVersion,
        method: &str,
        path: &str,
    ) -> Option<(&Route, &'static str)> {
        let pattern = self.pattern(version, path)?;
        self.tables
            .table(version)
            .routes
            .iter()
            .find(|route| route.method.as_str() == method && route.paths.contains(&pattern))
            .map(|route| (route, pattern))
    }
}

fn uses(tables: &Tables, version: ApiVersion, pattern: &str) -> bool {
    tables
        .table(version)
        .routes
        .iter()
        .any(|route| route.paths.contains(&pattern))
}

/// `matched` once `definition` matched it, `None` when it does not match.
fn matched_or_none<'a, 'p>(
    definition: &ResourceDef,
    matched: &'a mut Path<&'p str>,
) -> Option<&'a Path<&'p str>> {
    definition.capture_match_info(matched).then_some(matched)
}

/// How much of `path` a match kept as literal text: its length less what
/// the parameters captured.
fn literal_length(path: &str, matched: &Path<&str>) -> usize {
    let captured: usize = matched.iter().map(|(_, value)| value.len()).sum();
    path.len().saturating_sub(captured)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reached(path: &str) -> Option<&'static str> {
        Router::new().pattern(ApiVersion::V5_1, path)
    }

    #[test]
    fn the_most_literal_match_is_reached() {
        assert_eq!(reached("/nets/site"), Some("/nets/{net_name}"));
        assert_eq!(reached("/nets/site/devices/extra/deep/x"), None);
        assert_eq!(
            reached("/nets/site/devices/action"),
            Some("/nets/{net_name}/devices/action"),
            "a static segment beats a parameter"
        );
        assert_eq!(
            reached("/nets/site/devices/01:04:0001-0"),
            Some("/nets/{net_name}/devices/{device_key}-{interface_identifier}"),
            "a parameter beside text beats a bare one"
        );
        assert_eq!(
            reached("/nets/site/devices/01:04:0001"),
            Some("/nets/{net_name}/devices/{device_key}")
        );
    }
}
