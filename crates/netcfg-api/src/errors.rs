//! The one place where the libraries' errors become HTTP statuses. Each
//! match is exhaustive: a new variant does not compile until it is mapped.

use actix_web::http::StatusCode;
use netcfg_engine::EngineError;
use netcfg_store::StoreError;

use crate::reply::ApiError;

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let status = match &error {
            StoreError::NotFound { .. } => StatusCode::NOT_FOUND,
            StoreError::Conflict { .. }
            | StoreError::Locked { .. }
            | StoreError::NewerSchema { .. } => StatusCode::CONFLICT,
            StoreError::Invalid(_) | StoreError::BadUpload(_) => StatusCode::BAD_REQUEST,
            StoreError::Io { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            log::error!("store: {error}");
        }
        ApiError::new(status, error.to_string())
    }
}

impl From<EngineError> for ApiError {
    fn from(error: EngineError) -> Self {
        let status = match &error {
            // The request asks a stopped network to act, or names something
            // the network cannot take.
            EngineError::NotRunning(_) | EngineError::Refused { .. } | EngineError::Encode(_) => {
                StatusCode::BAD_REQUEST
            }
            // The configuration names an instance that cannot run: a serial
            // port that is missing or busy, an unknown simulator scenario,
            // no instance at all. Its state conflicts with starting it.
            EngineError::NoDefaultInstance
            | EngineError::UnknownScenario(_)
            | EngineError::SerialPort { .. } => StatusCode::CONFLICT,
            EngineError::UnknownDevice { .. } => StatusCode::NOT_FOUND,
            // The device or network did not answer in time.
            EngineError::DeviceTimeout { .. } | EngineError::NetworkTimeout { .. } => {
                StatusCode::GATEWAY_TIMEOUT
            }
            // Faults of the host or of its link to the hardware.
            EngineError::LinkDown { .. }
            | EngineError::UnexpectedReply { .. }
            | EngineError::StreamSocket { .. }
            | EngineError::LogFile { .. }
            | EngineError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            log::error!("engine: {error}");
        }
        ApiError::new(status, error.to_string())
    }
}
