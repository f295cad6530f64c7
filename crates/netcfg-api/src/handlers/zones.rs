//! Zones (decisions §13): 5.1 only, addressed by name.

use netcfg_model::body::{ZonePatchBody, ZonePostBody};

use super::count;
use crate::{
    context::Ctx,
    path::{NetPath, ZonePath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: ZonePostBody = context.body()?;
    let write = context.write();
    let zone = context
        .service()
        .create_zone(&path.net_name, body, write)
        .await?;
    Reply::created(format!("Zone {} created", zone.name)).with::<keys::Zone>(&zone)
}

pub(crate) async fn get(context: Ctx, path: ZonePath) -> Result<Reply, ApiError> {
    let zone = context
        .service()
        .zone(&path.net_name, path.zone_name)
        .await?;
    Reply::ok(format!("Zone {}", zone.name)).with::<keys::Zone>(&zone)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let zones = context.service().zones(&path.net_name).await?;
    Reply::ok(count(zones.len(), "zone")).with::<keys::Zones>(&zones)
}

pub(crate) async fn update(context: Ctx, path: ZonePath) -> Result<Reply, ApiError> {
    let body: ZonePatchBody = context.body()?;
    let write = context.write();
    let zone = context
        .service()
        .patch_zone(&path.net_name, path.zone_name, body, write)
        .await?;
    Reply::ok(format!("Zone {} updated", zone.name)).with::<keys::Zone>(&zone)
}

pub(crate) async fn delete(context: Ctx, path: ZonePath) -> Result<Reply, ApiError> {
    let message = format!("Zone {} deleted", path.zone_name);
    let write = context.write();
    context
        .service()
        .delete_zone(&path.net_name, path.zone_name, write)
        .await?;
    Ok(Reply::new(actix_web::http::StatusCode::NO_CONTENT, message))
}

pub(crate) async fn occupancy(context: Ctx, path: ZonePath) -> Result<Reply, ApiError> {
    let occupants = context
        .service()
        .zone_occupancy(&path.net_name, path.zone_name)
        .await?;
    Reply::ok(count(occupants.len(), "tag")).with::<keys::Occupancy>(&occupants)
}
