//! Configurations: create, upload, list, get, rename, download, delete, and
//! the actions copy, delete, start and stop (plus the 5.0 engine command).

use netcfg_engine::{EngineCommand as EngineRequest, StartOutcome, StopOutcome};
use netcfg_model::{
    ConfigName, ConfigurationAction, RunState,
    body::{ActionBody, EngineCommand, EngineCommandBody, NetworkBody},
};

use super::{change_as, is_running, journal, plan, require_net, store, with_state};
use crate::{
    conditional::check_if_match,
    context::Ctx,
    error_code::ErrorCode,
    events::data::StateChange,
    multipart,
    path::{NetPath, NoPath},
    reply::{ApiError, Reply},
    wire::{ConfigurationStatus, EngineCommandStatus},
};

pub(crate) async fn create(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let body: NetworkBody = context.body()?;
    let name = body.name.clone();
    let configuration = store(&context, move |store| {
        store.create(&body.name, body.instance)
    })
    .await?;
    journal(&context, &name, context.record()).await?;
    announce(&context, &name, StateChange::Created, None);
    Reply::created(format!("Configuration {name} created"))
        .made(&name)
        .with(&with_state(&context, configuration))
}

pub(crate) async fn upload(mut context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let Some(stream) = context.take_stream() else {
        return Err(ApiError::problem(
            ErrorCode::InvalidUpload,
            multipart::FILE_FIELD,
            "the form is empty; send the file in the field net_file",
        ));
    };
    let received =
        multipart::receive(context.state_handle(), context.request().headers(), stream).await?;
    let name_text = match received.name {
        Some(name) => name,
        None => received
            .file_name
            .as_deref()
            .map(|file_name| file_name.rsplit(['/', '\\']).next().unwrap_or(file_name))
            .map(|file_name| {
                file_name
                    .split_once('.')
                    .map_or(file_name, |(stem, _)| stem)
                    .to_owned()
            })
            .ok_or_else(|| {
                ApiError::problem(
                    ErrorCode::InvalidUpload,
                    multipart::NAME_FIELD,
                    "give the form field name, or a file name",
                )
            })?,
    };
    let name: ConfigName = name_text
        .parse()
        .map_err(|error: netcfg_model::ConfigNameError| {
            ApiError::problem(
                ErrorCode::InvalidUpload,
                multipart::NAME_FIELD,
                error.to_string(),
            )
        })?;
    let uploaded = name.clone();
    let upload = received.upload;
    let configuration = store(&context, move |store| {
        store.finish_upload(&uploaded, upload)
    })
    .await?;
    journal(&context, &name, context.record()).await?;
    announce(&context, &name, StateChange::Created, None);
    Reply::created(format!("Configuration {name} uploaded"))
        .made(&name)
        .with(&with_state(&context, configuration))
}

pub(crate) async fn list(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let configurations = store(&context, |store| store.list()).await?;
    let configurations: Vec<_> = configurations
        .into_iter()
        .map(|configuration| with_state(&context, configuration))
        .collect();
    Reply::ok(super::count(configurations.len(), "configuration")).with(&configurations)
}

pub(crate) async fn get(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let configuration = store(&context, move |store| store.get(&name)).await?;
    Reply::ok(format!("Configuration {}", configuration.name))
        .with(&with_state(&context, configuration))
}

pub(crate) async fn update(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let body: NetworkBody = context.body()?;
    check_if_match(&context, None).await?;
    if body.name != name && is_running(&context, &name) {
        return Err(ApiError::new(
            ErrorCode::ConfigurationRunning,
            format!("configuration {name} is running; stop it before renaming it"),
        ));
    }
    let (renamed, new_name) = (name.clone(), body.name.clone());
    let configuration = store(&context, move |store| {
        store.update(&renamed, Some(&new_name), None)
    })
    .await?;
    // The instance is set as one recorded change of the configuration
    // under its (new) name; a rename alone changes no item.
    let record = if configuration.name == name {
        context.record()
    } else {
        context.record_as(format!("{}: renamed from {name}", context.summary))
    };
    let instance = body.instance;
    let configuration = change_as(&context, &configuration.name, record, move |net| {
        net.set_instance(instance)
    })
    .await?;
    forget(&context, &name);
    if configuration.name != name {
        announce(
            &context,
            &name,
            StateChange::Renamed,
            Some(&configuration.name),
        );
    }
    Reply::ok(format!("Configuration {} updated", configuration.name))
        .with(&with_state(&context, configuration))
}

pub(crate) async fn download(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let file_name = format!("{name}.sqlite");
    let bytes = store(&context, move |store| store.download(&name)).await?;
    Ok(Reply::file(bytes, "application/vnd.sqlite3", file_name))
}

pub(crate) async fn delete(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    check_if_match(&context, None).await?;
    stop_if_running(&context, &name).await?;
    let deleted = name.clone();
    store(&context, move |store| store.delete(&deleted)).await?;
    forget(&context, &name);
    announce(&context, &name, StateChange::Deleted, None);
    Ok(Reply::new(
        actix_web::http::StatusCode::NO_CONTENT,
        format!("Configuration {name} deleted"),
    ))
}

pub(crate) async fn action(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let ActionBody(action) = context.body()?;
    check_if_match(&context, None).await?;
    let word = match &action {
        ConfigurationAction::Copy { .. } => "copy",
        ConfigurationAction::Delete => "delete",
        ConfigurationAction::Start => "start",
        ConfigurationAction::Stop => "stop",
    };
    let engine = context.state().engine_handle();
    let (message, state, copy) = match action {
        ConfigurationAction::Copy { name: copy } => {
            let (from, to) = (name.clone(), copy.clone());
            store(&context, move |store| store.copy(&from, &to))
                .await
                // A copy onto a name that is taken is a 400 (the seed lists no 409 here).
                .map_err(|error| error.conflict_as_invalid("name"))?;
            journal(
                &context,
                &copy,
                context.record_as(format!("Copied from {name}")),
            )
            .await?;
            announce(&context, &copy, StateChange::Created, None);
            (
                format!("Configuration {name} copied to {copy}"),
                engine.status(&name).state,
                Some(copy),
            )
        }
        ConfigurationAction::Delete => {
            stop_if_running(&context, &name).await?;
            let deleted = name.clone();
            store(&context, move |store| store.delete(&deleted)).await?;
            forget(&context, &name);
            announce(&context, &name, StateChange::Deleted, None);
            (
                format!("Configuration {name} deleted"),
                RunState::Stopped,
                None,
            )
        }
        ConfigurationAction::Start => {
            let planned = name.clone();
            let plan = store(&context, move |store| plan(store, &planned)).await?;
            let message = match engine.start(plan).await? {
                StartOutcome::Started { log_file } => format!(
                    "Configuration {name} started; its log file is {}",
                    log_file
                        .file_name()
                        .map(|file| file.to_string_lossy().into_owned())
                        .unwrap_or_default()
                ),
                StartOutcome::AlreadyRunning => format!("Configuration {name} was already running"),
            };
            (message, RunState::Running, None)
        }
        ConfigurationAction::Stop => {
            // A configuration that does not exist is a 404, running or not.
            require_net(&context, &name).await?;
            let message = match engine.stop(&name).await? {
                StopOutcome::Stopped => format!("Configuration {name} stopped"),
                StopOutcome::WasNotRunning => format!("Configuration {name} was not running"),
            };
            (message, RunState::Stopped, None)
        }
    };
    let status = ConfigurationStatus {
        name,
        action: word.to_owned(),
        state,
        copy,
    };
    Reply::ok(message).with(&status)
}

pub(crate) async fn engine_command(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let EngineCommandBody { action } = context.body()?;
    let planned = name.clone();
    let plan = store(&context, move |store| plan(store, &planned)).await?;
    let request = match action {
        EngineCommand::Reload => EngineRequest::Reload(Box::new(plan)),
        EngineCommand::Restart => EngineRequest::Restart(Box::new(plan)),
        EngineCommand::Resync => EngineRequest::Resync(name.clone()),
    };
    let status = context.state().engine().engine_command(request).await?;
    let verb = match action {
        EngineCommand::Reload => "reloaded",
        EngineCommand::Restart => "restarted",
        EngineCommand::Resync => "resynchronised",
    };
    Reply::ok(format!("Configuration {name} {verb}")).with(&EngineCommandStatus {
        name,
        action,
        state: status.state,
    })
}
/// Stops the configuration's network if it runs (before deleting it).
/// Tells the event stream's listeners what happened to a configuration
/// (starts and stops are the engine's to tell).
fn announce(context: &Ctx, name: &ConfigName, state: StateChange, renamed_to: Option<&ConfigName>) {
    context.state().events().state(name, state, renamed_to);
}

async fn stop_if_running(context: &Ctx, name: &ConfigName) -> Result<(), ApiError> {
    if is_running(context, name) {
        context.state().engine().stop(name).await?;
    }
    Ok(())
}

/// Drops what the server keeps in memory about `name`, which no longer
/// exists: its rendered lists and the engine's data about it.
fn forget(context: &Ctx, name: &ConfigName) {
    context.state().renders().forget(name);
    context.state().engine().forget(name);
}
