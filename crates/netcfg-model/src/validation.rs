//! Problems found in input, each with the path of the field it concerns.
//!
//! Validation in this crate never stops at the first problem: every check
//! pushes onto a [`Problems`] list, so a client learns everything that is wrong
//! with a request in one round trip.

use std::fmt;

/// One thing wrong with an input, and where.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Problem {
    /// Where the problem is: field names joined by `.`, array indices in
    /// brackets (`interfaces[0].x`). Empty for the body as a whole.
    pub path: String,
    /// What is wrong, in words meant for the person who wrote the request.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Every problem found in one input. Empty means valid.
#[derive(Debug, Clone, Default, PartialEq, Eq, thiserror::Error)]
pub struct Problems(Vec<Problem>);

impl Problems {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a problem at `path`.
    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    /// Appends every problem of `other`.
    pub fn extend(&mut self, other: Problems) {
        self.0.extend(other.0);
    }

    /// True when nothing is wrong.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The problems, in the order they were found.
    pub fn as_slice(&self) -> &[Problem] {
        &self.0
    }

    /// The paths of the problems, in order: what tests compare.
    #[cfg(test)]
    pub(crate) fn paths(&self) -> Vec<&str> {
        self.0.iter().map(|problem| problem.path.as_str()).collect()
    }

    /// `Ok(value)` when no problem was recorded, else `Err(self)`.
    pub fn into_result<T>(self, value: T) -> Result<T, Problems> {
        if self.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
}

impl IntoIterator for Problems {
    type Item = Problem;
    type IntoIter = std::vec::IntoIter<Problem>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl From<Problem> for Problems {
    fn from(problem: Problem) -> Self {
        Self(vec![problem])
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

/// Joins a parent path and a field name: `join("a", "b") == "a.b"`,
/// `join("", "b") == "b"`.
///
/// Built by appending, not `format!`: a body's reader makes the path of
/// every field it reads, on every request.
pub(crate) fn join(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        return field.to_owned();
    }
    let mut path = String::with_capacity(parent.len() + 1 + field.len());
    path.push_str(parent);
    path.push('.');
    path.push_str(field);
    path
}

/// The path of element `index` of the array at `parent`: `a[3]`.
pub(crate) fn index(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

/// A resource or body that can check its own rules.
pub trait Validate {
    /// Records every broken rule in `problems`, with paths under `path`.
    fn validate_at(&self, path: &str, problems: &mut Problems);

    /// Every problem of `self`, at the top level.
    fn validate(&self) -> Result<(), Problems> {
        let mut problems = Problems::new();
        self.validate_at("", &mut problems);
        problems.into_result(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_display_every_problem_with_its_path() {
        let mut problems = Problems::new();
        problems.push("name", "must not be empty");
        problems.push("", "at least one field must be given");
        assert_eq!(
            problems.to_string(),
            "name: must not be empty; at least one field must be given"
        );
        assert_eq!(problems.into_result(()).unwrap_err().as_slice().len(), 2);
    }

    #[test]
    fn paths_join_fields_and_indices() {
        assert_eq!(join("", "a"), "a");
        assert_eq!(join(&index("interfaces", 2), "x"), "interfaces[2].x");
        assert_eq!(join("interfaces[2]", "role_id"), "interfaces[2].role_id");
    }
}
