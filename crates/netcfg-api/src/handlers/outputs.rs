//! Outputs (decisions §14): 5.1 only, addressed by name. Their
//! credentials go in and never come out.

use netcfg_model::body::{OutputPatchBody, OutputPostBody};

use super::count;
use crate::{
    context::Ctx,
    path::{NetPath, OutputPath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: OutputPostBody = context.body()?;
    let write = context.write();
    let output = context
        .service()
        .create_output(&path.net_name, body, write)
        .await?;
    Reply::created(format!("Output {} created", output.name)).with::<keys::Output>(&output)
}

pub(crate) async fn get(context: Ctx, path: OutputPath) -> Result<Reply, ApiError> {
    let output = context
        .service()
        .output(&path.net_name, path.output_name)
        .await?;
    Reply::ok(format!("Output {}", output.name)).with::<keys::Output>(&output)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let outputs = context.service().outputs(&path.net_name).await?;
    Reply::ok(count(outputs.len(), "output")).with::<keys::Outputs>(&outputs)
}

pub(crate) async fn update(context: Ctx, path: OutputPath) -> Result<Reply, ApiError> {
    let body: OutputPatchBody = context.body()?;
    let write = context.write();
    let output = context
        .service()
        .patch_output(&path.net_name, path.output_name, body, write)
        .await?;
    Reply::ok(format!("Output {} updated", output.name)).with::<keys::Output>(&output)
}

pub(crate) async fn delete(context: Ctx, path: OutputPath) -> Result<Reply, ApiError> {
    let message = format!("Output {} deleted", path.output_name);
    let write = context.write();
    context
        .service()
        .delete_output(&path.net_name, path.output_name, write)
        .await?;
    Ok(Reply::new(actix_web::http::StatusCode::NO_CONTENT, message))
}

pub(crate) async fn status(context: Ctx, path: OutputPath) -> Result<Reply, ApiError> {
    let status = context
        .service()
        .output_status(&path.net_name, path.output_name.clone())
        .await?;
    let connected = if status.connected {
        "connected"
    } else {
        "not connected"
    };
    Reply::ok(format!("Output {}: {connected}", path.output_name))
        .with::<keys::OutputStatus>(&status)
}
