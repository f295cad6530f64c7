//! Download (a consistent snapshot while writes go on) and upload (checked
//! aside, then published atomically; a refused file changes nothing).

use std::{
    fs::File,
    io::{self, Write},
    path::Path,
};

use netcfg_model::{ConfigName, Configuration};
use rusqlite::{Connection, ErrorCode};

use crate::{
    database::{connect, use_wal},
    error::{BadUpload, StoreError},
    files::{self, TempDatabase},
    net, schema,
    store::Store,
};

/// The first 16 bytes of every SQLite database.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";
/// The length of an SQLite database header.
const HEADER_LENGTH: usize = 100;

/// Checks a file's SQLite header from its first bytes (`bytes`, up to the
/// header's length), and that the file (`actual` bytes) is as long as the
/// header says.
fn check_head(bytes: &[u8], actual: u64) -> Result<(), BadUpload> {
    if bytes.len() < MAGIC.len() {
        return Err(if !bytes.is_empty() && MAGIC.starts_with(bytes) {
            BadUpload::Truncated {
                expected: HEADER_LENGTH as u64,
                actual,
            }
        } else {
            BadUpload::NotSqlite
        });
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err(BadUpload::NotSqlite);
    }
    if bytes.len() < HEADER_LENGTH {
        return Err(BadUpload::Truncated {
            expected: HEADER_LENGTH as u64,
            actual,
        });
    }
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let page_size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65_536,
        size if size >= 512 && size.is_power_of_two() => u64::from(size),
        size => {
            return Err(BadUpload::FailedIntegrityCheck {
                report: format!("the header gives an impossible page size ({size})"),
            });
        }
    };
    // Fields SQLite reads before anything else: a value it does not know
    // makes it open the file read-only or refuse it, which must not pass
    // for a fault of this host.
    let fixed = [
        (18, &[1_u8, 2][..], "file format write version"),
        (19, &[1, 2], "file format read version"),
        (21, &[64], "maximum embedded payload fraction"),
        (22, &[32], "minimum embedded payload fraction"),
        (23, &[32], "leaf payload fraction"),
    ];
    for (offset, allowed, what) in fixed {
        if !allowed.contains(&bytes[offset]) {
            return Err(BadUpload::FailedIntegrityCheck {
                report: format!("the header's {what} is {}", bytes[offset]),
            });
        }
    }
    // The page count in the header is valid when its "version valid for"
    // field matches the change counter (SQLite 3.7.0 and later).
    let page_count = if word(92) == word(24) { word(28) } else { 0 };
    let expected = page_size * u64::from(page_count.max(1));
    if actual < expected {
        return Err(BadUpload::Truncated { expected, actual });
    }
    Ok(())
}

/// Turns what SQLite says about a damaged file into an upload refusal.
/// Only faults of this host (I/O, memory, a full or read-only disk, a
/// lock) stay what they are: any other error SQLite meets while reading an
/// uploaded file is the file's (a damaged page, a schema whose SQL a flipped
/// bit changed into a call of an unknown function, ...).
fn refusal(error: StoreError) -> StoreError {
    if let StoreError::Io { source, .. } = &error
        && let Some(sqlite) = source.downcast_ref::<rusqlite::Error>()
    {
        return match sqlite.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => StoreError::BadUpload(BadUpload::NotSqlite),
            Some(
                ErrorCode::SystemIoFailure
                | ErrorCode::OutOfMemory
                | ErrorCode::DiskFull
                | ErrorCode::ReadOnly
                | ErrorCode::CannotOpen
                | ErrorCode::PermissionDenied
                | ErrorCode::DatabaseBusy
                | ErrorCode::DatabaseLocked,
            ) => error,
            _ => StoreError::BadUpload(BadUpload::FailedIntegrityCheck {
                report: format!("SQLite cannot read it: {sqlite}"),
            }),
        };
    }
    error
}

/// Every check of an uploaded file, then its migration to the current
/// schema, in the temporary file.
fn check_and_migrate(conn: &Connection, name: &ConfigName) -> Result<(), StoreError> {
    let (application_id, version) = schema::identity(conn)?;
    if application_id != schema::APPLICATION_ID {
        return Err(StoreError::BadUpload(BadUpload::OtherApplication {
            found: application_id,
            expected: schema::APPLICATION_ID,
        }));
    }
    if version > schema::SCHEMA_VERSION {
        return Err(StoreError::BadUpload(BadUpload::NewerSchema {
            found: version,
            supported: schema::SCHEMA_VERSION,
        }));
    }
    let report = {
        let mut statement = conn.prepare("PRAGMA integrity_check(20)")?;
        let lines = statement.query_map([], |row| row.get::<_, String>(0))?;
        lines.collect::<rusqlite::Result<Vec<_>>>()?
    };
    if report != ["ok"] {
        return Err(StoreError::BadUpload(BadUpload::FailedIntegrityCheck {
            report: report.join("; "),
        }));
    }
    schema::check_upload(conn)?;
    let dangling: i64 =
        conn.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| {
            row.get(0)
        })?;
    if dangling > 0 {
        return Err(StoreError::BadUpload(BadUpload::FailedIntegrityCheck {
            report: format!("{dangling} row(s) refer to items that do not exist"),
        }));
    }
    schema::migrate(conn, version, schema::SCHEMA_VERSION)?;
    net::read_everything(conn, name.clone()).map_err(|error| {
        StoreError::BadUpload(BadUpload::BadContent {
            detail: error.to_string(),
        })
    })?;
    use_wal(conn)
}

impl Store {
    /// The configuration's file as it is now, as bytes.
    pub fn download(&self, name: &ConfigName) -> Result<Vec<u8>, StoreError> {
        let mut bytes = Vec::new();
        self.download_to(name, &mut bytes)?;
        Ok(bytes)
    }

    /// Writes the configuration's file, as it is now, to `writer`; returns
    /// the number of bytes written. The snapshot is consistent: it holds
    /// every change committed before it began and none after, while other
    /// threads go on writing.
    pub fn download_to(
        &self,
        name: &ConfigName,
        writer: &mut dyn Write,
    ) -> Result<u64, StoreError> {
        let db = self.handle(name)?;
        let temp = TempDatabase::create(&self.dir, "download")?;
        db.snapshot_into(&temp.0)?;
        drop(db);
        let mut snapshot =
            File::open(&temp.0).map_err(|error| StoreError::file("reading the snapshot", error))?;
        io::copy(&mut snapshot, writer)
            .map_err(|error| StoreError::file("sending the snapshot", error))
    }

    /// Writes the configuration's file, as it is now, to a new file at `path`.
    pub fn download_to_file(&self, name: &ConfigName, path: &Path) -> Result<u64, StoreError> {
        let mut file = File::create_new(path)
            .map_err(|error| StoreError::file(format!("creating {}", path.display()), error))?;
        let written = self.download_to(name, &mut file)?;
        file.sync_all()
            .map_err(|error| StoreError::file(format!("syncing {}", path.display()), error))?;
        Ok(written)
    }

    /// Adds an uploaded configuration file under `name`. The bytes are
    /// checked in a temporary file first (SQLite header and length, our
    /// `application_id`, `integrity_check`, a schema version not newer than
    /// ours, the tables of that version, foreign keys, every stored value
    /// readable), with SQLite's defensive mode on and the schema untrusted;
    /// an older file is migrated there. Only then is it moved into place,
    /// atomically. A refused file changes nothing; an existing name is a
    /// conflict.
    pub fn upload(&self, name: &ConfigName, bytes: &[u8]) -> Result<Configuration, StoreError> {
        let mut upload = self.begin_upload()?;
        upload.write(bytes)?;
        self.finish_upload(name, upload)
    }

    /// Starts an upload that arrives in pieces: a new file in the data
    /// directory's `.tmp/`, written with [`Upload::write`] and checked and
    /// published by [`Store::finish_upload`]. Dropped unfinished, it is
    /// removed. The pieces go straight to the file, so an upload costs no
    /// memory in proportion to its size.
    pub fn begin_upload(&self) -> Result<Upload, StoreError> {
        let temp = TempDatabase(files::temp_path(&self.dir, "upload"));
        let file = File::create_new(&temp.0)
            .map_err(|error| StoreError::file("creating the uploaded file", error))?;
        Ok(Upload {
            file: io::BufWriter::with_capacity(UPLOAD_BUFFER, file),
            head: Vec::with_capacity(HEADER_LENGTH),
            length: 0,
            temp,
        })
    }

    /// Checks an upload written in full (as [`Store::upload`] says) and
    /// adds it under `name`; a refused file changes nothing.
    pub fn finish_upload(
        &self,
        name: &ConfigName,
        upload: Upload,
    ) -> Result<Configuration, StoreError> {
        self.check_free(name)?;
        check_head(&upload.head, upload.length).map_err(StoreError::BadUpload)?;
        let Upload { file, temp, .. } = upload;
        file.into_inner()
            .map_err(|error| StoreError::file("writing the uploaded file", error.into_error()))?
            .sync_all()
            .map_err(|error| StoreError::file("syncing the uploaded file", error))?;
        {
            let conn = connect(&temp.0, self.options.busy_timeout, false).map_err(refusal)?;
            check_and_migrate(&conn, name).map_err(refusal)?;
        }
        self.publish_new(&temp.0, name)?;
        self.get(name)
    }
}

/// How much of an upload is buffered before it goes to the file.
const UPLOAD_BUFFER: usize = 256 << 10;

/// A configuration file being uploaded: see [`Store::begin_upload`].
#[derive(Debug)]
pub struct Upload {
    file: io::BufWriter<File>,
    /// The first bytes, for the header check.
    head: Vec<u8>,
    length: u64,
    temp: TempDatabase,
}

impl Upload {
    /// Appends `bytes` to the file.
    ///
    /// # Errors
    /// The file cannot be written (a full disk, for one).
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        let wanted = HEADER_LENGTH
            .saturating_sub(self.head.len())
            .min(bytes.len());
        self.head.extend_from_slice(&bytes[..wanted]);
        self.length += bytes.len() as u64;
        self.file
            .write_all(bytes)
            .map_err(|error| StoreError::file("writing the uploaded file", error))
    }

    /// How many bytes were written.
    pub fn len(&self) -> u64 {
        self.length
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }
}
