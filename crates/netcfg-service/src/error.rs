//! What can go wrong in an operation: the store's and the engine's errors
//! as they are (their kinds are types a front door maps without reading
//! text), and the refusals the service makes itself.

pub use netcfg_engine::EngineError;
pub use netcfg_store::{BadUpload, ConflictKind, IoFault, Missing, StoreError};

/// An operation's failure.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The saved state refused or failed (not found, conflict, invalid with
    /// every problem, a stale precondition, I/O).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The engine refused or failed (not running, a device that did not
    /// answer, the link).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The configuration runs, and the operation needs it stopped; the text
    /// says what to do.
    #[error("{0}")]
    Running(String),
    /// The configuration does not run, and the operation needs it
    /// running; the text says what to do.
    #[error("{0}")]
    Stopped(String),
    /// The request's parameters are out of range, each problem with its
    /// parameter.
    #[error("invalid parameters: {0}")]
    Parameters(netcfg_model::Problems),
    /// A question to the host failed.
    #[error("host: {0}")]
    Host(#[from] netcfg_host::HostError),
    /// A blocking thread of the runtime failed (a panic in store code).
    #[error("the store's worker failed: {0}")]
    Worker(String),
    /// No identity, or one that no longer works (a wrong password, an
    /// ended session): decisions §17.
    #[error("{0}")]
    Unauthenticated(String),
    /// The identity may not do this; the message says what it would need.
    #[error("{0}")]
    Forbidden(String),
    /// A single sign-on failed: not set up, the provider, or refused.
    #[error(transparent)]
    SingleSignOn(#[from] crate::people::SingleSignOnError),
}
