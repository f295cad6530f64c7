//! The audit trail: sign-ins, keys, users and refused requests, newest
//! first, at most `audit_keep` entries (the oldest dropped and counted).

use netcfg_model::people::{AuditEntry, AuditEvent, AuditPage, AuditRecord};
use rusqlite::params;

use super::People;
use crate::error::StoreError;

/// The most entries one append drops beyond those it adds: a bound lowered
/// far below what the file holds is reached over several appends (the
/// service's, once a second), each a short transaction, so no sign-in or
/// key waits behind one long delete (decisions §20); a trail past its
/// bound never grows.
const DROP_AT_MOST: i64 = 1_024;

impl People {
    /// Adds entries in one transaction, then drops the oldest beyond `keep`
    /// (at most 1,024 more than it added).
    pub fn append_audit(&self, entries: &[AuditRecord], keep: u64) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut conn = self.connect()?;
        let transaction = conn.transaction()?;
        let mut last_id = 0;
        {
            let mut insert = transaction.prepare_cached(
                "INSERT INTO audit (time_ms, event, user, address, detail, status)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for entry in entries {
                insert.execute(params![
                    entry.time_ms,
                    entry.event.as_str(),
                    entry.user.as_deref().map(|user| clip(user, 160)),
                    entry.address.as_deref().map(|address| clip(address, 64)),
                    clip(&entry.detail, 2048),
                    entry.status,
                ])?;
                last_id = transaction.last_insert_rowid();
            }
        }
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        if last_id > keep {
            let dropped = transaction
                .prepare_cached(
                    "DELETE FROM audit WHERE id IN
                     (SELECT id FROM audit WHERE id <= ?1 ORDER BY id LIMIT ?2)",
                )?
                .execute([last_id - keep, DROP_AT_MOST + entries.len() as i64])?;
            if dropped > 0 {
                transaction.execute(
                    "INSERT INTO audit_dropped (only, count) VALUES (0, ?1)
                     ON CONFLICT (only) DO UPDATE SET count = count + excluded.count",
                    [dropped as i64],
                )?;
            }
        }
        transaction.commit()?;
        Ok(())
    }

    /// Up to `limit` entries older than `before_id` (all when none), newest
    /// first, and how many were dropped.
    pub fn audit(&self, before_id: Option<i64>, limit: u32) -> Result<AuditPage, StoreError> {
        let conn = self.connect()?;
        let mut statement = conn.prepare_cached(
            "SELECT id, time_ms, event, user, address, detail, status FROM audit
             WHERE id < ?1 ORDER BY id DESC LIMIT ?2",
        )?;
        let entries = statement
            .query_map(params![before_id.unwrap_or(i64::MAX), limit], |row| {
                let event: String = row.get(2)?;
                Ok(AuditEntry {
                    id: row.get(0)?,
                    record: AuditRecord {
                        time_ms: row.get(1)?,
                        event: AuditEvent::parse(&event).unwrap_or(AuditEvent::Refused),
                        user: row.get(3)?,
                        address: row.get(4)?,
                        detail: row.get(5)?,
                        status: row.get(6)?,
                    },
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let dropped: i64 = conn.query_row(
            "SELECT coalesce(sum(count), 0) FROM audit_dropped",
            [],
            |row| row.get(0),
        )?;
        Ok(AuditPage {
            entries,
            dropped: u64::try_from(dropped).unwrap_or(0),
        })
    }
}

/// `text`, at most `max` bytes, cut at a character's boundary.
fn clip(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
