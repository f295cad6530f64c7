//! Each configuration's last survey of its anchors (decisions §12, §20),
//! kept beside the saved-state files so that it survives a restart:
//!
//! ```text
//! <data_dir>/surveys/<net>.json
//! ```
//!
//! A survey is what the network measured, not configuration content: it is
//! neither journalled nor restored, moves with a rename and goes with a
//! deletion (a copy starts without one: it never ran).

use std::{fs, io, path::PathBuf};

use netcfg_model::{ConfigName, SurveyReport};

use crate::{error::StoreError, files, store::Store};

/// The directory of the surveys, inside the data directory.
pub(crate) const SURVEYS_DIR: &str = "surveys";

impl Store {
    fn survey_path(&self, net: &ConfigName) -> Result<PathBuf, StoreError> {
        files::child(&self.data_dir().join(SURVEYS_DIR), &format!("{net}.json"))
    }

    /// Keeps `report` as `net`'s last survey, replacing the one before
    /// whole (a crash leaves one or the other).
    ///
    /// # Errors
    /// The file's.
    pub fn save_survey(&self, net: &ConfigName, report: &SurveyReport) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(report).expect("a survey serialises");
        files::replace_file(
            self.data_dir(),
            &self.data_dir().join(SURVEYS_DIR),
            &self.survey_path(net)?,
            &bytes,
            false,
            &format!("keeping the survey of {net}"),
        )
    }

    /// `net`'s last survey, if one was kept.
    ///
    /// # Errors
    /// The file's; a file that is not a survey.
    pub fn survey(&self, net: &ConfigName) -> Result<Option<SurveyReport>, StoreError> {
        let what = || format!("reading the survey of {net}");
        match fs::read(self.survey_path(net)?) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|error| StoreError::io_message(what(), error.to_string())),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(StoreError::file(what(), error)),
        }
    }

    /// Moves `from`'s survey to `to` (a rename).
    pub(crate) fn move_survey(&self, from: &ConfigName, to: &ConfigName) -> Result<(), StoreError> {
        match fs::rename(self.survey_path(from)?, self.survey_path(to)?) {
            Ok(()) => files::sync_dir(&self.data_dir().join(SURVEYS_DIR)),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(StoreError::file(
                format!("moving the survey of {from}"),
                error,
            )),
        }
    }

    /// Removes `net`'s survey (a deletion of the configuration).
    pub(crate) fn drop_survey(&self, net: &ConfigName) -> Result<(), StoreError> {
        files::remove_if_present(&self.survey_path(net)?)
            .map_err(|error| StoreError::file(format!("deleting the survey of {net}"), error))
    }
}
