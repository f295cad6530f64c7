//! Schedules (decisions §16): 5.1 only, addressed by name.

use netcfg_model::body::{SchedulePatchBody, SchedulePostBody};

use super::count;
use crate::{
    context::Ctx,
    path::{NetPath, SchedulePath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: SchedulePostBody = context.body()?;
    let write = context.write();
    let schedule = context
        .service()
        .create_schedule(&path.net_name, body, write)
        .await?;
    Reply::created(format!("Schedule {} created", schedule.schedule.name))
        .with::<keys::Schedule>(&schedule)
}

pub(crate) async fn get(context: Ctx, path: SchedulePath) -> Result<Reply, ApiError> {
    let schedule = context
        .service()
        .schedule(&path.net_name, path.schedule_name)
        .await?;
    Reply::ok(format!("Schedule {}", schedule.schedule.name)).with::<keys::Schedule>(&schedule)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let schedules = context.service().schedules(&path.net_name).await?;
    Reply::ok(count(schedules.len(), "schedule")).with::<keys::Schedules>(&schedules)
}

pub(crate) async fn update(context: Ctx, path: SchedulePath) -> Result<Reply, ApiError> {
    let body: SchedulePatchBody = context.body()?;
    let write = context.write();
    let schedule = context
        .service()
        .patch_schedule(&path.net_name, path.schedule_name, body, write)
        .await?;
    Reply::ok(format!("Schedule {} updated", schedule.schedule.name))
        .with::<keys::Schedule>(&schedule)
}

pub(crate) async fn delete(context: Ctx, path: SchedulePath) -> Result<Reply, ApiError> {
    let message = format!("Schedule {} deleted", path.schedule_name);
    let write = context.write();
    context
        .service()
        .delete_schedule(&path.net_name, path.schedule_name, write)
        .await?;
    Ok(Reply::new(actix_web::http::StatusCode::NO_CONTENT, message))
}
