//! Which row of a table a request reaches, found the way the app finds it:
//! the first path pattern (of either table, static segments first) that
//! matches the path, then the row of the selected version with that pattern
//! and the request's method. Patterns of one shape (`{id}` in 5.1, `{name}`
//! in 5.0) are each reached only by the versions that use them.

use std::collections::BTreeSet;

use netcfg_api::{ApiVersion, Route, Tables};

/// The path patterns of both tables, in the order the app tries them.
#[derive(Debug)]
pub(crate) struct Router {
    patterns: Vec<&'static str>,
    tables: Tables,
}

impl Router {
    /// The router of the API's own tables, as `create_app` serves them.
    pub(crate) fn new() -> Self {
        let tables = Tables::standard(false);
        let unique: BTreeSet<&'static str> = tables
            .tables()
            .flat_map(|table| table.routes.iter().flat_map(|route| route.paths.clone()))
            .collect();
        let mut patterns: Vec<&'static str> = unique.into_iter().collect();
        patterns.sort_by_key(|pattern| specificity(pattern));
        Self { patterns, tables }
    }

    /// The pattern a path reaches in `version`.
    pub(crate) fn pattern(&self, version: ApiVersion, path: &str) -> Option<&'static str> {
        let path = path.split('?').next().unwrap_or(path);
        self.patterns.iter().copied().find(|pattern| {
            matches(pattern, path)
                && (self.twins(pattern) == 1 || uses(&self.tables, version, pattern))
        })
    }

    fn twins(&self, pattern: &str) -> usize {
        self.patterns
            .iter()
            .filter(|other| shape(other) == shape(pattern))
            .count()
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

/// A pattern with its parameters' names erased.
fn shape(pattern: &str) -> String {
    let mut shape = String::new();
    let mut in_parameter = false;
    for character in pattern.chars() {
        match character {
            '{' => in_parameter = true,
            '}' => {
                in_parameter = false;
                shape.push_str("{}");
            }
            _ if in_parameter => {}
            other => shape.push(other),
        }
    }
    shape
}

/// The dispatcher's order: per segment 0 for static text, 1 for a parameter
/// beside text, 2 for a bare parameter.
fn specificity(pattern: &str) -> Vec<u8> {
    pattern
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            match (
                segment.starts_with('{') && segment.ends_with('}'),
                segment.contains('{'),
            ) {
                (true, _) if segment.matches('{').count() == 1 => 2,
                (_, true) => 1,
                _ => 0,
            }
        })
        .collect()
}

/// True when `path` matches `pattern` (each `{parameter}` is one or more
/// characters other than `/`).
fn matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    pattern.len() == path.len()
        && pattern
            .iter()
            .zip(&path)
            .all(|(pattern, segment)| segment_matches(&tokens(pattern), segment))
}

enum Token<'a> {
    Text(&'a str),
    Parameter,
}

fn tokens(segment: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut rest = segment;
    while let Some(start) = rest.find('{') {
        if start > 0 {
            tokens.push(Token::Text(&rest[..start]));
        }
        let end = rest[start..]
            .find('}')
            .map_or(rest.len(), |end| start + end + 1);
        tokens.push(Token::Parameter);
        rest = &rest[end..];
    }
    if !rest.is_empty() {
        tokens.push(Token::Text(rest));
    }
    tokens
}

fn segment_matches(tokens: &[Token<'_>], text: &str) -> bool {
    match tokens.split_first() {
        None => text.is_empty(),
        Some((Token::Text(literal), rest)) => text
            .strip_prefix(literal)
            .is_some_and(|remaining| segment_matches(rest, remaining)),
        Some((Token::Parameter, rest)) => (1..=text.len())
            .rev()
            .filter(|split| text.is_char_boundary(*split))
            .any(|split| segment_matches(rest, &text[split..])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_beside_text_match_like_the_router() {
        let interface = tokens("{device_key}-{interface_identifier}");
        assert!(segment_matches(&interface, "01:04:0001-0"));
        assert!(!segment_matches(&interface, "01:04:0001"));
        assert!(segment_matches(
            &tokens("{_type}_interfaces"),
            "twr_interfaces"
        ));
        assert!(!segment_matches(
            &tokens("{_type}_interfaces"),
            "_interfaces"
        ));
        assert!(matches("/nets/{net_name}", "/nets/site"));
        assert!(!matches("/nets/{net_name}", "/nets/site/devices"));
    }
}
