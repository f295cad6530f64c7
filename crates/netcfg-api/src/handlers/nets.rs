//! Configurations: create, upload, list, get, rename, download, delete, and
//! the actions copy, delete, start, stop, restart and reload (plus the 5.0
//! engine command).

use netcfg_model::{
    ConfigName, Configuration, ConfigurationAction, FromJson, RunState,
    body::{ActionBody, ActionBodyV5_0, EngineCommand, EngineCommandBody, NetworkBody},
    people::AccessRole,
};
use netcfg_service::{Restart, StartMessage};

use crate::{
    context::Ctx,
    error_code::ErrorCode,
    multipart,
    path::{NetPath, NoPath},
    payload::keys,
    reply::{ApiError, Reply},
    version::ApiVersion,
    wire::{ConfigurationStatus, EngineCommandStatus},
};

/// A configuration as `version` shows it: 5.0 has no `restart_needed`.
fn shown(context: &Ctx, mut configuration: Configuration) -> Configuration {
    if context.version() == ApiVersion::V5_0 {
        configuration.restart_needed = None;
    }
    configuration
}

/// The body of `POST /nets/{net_name}` in either version.
pub(crate) trait ActionRequest: FromJson {
    /// The action asked for.
    fn action(self) -> ConfigurationAction;
}

impl ActionRequest for ActionBody {
    fn action(self) -> ConfigurationAction {
        self.0
    }
}

impl ActionRequest for ActionBodyV5_0 {
    fn action(self) -> ConfigurationAction {
        self.0
    }
}

pub(crate) async fn create(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let body: NetworkBody = context.body()?;
    let name = body.name.clone();
    let write = context.lifecycle_write();
    let configuration = shown(&context, context.service().create_net(body, write).await?);
    Reply::created(format!("Configuration {name} created"))
        .made(&name)
        .with::<keys::Configuration>(&configuration)
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
        multipart::receive(context.service(), context.request().headers(), stream).await?;
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
    let write = context.lifecycle_write();
    let configuration = context
        .service()
        .finish_upload(&name, received.upload, write)
        .await?;
    let configuration = shown(&context, configuration);
    Reply::created(format!("Configuration {name} uploaded"))
        .made(&name)
        .with::<keys::Configuration>(&configuration)
}

pub(crate) async fn list(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let configurations: Vec<_> = (context.service().nets().await?)
        .into_iter()
        .filter(|configuration| context.sees(&configuration.name))
        .map(|configuration| shown(&context, configuration))
        .collect();
    Reply::ok(super::count(configurations.len(), "configuration"))
        .with::<keys::Configurations>(&configurations)
}

pub(crate) async fn get(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let configuration = shown(&context, context.service().net(&path.net_name).await?);
    Reply::ok(format!("Configuration {}", configuration.name))
        .with::<keys::Configuration>(&configuration)
}

pub(crate) async fn update(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let body: NetworkBody = context.body()?;
    let write = context.lifecycle_write();
    let configuration = context
        .service()
        .update_net(&name, body.name, body.instance, write)
        .await?;
    let configuration = shown(&context, configuration);
    Reply::ok(format!("Configuration {} updated", configuration.name))
        .with::<keys::Configuration>(&configuration)
}

pub(crate) async fn download(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let file_name = format!("{name}.sqlite");
    let bytes = context.service().download(&name).await?;
    Ok(Reply::file(bytes, "application/vnd.sqlite3", file_name))
}

pub(crate) async fn delete(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    context.service().delete_net(&name).await?;
    Ok(Reply::new(
        actix_web::http::StatusCode::NO_CONTENT,
        format!("Configuration {name} deleted"),
    ))
}

pub(crate) async fn action<B: ActionRequest>(
    context: Ctx,
    path: NetPath,
) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let action = context.body::<B>()?.action();
    let write = context.lifecycle_write();
    let word = match &action {
        ConfigurationAction::Copy { .. } => "copy",
        ConfigurationAction::Delete => "delete",
        ConfigurationAction::Start => "start",
        ConfigurationAction::Stop => "stop",
        ConfigurationAction::Restart => "restart",
        ConfigurationAction::Reload => "reload",
    };
    if let ConfigurationAction::Copy { .. } | ConfigurationAction::Delete = &action {
        context.require(AccessRole::Editor, &format!("the action {word}"))?;
    }
    let service = context.service();
    let (message, state, copy) = match action {
        ConfigurationAction::Copy { name: copy } => {
            let write = write.summarised(format!("Copied from {name}"));
            let state = service
                .copy_net(&name, &copy, write)
                .await
                // A copy onto a name that is taken is a 400 (the seed lists no 409 here).
                .map_err(|error| ApiError::from(error).conflict_as_invalid("name"))?;
            (
                format!("Configuration {name} copied to {copy}"),
                state,
                Some(copy),
            )
        }
        ConfigurationAction::Delete => {
            service.delete_net(&name).await?;
            (
                format!("Configuration {name} deleted"),
                RunState::Stopped,
                None,
            )
        }
        ConfigurationAction::Start => {
            let message = match service.start(&name, write).await? {
                StartMessage::Started { log_file } => format!(
                    "Configuration {name} started; its log file is {}",
                    log_file
                        .file_name()
                        .map(|file| file.to_string_lossy().into_owned())
                        .unwrap_or_default()
                ),
                StartMessage::AlreadyRunning => {
                    format!("Configuration {name} was already running")
                }
            };
            (message, RunState::Running, None)
        }
        ConfigurationAction::Stop => {
            let message = if service.stop(&name, write).await? {
                format!("Configuration {name} stopped")
            } else {
                format!("Configuration {name} was not running")
            };
            (message, RunState::Stopped, None)
        }
        ConfigurationAction::Restart => {
            let message = match service.restart(&name, write).await? {
                Restart::Restarted => format!("Configuration {name} restarted"),
                Restart::Started => format!("Configuration {name} was not running; started"),
            };
            (message, RunState::Running, None)
        }
        ConfigurationAction::Reload => {
            let message = if service.reload(&name, write).await? {
                format!("Configuration {name} reloaded: its network runs the saved configuration")
            } else {
                format!(
                    "Configuration {name} is not running: nothing to reload (a start runs the saved configuration)"
                )
            };
            (message, service.run_state(&name), None)
        }
    };
    let status = ConfigurationStatus {
        name,
        action: word.to_owned(),
        state,
        copy,
    };
    Reply::ok(message).with::<keys::ConfigurationActionStatus>(&status)
}

pub(crate) async fn engine_command(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let EngineCommandBody { action } = context.body()?;
    let write = context.lifecycle_write();
    let status = context
        .service()
        .engine_command(&name, action, write)
        .await?;
    let verb = match action {
        EngineCommand::Reload => "reloaded",
        EngineCommand::Restart => "restarted",
        EngineCommand::Resync => "resynchronised",
    };
    Reply::ok(format!("Configuration {name} {verb}")).with::<keys::EngineStatus>(
        &EngineCommandStatus {
            name,
            action,
            state: status.state,
        },
    )
}
