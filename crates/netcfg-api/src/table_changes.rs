//! The differences of one table from another: the 5.0 table is the 5.1
//! table with a list of [`Change`]s applied.

use actix_web::http::StatusCode;

use crate::{
    operation::Operation,
    table::{Declared, Route},
};

/// A difference of one table from another: the 5.0 table is the 5.1 table
/// with a list of these applied (the seed's "Differences in 5.0").
#[derive(Debug, Clone)]
pub enum Change {
    /// The operation does not exist in this version.
    Remove(Operation),
    /// An operation only this version has.
    Add(Route),
    /// The operation is served differently: a route replaces it.
    Replace(Route),
    /// The operation answers `to` where the handler answers `from` (a
    /// success or an error).
    Remap {
        /// The operation.
        operation: Operation,
        /// The status the handler gives.
        from: StatusCode,
        /// The status this version sends, with its payload and level.
        to: Declared,
    },
    /// The operation does not declare this status in this version.
    Undeclare {
        /// The operation.
        operation: Operation,
        /// The status.
        status: StatusCode,
    },
}

/// `base` with `changes` applied, in order.
///
/// # Panics
/// When a change names an operation that is not there: a bug in a table
/// literal, which the tests catch.
pub fn apply_changes(mut base: Vec<Route>, changes: Vec<Change>) -> Vec<Route> {
    fn find(routes: &mut [Route], operation: Operation) -> &mut Route {
        routes
            .iter_mut()
            .find(|route| route.operation == operation)
            .unwrap_or_else(|| panic!("no operation {operation} to change"))
    }
    for change in changes {
        match change {
            Change::Remove(operation) => {
                let before = base.len();
                base.retain(|route| route.operation != operation);
                assert_ne!(before, base.len(), "no operation {operation} to remove");
            }
            Change::Add(route) => base.push(route),
            Change::Replace(route) => {
                let operation = route.operation;
                *find(&mut base, operation) = route;
            }
            Change::Remap {
                operation,
                from,
                to,
            } => {
                let route = find(&mut base, operation);
                route
                    .responses
                    .retain(|declared| declared.status != from && declared.status != to.status);
                route.responses.push(to);
                route.remaps.push((from, to.status));
            }
            Change::Undeclare { operation, status } => {
                find(&mut base, operation)
                    .responses
                    .retain(|declared| declared.status != status);
            }
        }
    }
    base
}
