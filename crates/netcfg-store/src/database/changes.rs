//! How a change reaches the writer thread and its caller the answer: a
//! blocking channel for [`Database::write`], a oneshot future for
//! [`Database::submit`], both through [`Database::enqueue`]; a change made
//! on the writer thread itself runs at once, nested in the running one.

use std::{future::Future, sync::mpsc};

use netcfg_model::ChangeRecord;
use rusqlite::Connection;
use tokio::sync::oneshot;

use super::{Database, State, writer::WRITER};
use crate::{error::StoreError, sql, wal_sync::Answer};

/// What a queued change hands back to the writer: whether it succeeded (so
/// its savepoint is kept) and how to answer its caller once the commit is known.
pub(super) struct Ran {
    pub(super) succeeded: bool,
    pub(super) answer: Answer,
}

/// A queued change. It gets the connection, or the error that kept the
/// batch from starting.
pub(super) type Job = Box<dyn FnOnce(Result<&Connection, StoreError>) -> Ran + Send>;

/// Where the calling thread stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Caller {
    /// Not on a writer thread.
    Elsewhere,
    /// On the writer thread of this database, inside a change.
    ThisWriter,
    /// On the writer thread of another database.
    OtherWriter,
}

/// Where the calling thread stands with `database`'s writer.
pub(super) fn caller(database: u64) -> Caller {
    WRITER.with_borrow(|writer| match writer {
        None => Caller::Elsewhere,
        Some(writer) if writer.database == database => Caller::ThisWriter,
        Some(_) => Caller::OtherWriter,
    })
}

/// Runs `run` on the writer connection of the calling thread.
pub(super) fn on_writer<T>(
    run: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    WRITER.with_borrow(|writer| match writer {
        Some(writer) => run(&writer.conn),
        None => Err(StoreError::io_message("writing", "not on a writer thread")),
    })
}

/// A change as a caller hands it over: run once, on the writer thread
/// (hence `Send + 'static`), with the writer's connection.
pub(crate) trait Change<T>:
    FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static
{
}

impl<T, F> Change<T> for F where F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static {}

/// What a caller hears when the writer is gone before it answered.
fn stopped() -> StoreError {
    StoreError::io_message("writing", "the writer thread stopped")
}

impl Database {
    /// Queues `change` to the writer thread; `reply` gets its outcome once
    /// its batch is committed (or why it failed). Called on this database's
    /// own writer thread (a change made of changes), `change` runs at once
    /// in a nested savepoint of the running change. Opens files only when
    /// the configuration rests (waking it). The change is journalled in the
    /// history under `record` (a request's), or as a local change when it
    /// touched the content (a nested change is part of its outer one).
    fn enqueue<T: Send + 'static>(
        &self,
        record: Option<ChangeRecord>,
        change: impl Change<T>,
        reply: impl FnOnce(Result<T, StoreError>) + Send + 'static,
    ) -> Result<(), StoreError> {
        match caller(self.id) {
            Caller::ThisWriter => {
                reply(on_writer(|conn| sql::nested(conn, change)));
                return Ok(());
            }
            Caller::OtherWriter => {
                return Err(StoreError::io_message(
                    "writing",
                    format!(
                        "a change of another configuration reached {}; a change touches its own configuration only",
                        self.name
                    ),
                ));
            }
            Caller::Elsewhere => {}
        }
        let state = self.awake()?;
        let State::Awake(open) = &*state else {
            return Err(self.closed());
        };
        let job: Job = Box::new(move |conn| {
            let result =
                conn.and_then(|conn| crate::history::journaled(conn, record.as_ref(), change));
            Ran {
                succeeded: result.is_ok(),
                answer: Box::new(move |commit_error| {
                    reply(match commit_error {
                        Some(error) => Err(error),
                        None => result,
                    });
                }),
            }
        });
        self.writer(open)?.send(job).map_err(|_| stopped())
    }

    /// Runs `change` on the writer thread and answers once it is committed.
    /// Blocks the calling thread until then.
    pub(crate) fn write<T: Send + 'static>(&self, change: impl Change<T>) -> Result<T, StoreError> {
        let (reply, answer) = mpsc::sync_channel::<Result<T, StoreError>>(1);
        self.enqueue(None, change, move |result| {
            // The caller may have gone; nobody is left to tell then.
            let _ = reply.send(result);
        })?;
        answer
            .recv()
            .map_err(|_| stopped())?
            .map_err(|error| error.in_configuration(&self.name))
    }

    /// Queues `change` now and returns a future that the writer thread
    /// completes once the change is committed (durable). Nothing blocks
    /// while it is awaited; queuing opens files only when the configuration
    /// rests. Dropping the future does not withdraw the change.
    pub(crate) fn submit<T: Send + 'static>(
        &self,
        record: Option<ChangeRecord>,
        change: impl Change<T>,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static {
        let (reply, answer) = oneshot::channel::<Result<T, StoreError>>();
        let queued = self.enqueue(record, change, move |result| {
            let _ = reply.send(result);
        });
        let name = self.name.clone();
        async move {
            queued?;
            answer
                .await
                .map_err(|_| stopped())?
                .map_err(|error| error.in_configuration(&name))
        }
    }
}
