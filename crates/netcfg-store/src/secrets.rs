//! The outputs' write-only credentials (decisions §14): kept in the data
//! directory beside the configurations' files, never inside one, so that a
//! download, a copy or an upload carries none. One JSON file per
//! configuration, `secrets/<name>.json`, readable by the server's user only,
//! written whole (a temporary file, synced, renamed over the old one).

use std::{collections::BTreeMap, fs, io, path::PathBuf};

use netcfg_model::{ConfigName, ItemName, OutputSecrets};

use crate::{error::StoreError, files, store::Store};

/// The directory of the credentials' files, inside the data directory.
pub(crate) const SECRETS_DIR: &str = "secrets";

/// A configuration's credentials, by output name.
type Book = BTreeMap<String, OutputSecrets>;

impl Store {
    fn secrets_path(&self, name: &ConfigName) -> Result<PathBuf, StoreError> {
        files::child(&self.data_dir().join(SECRETS_DIR), &format!("{name}.json"))
    }

    fn read_book(&self, name: &ConfigName) -> Result<Book, StoreError> {
        let path = self.secrets_path(name)?;
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| {
                StoreError::io_message(
                    format!("reading the credentials of {name}"),
                    error.to_string(),
                )
            }),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(Book::new()),
            Err(error) => Err(StoreError::file(
                format!("reading the credentials of {name}"),
                error,
            )),
        }
    }

    fn write_book(&self, name: &ConfigName, book: &Book) -> Result<(), StoreError> {
        let path = self.secrets_path(name)?;
        if book.is_empty() {
            return remove_if_present(&path);
        }
        let bytes = serde_json::to_vec(book).expect("credentials serialise");
        files::replace_file(
            self.data_dir(),
            &self.data_dir().join(SECRETS_DIR),
            &path,
            &bytes,
            true,
            &format!("writing the credentials of {name}"),
        )
    }

    /// Every output's credentials of configuration `name`, by output name.
    pub fn output_secrets(
        &self,
        name: &ConfigName,
    ) -> Result<BTreeMap<String, OutputSecrets>, StoreError> {
        let _guard = self.secrets_lock();
        self.read_book(name)
    }

    /// Sets output `output`'s credentials (removes them when none is set),
    /// after renaming them from `old_name` when given.
    pub fn set_output_secrets(
        &self,
        name: &ConfigName,
        old_name: Option<&ItemName>,
        output: &ItemName,
        secrets: OutputSecrets,
    ) -> Result<(), StoreError> {
        let _guard = self.secrets_lock();
        let mut book = self.read_book(name)?;
        if let Some(old_name) = old_name {
            book.remove(old_name.as_str());
        }
        if secrets == OutputSecrets::default() {
            book.remove(output.as_str());
        } else {
            book.insert(output.to_string(), secrets);
        }
        self.write_book(name, &book)
    }

    /// Forgets output `output`'s credentials.
    pub fn remove_output_secrets(
        &self,
        name: &ConfigName,
        output: &ItemName,
    ) -> Result<(), StoreError> {
        let _guard = self.secrets_lock();
        let mut book = self.read_book(name)?;
        if book.remove(output.as_str()).is_some() {
            self.write_book(name, &book)?;
        }
        Ok(())
    }

    /// Removes the credentials of configuration `name` (deleted, or a new
    /// file takes the name and must not inherit them).
    pub(crate) fn drop_secrets(&self, name: &ConfigName) -> Result<(), StoreError> {
        let _guard = self.secrets_lock();
        remove_if_present(&self.secrets_path(name)?)
    }

    /// Moves the credentials of `from` to `to` (a rename).
    pub(crate) fn move_secrets(
        &self,
        from: &ConfigName,
        to: &ConfigName,
    ) -> Result<(), StoreError> {
        let _guard = self.secrets_lock();
        let (source, target) = (self.secrets_path(from)?, self.secrets_path(to)?);
        match fs::rename(&source, &target) {
            Ok(()) => files::sync_dir(&self.data_dir().join(SECRETS_DIR)),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(StoreError::file(
                format!("moving the credentials of {from}"),
                error,
            )),
        }
    }
}

fn remove_if_present(path: &std::path::Path) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(StoreError::file("removing credentials", error)),
    }
}
