//! A configuration's change history, and restoring it to an earlier point.

use netcfg_model::{ConfigName, Configuration, HistoryEntry};

use crate::{Service, ServiceError, Write};

impl Service {
    /// A page of the history, newest first: at most `limit` changes older
    /// than `before`.
    pub async fn history(
        &self,
        name: &ConfigName,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<HistoryEntry>, ServiceError> {
        self.read(name, move |net| net.history(before, limit)).await
    }

    /// Puts the configuration's content back to what it was right after
    /// change `id`, as one new change (refused while it runs).
    pub async fn restore(
        &self,
        name: &ConfigName,
        id: u64,
        write: Write,
    ) -> Result<Configuration, ServiceError> {
        self.require_stopped(name, "content")?;
        let configuration = self
            .change(name, write, move |net| {
                net.restore(id)?;
                net.configuration()
            })
            .await?;
        self.inner.reread.net(name);
        Ok(self.with_state(configuration))
    }
}
