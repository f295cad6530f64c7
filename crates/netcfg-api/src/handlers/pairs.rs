//! Device pairs (5.1) and paired interfaces (5.0): the same pairs, seen from
//! a device or from one interface.

use actix_web::http::StatusCode;
use netcfg_model::{
    DevicePair,
    body::{DevicePairsBody, InterfaceRef, PairedInterfaceBody},
};
use netcfg_service::PairOutcome;

use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{DevicePairsPath, NetPath, PairedInterfacePath, PairedInterfacesPath},
    payload::keys,
    reply::{ApiError, Reply},
    wire::PairedInterface,
};

/// What a batch of pair changes did, as the seed's statuses: all done (the
/// success status), some (206), none because every pair was already so
/// (409 when creating), or none for other reasons (417).
fn batch_reply(
    outcomes: Vec<(DevicePair, PairOutcome)>,
    success: StatusCode,
    verb: &str,
) -> Result<Reply, ApiError> {
    let total = outcomes.len();
    let done = outcomes
        .iter()
        .filter(|(_, outcome)| outcome.succeeded())
        .count();
    let failures: Vec<String> = outcomes
        .iter()
        .filter(|(_, outcome)| !outcome.succeeded())
        .map(|(pair, outcome)| {
            format!(
                "{}-{} ({}): {}",
                pair.serial_number_1,
                pair.serial_number_2,
                pair.pair_type,
                describe(outcome)
            )
        })
        .collect();
    if done == total {
        return Ok(Reply::new(
            success,
            format!("{done} of {total} pairs {verb}"),
        ));
    }
    let detail = failures.join("; ");
    if done > 0 {
        return Ok(Reply::new(
            StatusCode::PARTIAL_CONTENT,
            format!("{done} of {total} pairs {verb}; {detail}"),
        ));
    }
    let all_existed = outcomes
        .iter()
        .all(|(_, outcome)| matches!(outcome, PairOutcome::AlreadyPaired { .. }));
    let code = if all_existed {
        ErrorCode::AlreadyPaired
    } else {
        ErrorCode::PairingFailed
    };
    Err(ApiError::new(code, format!("no pair {verb}: {detail}")))
}

/// What happened to one pair, in words.
fn describe(outcome: &PairOutcome) -> String {
    match outcome {
        PairOutcome::Created => "created".to_owned(),
        PairOutcome::Deleted => "deleted".to_owned(),
        PairOutcome::AlreadyPaired { pair_type } => format!("already paired ({pair_type})"),
        PairOutcome::NotPaired => "not paired".to_owned(),
        PairOutcome::UnknownDevice { serial_number } => {
            format!("device {serial_number} is not in the configuration")
        }
        PairOutcome::UnknownInterface {
            serial_number,
            identifier,
        } => {
            format!("device {serial_number} has no interface {identifier}")
        }
        PairOutcome::SelfPair => "an interface cannot pair with itself".to_owned(),
    }
}

fn pairs_of_body(body: &DevicePairsBody) -> Vec<DevicePair> {
    body.pairs.iter().map(|pair| pair.to_pair()).collect()
}

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: DevicePairsBody = context.body()?;
    let pairs = pairs_of_body(&body);
    let write = context.write();
    let outcomes = context
        .service()
        .create_pairs(&path.net_name, pairs, write)
        .await?;
    batch_reply(outcomes, StatusCode::CREATED, "created")
}

pub(crate) async fn delete(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: DevicePairsBody = context.body()?;
    let pairs = pairs_of_body(&body);
    let write = context.write();
    let outcomes = context
        .service()
        .delete_pairs(&path.net_name, pairs, write)
        .await?;
    batch_reply(outcomes, StatusCode::OK, "deleted")
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let pairs = context.service().pairs(&path.net_name).await?;
    Reply::ok(format!("{} pairs", pairs.len())).with::<keys::Pairs>(&pairs)
}

pub(crate) async fn of_device(context: Ctx, path: DevicePairsPath) -> Result<Reply, ApiError> {
    let serial = path.serial_number;
    let pairs = context.service().pairs_of(&path.net_name, serial).await?;
    Reply::ok(format!("{} pairs of device {serial}", pairs.len())).with::<keys::Pairs>(&pairs)
}

pub(crate) async fn add_paired_interface(
    context: Ctx,
    path: PairedInterfacesPath,
) -> Result<Reply, ApiError> {
    let (key, identifier, pair_type) = (path.device_key, path.interface_identifier, path._type);
    let PairedInterfaceBody { interface: other } = context.body()?;
    let write = context.write();
    let serial = context
        .service()
        .pair_interface(&path.net_name, key, identifier, pair_type, other, write)
        .await?;
    let this = InterfaceRef {
        serial_number: serial,
        identifier,
    };
    Reply::created(format!(
        "Interface {this} paired with {other} ({pair_type})"
    ))
    .with::<keys::PairedInterface>(&PairedInterface {
        interface: this.to_string(),
        paired_with: other.to_string(),
        pair_type,
    })
}

pub(crate) async fn delete_paired_interface(
    context: Ctx,
    path: PairedInterfacePath,
) -> Result<Reply, ApiError> {
    let (key, identifier, pair_type, other) = (
        path.device_key,
        path.interface_identifier,
        path._type,
        path.interface,
    );
    let write = context.write();
    context
        .service()
        .unpair_interface(&path.net_name, key, identifier, pair_type, other, write)
        .await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("Interface {key}-{identifier} unpaired from {other} ({pair_type})"),
    ))
}
