//! The one place where the libraries' errors become HTTP errors: each kind
//! gets its code (and so its status) in an exhaustive match, so a new
//! variant does not compile until it is mapped. Faults of the server keep
//! their text for the log; the client gets the code and an incident id.

use netcfg_service::{ConflictKind, EngineError, IoFault, Missing, ServiceError, StoreError};

use crate::{error_code::ErrorCode, reply::ApiError};

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let code = match &error {
            StoreError::NotFound { kind, .. } => match kind {
                Missing::Configuration => ErrorCode::ConfigurationNotFound,
                Missing::Device => ErrorCode::DeviceNotFound,
                Missing::Interface => ErrorCode::InterfaceNotFound,
                Missing::Role => ErrorCode::RoleNotFound,
                Missing::RfSetting => ErrorCode::RfSettingNotFound,
                Missing::DataStream => ErrorCode::DataStreamNotFound,
                Missing::PositionLimit => ErrorCode::PositionLimitNotFound,
                Missing::Setting => ErrorCode::SettingNotFound,
                Missing::Notification => ErrorCode::NotificationNotFound,
                Missing::LogFile => ErrorCode::LogFileNotFound,
                Missing::DevicePair => ErrorCode::DevicePairNotFound,
                Missing::MagnetometerCalibration => ErrorCode::CalibrationNotFound,
                Missing::HistoryEntry => ErrorCode::HistoryEntryNotFound,
                Missing::AlertRule => ErrorCode::AlertRuleNotFound,
                Missing::Schedule => ErrorCode::ScheduleNotFound,
                Missing::Zone => ErrorCode::ZoneNotFound,
                Missing::Output => ErrorCode::OutputNotFound,
                Missing::Recording => ErrorCode::RecordingNotFound,
                Missing::User => ErrorCode::UserNotFound,
                Missing::ApiKey => ErrorCode::ApiKeyNotFound,
            },
            StoreError::Conflict { kind, .. } => match kind {
                ConflictKind::Taken => ErrorCode::NameTaken,
                ConflictKind::InUse => ErrorCode::InUse,
                ConflictKind::BuiltIn => ErrorCode::BuiltIn,
                ConflictKind::Exhausted => ErrorCode::IdsExhausted,
                ConflictKind::NoRoom => ErrorCode::NoRoom,
                ConflictKind::AlreadyPaired => ErrorCode::AlreadyPaired,
                ConflictKind::HistoryDiverged => ErrorCode::HistoryDiverged,
                ConflictKind::HistoryPruned => ErrorCode::HistoryPruned,
                ConflictKind::LastAdmin => ErrorCode::LastAdmin,
            },
            StoreError::Changed { .. } => ErrorCode::PreconditionFailed,
            StoreError::Locked { .. } => ErrorCode::ConfigurationLocked,
            StoreError::NewerSchema { .. } => ErrorCode::SchemaTooNew,
            StoreError::Invalid(problems) => return ApiError::invalid(problems),
            StoreError::BadUpload(_) => ErrorCode::UploadRefused,
            StoreError::Io { fault, .. } => {
                let code = match fault {
                    IoFault::DiskFull => ErrorCode::DiskFull,
                    IoFault::ReadOnly => ErrorCode::DataDirectoryReadOnly,
                    IoFault::Other => ErrorCode::Internal,
                };
                return ApiError::fault(code, format_args!("store: {error}"));
            }
        };
        ApiError::new(code, error.to_string())
    }
}

impl From<EngineError> for ApiError {
    fn from(error: EngineError) -> Self {
        let code = match &error {
            EngineError::NotRunning(_) => ErrorCode::ConfigurationNotRunning,
            // The request names something the network cannot take.
            EngineError::Refused { .. } | EngineError::Encode(_) => ErrorCode::CommandRefused,
            // The configuration names an instance that cannot run: a serial
            // port that is missing or busy, an unknown simulator scenario,
            // no instance at all. Its state conflicts with starting it.
            EngineError::NoDefaultInstance
            | EngineError::UnknownScenario(_)
            | EngineError::SerialPort { .. }
            | EngineError::Replay { .. } => ErrorCode::InstanceUnavailable,
            EngineError::NotReplaying(_) => ErrorCode::NotAReplay,
            EngineError::UnknownDevice { .. } => ErrorCode::DeviceNotFound,
            EngineError::DeviceTimeout { .. } => ErrorCode::DeviceTimeout,
            EngineError::NetworkTimeout { .. } => ErrorCode::NetworkTimeout,
            // Faults of the host or of its link to the hardware.
            EngineError::LinkDown { .. } | EngineError::UnexpectedReply { .. } => {
                return ApiError::fault(ErrorCode::LinkDown, format_args!("engine: {error}"));
            }
            EngineError::StreamSocket { .. }
            | EngineError::LogFile { .. }
            | EngineError::Internal(_) => {
                return ApiError::internal(format_args!("engine: {error}"));
            }
        };
        ApiError::new(code, error.to_string())
    }
}

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        match error {
            ServiceError::Store(error) => error.into(),
            ServiceError::Engine(error) => error.into(),
            ServiceError::Running(message) => {
                ApiError::new(ErrorCode::ConfigurationRunning, message)
            }
            ServiceError::Stopped(message) => {
                ApiError::new(ErrorCode::ConfigurationStopped, message)
            }
            ServiceError::Parameters(problems) => ApiError::parameters(
                problems
                    .as_slice()
                    .iter()
                    .map(|problem| crate::reply::FieldProblem {
                        field: problem.path.clone(),
                        problem: problem.message.clone(),
                    })
                    .collect(),
            ),
            ServiceError::Host(error) => ApiError::internal(format_args!("host: {error}")),
            ServiceError::Worker(error) => {
                ApiError::internal(format_args!("the store's worker failed: {error}"))
            }
            ServiceError::Unauthenticated(message) => {
                ApiError::new(ErrorCode::Unauthorized, message)
            }
            ServiceError::Forbidden(message) => ApiError::new(ErrorCode::Forbidden, message),
            ServiceError::SingleSignOn(error) => {
                use netcfg_service::SingleSignOnError as Sso;
                let code = match &error {
                    Sso::NotConfigured => ErrorCode::SignOnNotConfigured,
                    Sso::Provider(_) => ErrorCode::SignOnProviderFailed,
                    Sso::Refused(_) => ErrorCode::SignOnRefused,
                };
                ApiError::new(code, error.to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io_error(errno: i32) -> StoreError {
        StoreError::file(
            "writing /data/site.sqlite",
            std::io::Error::from_raw_os_error(errno),
        )
    }

    #[test]
    fn a_full_or_read_only_data_directory_is_named_without_internal_text() {
        for (errno, code, words) in [
            (28, ErrorCode::DiskFull, "the data directory is full"),
            (30, ErrorCode::DataDirectoryReadOnly, "cannot be written"),
            (5, ErrorCode::Internal, "the server failed"),
        ] {
            let error = ApiError::from(io_error(errno));
            assert_eq!(error.code, code);
            assert_eq!(error.status.as_u16(), 500);
            assert!(error.message.contains(words), "{}", error.message);
            let incident = error.incident.as_deref().expect("an incident id");
            assert!(error.message.contains(incident), "{}", error.message);
            assert!(!error.message.contains("/data"), "{}", error.message);
            assert!(!error.message.contains("os error"), "{}", error.message);
        }
    }
}
