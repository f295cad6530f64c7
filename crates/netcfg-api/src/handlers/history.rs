//! A configuration's change history and restore (decisions §10).

use crate::{
    context::Ctx,
    path::{HistoryPath, NetPath},
    payload::keys,
    reply::{ApiError, FieldProblem, Reply},
};

/// The most entries one page holds.
pub(crate) const MAX_LIMIT: u32 = 1_000;
/// The entries of a page when `limit` is not given.
pub(crate) const DEFAULT_LIMIT: u32 = 100;

/// The `limit` query parameter, as the OpenAPI documents describe it.
pub(crate) struct LimitParameter;

impl schemars::JsonSchema for LimitParameter {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HistoryLimit".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT})
    }
}

/// The `before` query parameter: a change's id.
pub(crate) struct BeforeParameter;

impl schemars::JsonSchema for BeforeParameter {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HistoryBefore".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "minimum": 1, "maximum": i64::MAX})
    }
}

/// `?before=<id>&limit=<n>`, read with every problem named.
fn page(context: &Ctx) -> Result<(Option<u64>, u32), ApiError> {
    let mut problems = Vec::new();
    let before = context
        .query("before")
        .and_then(|text| match text.trim().parse::<u64>() {
            Ok(id) if id >= 1 => Some(id),
            _ => {
                problems.push(FieldProblem {
                    field: "before".to_owned(),
                    problem: format!("`{text}` is not a change's id (a whole number from 1)"),
                });
                None
            }
        });
    let mut limit = DEFAULT_LIMIT;
    if let Some(text) = context.query("limit") {
        match text.trim().parse::<u32>() {
            Ok(number) if (1..=MAX_LIMIT).contains(&number) => limit = number,
            _ => problems.push(FieldProblem {
                field: "limit".to_owned(),
                problem: format!("`{text}` is not a whole number from 1 to {MAX_LIMIT}"),
            }),
        }
    }
    if problems.is_empty() {
        Ok((before, limit))
    } else {
        Err(ApiError::parameters(problems))
    }
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let (before, limit) = page(&context)?;
    let entries = context
        .service()
        .history(&path.net_name, before, limit)
        .await?;
    let message = match entries.last() {
        Some(oldest) if entries.len() == limit as usize => format!(
            "{}, newest first; the next page: ?before={}",
            super::count(entries.len(), "change"),
            oldest.id
        ),
        _ => format!("{}, newest first", super::count(entries.len(), "change")),
    };
    Reply::ok(message).with::<keys::History>(&entries)
}

pub(crate) async fn restore(context: Ctx, path: HistoryPath) -> Result<Reply, ApiError> {
    let HistoryPath { net_name, id } = path;
    let write = context.write();
    let configuration = context.service().restore(&net_name, id, write).await?;
    Reply::ok(format!(
        "Configuration {net_name} restored to what it was right after change {id} (one new change, which can be undone in turn)"
    ))
    .with::<keys::Configuration>(&configuration)
}
