//! Classification levels of responses and notifications.

use crate::int_enum::int_enum;

int_enum! {
    /// How serious a message is: the `Classification` of a 5.1 response and
    /// the level of a notification.
    pub enum Level ("classification level", "") {
        /// Something failed.
        Error = 1,
        /// Something partly failed or needs attention.
        Warning = 2,
        /// Something happened as asked.
        Information = 3,
        /// Detail for diagnosis.
        Debug = 4,
    }
}
