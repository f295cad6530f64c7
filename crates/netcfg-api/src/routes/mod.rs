//! The route tables of the API, as data.

mod v5_0;
mod v5_1;

use crate::{
    table::{Table, apply_changes},
    version::ApiVersion,
};

/// Both tables: 5.1, and 5.0 as 5.1 with the seed's differences applied.
pub(crate) fn tables() -> Vec<Table> {
    vec![
        Table::new(ApiVersion::V5_1, v5_1::routes()),
        Table::new(
            ApiVersion::V5_0,
            apply_changes(v5_1::routes(), v5_0::changes()),
        ),
    ]
}
