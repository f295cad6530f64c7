//! The handlers: one function per operation, shared by every version that
//! serves it. Store calls run on actix's blocking pool (SQLite waits for the
//! disk); engine calls are futures that run on the engine's runtime.

pub(crate) mod cache;
pub(crate) mod commands;
pub(crate) mod devices;
pub(crate) mod events;
pub(crate) mod history;
pub(crate) mod interfaces;
pub(crate) mod limits;
pub(crate) mod logs;
pub(crate) mod max_tags;
pub(crate) mod misc;
pub(crate) mod nets;
pub(crate) mod notifications;
pub(crate) mod pairs;
pub(crate) mod rf;
pub(crate) mod roles;
pub(crate) mod settings;
pub(crate) mod streams;

use actix_web::web;
use netcfg_engine::NetworkPlan;
use netcfg_model::{ChangeRecord, ConfigName, Configuration, RunState};
use netcfg_store::{Net, Store, StoreError};

use crate::{context::Ctx, error_code::ErrorCode, reply::ApiError};

/// Runs `work` on the store, on the blocking pool.
pub(crate) async fn store<T, F>(context: &Ctx, work: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
{
    let state = context.state_handle();
    web::block(move || work(state.store()))
        .await
        .map_err(|error| ApiError::internal(format_args!("the store's worker failed: {error}")))?
        .map_err(ApiError::from)
}

/// Runs `work` on the configuration `name`.
pub(crate) async fn net<T, F>(context: &Ctx, name: &ConfigName, work: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Net) -> Result<T, StoreError> + Send + 'static,
{
    let name = name.clone();
    store(context, move |store| work(&store.net(&name)?)).await
}

/// Runs `change` on the writer of configuration `name` and awaits its
/// commit: no blocking-pool thread between the handler and the writer when
/// the configuration is awake (the common case; waking it opens files, on
/// the blocking pool). Changes of concurrent requests share commits. The
/// change history records it under the request's [`Ctx::record`].
pub(crate) async fn change<T, F>(context: &Ctx, name: &ConfigName, change: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Net) -> Result<T, StoreError> + Send + 'static,
{
    change_as(context, name, context.record(), change).await
}

/// [`change`] recorded in the history as `record` (a lifecycle step that
/// names what it did in its own words).
pub(crate) async fn change_as<T, F>(
    context: &Ctx,
    name: &ConfigName,
    record: ChangeRecord,
    change: F,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Net) -> Result<T, StoreError> + Send + 'static,
{
    let net = match context.state().store().net_if_awake(name) {
        Some(net) => net,
        None => {
            let name = name.clone();
            store(context, move |store| {
                let net = store.net(&name)?;
                net.wake()?;
                Ok(net)
            })
            .await?
        }
    };
    // With If-Match, the first change compares the tag (after the handler
    // read the body, so a bad body is a 400 whatever the tag), then checks
    // on the writer thread that nothing changed since.
    let expected = crate::conditional::check_if_match(context, Some(&net)).await?;
    net.change_as(record, move |net| {
        if let Some(generation) = expected {
            net.require_unchanged(generation)?;
        }
        change(net)
    })
    .await
    .map_err(ApiError::from)
}

/// Records a step of a configuration's life that changed no item (it was
/// created, uploaded, copied, renamed) in its history.
pub(crate) async fn journal(
    context: &Ctx,
    name: &ConfigName,
    record: ChangeRecord,
) -> Result<(), ApiError> {
    change_as(context, name, record, |_| Ok(())).await
}

/// A 404 unless the configuration `name` exists (for what the engine keeps
/// about it, which outlives no configuration).
pub(crate) async fn require_net(context: &Ctx, name: &ConfigName) -> Result<(), ApiError> {
    let name = name.clone();
    store(context, move |store| store.get(&name).map(drop)).await
}

/// True when the configuration's network runs.
pub(crate) fn is_running(context: &Ctx, name: &ConfigName) -> bool {
    context.state().engine().status(name).state == RunState::Running
}

/// A 409 unless the configuration is stopped: for changes a running network
/// cannot take.
pub(crate) fn require_stopped(
    context: &Ctx,
    name: &ConfigName,
    change: &str,
) -> Result<(), ApiError> {
    if is_running(context, name) {
        return Err(ApiError::new(
            ErrorCode::ConfigurationRunning,
            format!("configuration {name} is running; stop it before changing its {change}"),
        ));
    }
    Ok(())
}

/// A configuration with its run state filled in from the engine.
pub(crate) fn with_state(context: &Ctx, mut configuration: Configuration) -> Configuration {
    configuration.state = context.state().engine().status(&configuration.name).state;
    configuration
}

/// Everything the engine needs to run a configuration, read from its file.
pub(crate) fn plan(store: &Store, name: &ConfigName) -> Result<NetworkPlan, StoreError> {
    let net = store.net(name)?;
    let configuration = net.configuration()?;
    Ok(NetworkPlan {
        configuration: name.clone(),
        instance: configuration.instance,
        network_mode: net.network_mode()?,
        rf: net.active_rf_setting()?,
        roles: net.roles()?,
        devices: net.devices()?,
        streams: net.streams()?,
        settings: net.settings(None)?,
        log_directory: store.log_dir(name)?,
    })
}

/// "1 device", "3 devices".
pub(crate) fn count(number: usize, noun: &str) -> String {
    if number == 1 {
        format!("1 {noun}")
    } else {
        format!("{number} {noun}s")
    }
}
