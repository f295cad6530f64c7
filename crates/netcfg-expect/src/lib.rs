//! The expected-files harness of netcfg's data-driven tests, one for the
//! whole workspace (a dev-dependency only).
//!
//! A test renders what the code gives and hands it to an [`Expected`] with
//! the committed file it must equal: a whole file ([`Expected::file`]) or the
//! part of a document between two markers ([`Expected::section`]). The
//! differences are gathered, not stopped at, and [`Expected::assert`] fails
//! the test with all of them. With `UPDATE_EXPECT=1` in the environment
//! (what `cargo xtask codegen` sets) the files are rewritten instead, only
//! where they differ; review the diff like code.

use std::{fs, path::Path};

/// The environment variable that asks for the expected files to be rewritten.
pub const UPDATE_VARIABLE: &str = "UPDATE_EXPECT";

/// Whether this run rewrites the expected files (`UPDATE_EXPECT` is set).
pub fn updating() -> bool {
    std::env::var_os(UPDATE_VARIABLE).is_some()
}

/// The comparisons of one test: how many were made and which differed.
#[derive(Debug, Default)]
pub struct Expected {
    checked: usize,
    differences: Vec<String>,
}

impl Expected {
    /// No comparison yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `actual` must be the whole of the file at `path` (rewritten first when
    /// updating; a missing file differs).
    pub fn file(&mut self, path: &Path, actual: &str) {
        self.checked += 1;
        let committed = fs::read_to_string(path).ok();
        if committed.as_deref() == Some(actual) {
            return;
        }
        if updating() {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)
                    .unwrap_or_else(|error| panic!("{}: {error}", parent.display()));
            }
            fs::write(path, actual).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            return;
        }
        let committed = committed.unwrap_or_default();
        self.differ(format!(
            "{}\n{}",
            path.display(),
            difference(&committed, actual)
        ));
    }

    /// `actual` must be the text of the document at `path` between the
    /// marker lines `start` and `end` (only that text is rewritten when
    /// updating). Missing markers fail the test at once.
    pub fn section(&mut self, path: &Path, start: &str, end: &str, actual: &str) {
        self.checked += 1;
        let document =
            fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let begin = document
            .find(start)
            .unwrap_or_else(|| panic!("{} has no marker {start:?}", path.display()))
            + start.len();
        let finish = begin
            + document[begin..]
                .find(end)
                .unwrap_or_else(|| panic!("{} has no marker {end:?}", path.display()));
        let committed = &document[begin..finish];
        if committed == actual {
            return;
        }
        if updating() {
            let updated = format!("{}{actual}{}", &document[..begin], &document[finish..]);
            fs::write(path, updated).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            return;
        }
        self.differ(format!(
            "{} (between {start:?} and {end:?})\n{}",
            path.display(),
            difference(committed, actual)
        ));
    }

    /// Records a difference the test found itself (an expected file that
    /// nothing generates any more, for instance).
    pub fn differ(&mut self, what: String) {
        self.differences.push(what);
    }

    /// How many comparisons were made.
    pub fn checked(&self) -> usize {
        self.checked
    }

    /// Fails the test with every difference, if any.
    #[track_caller]
    pub fn assert(self) {
        assert!(
            self.differences.is_empty(),
            "{} of {} expected files differ ({UPDATE_VARIABLE}=1 rewrites them; review the diff):\n\n{}",
            self.differences.len(),
            self.checked,
            self.differences.join("\n")
        );
    }
}

/// Both texts when they are short, else the first line that differs.
fn difference(expected: &str, actual: &str) -> String {
    const SHORT: usize = 40;
    if expected.lines().count() <= SHORT && actual.lines().count() <= SHORT {
        return format!("--- expected\n{expected}--- actual\n{actual}");
    }
    let (mut left, mut right) = (expected.lines(), actual.lines());
    for number in 1.. {
        match (left.next(), right.next()) {
            (None, None) => break,
            (l, r) if l == r => {}
            (l, r) => {
                return format!(
                    "line {number}: expected {:?}, actual {:?}\n",
                    l.unwrap_or("<end of file>"),
                    r.unwrap_or("<end of file>")
                );
            }
        }
    }
    "only in line endings\n".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_is_shown_whole_when_short_and_by_line_when_long() {
        assert_eq!(difference("a\n", "b\n"), "--- expected\na\n--- actual\nb\n");
        let long: String = (0..50).map(|n| format!("{n}\n")).collect();
        let changed = long.replace("\n7\n", "\nseven\n");
        assert_eq!(
            difference(&long, &changed),
            "line 8: expected \"7\", actual \"seven\"\n"
        );
        assert_eq!(
            difference(&long, &long.replace('\n', "\r\n")),
            "only in line endings\n"
        );
    }

    #[test]
    fn a_file_and_a_section_are_compared_and_every_difference_gathered() {
        let directory = std::env::temp_dir().join(format!("netcfg-expect-{}", std::process::id()));
        fs::create_dir_all(&directory).unwrap();
        let file = directory.join("whole.txt");
        fs::write(&file, "same\n").unwrap();
        let document = directory.join("doc.md");
        fs::write(&document, "intro\n<!-- s -->\nold\n<!-- e -->\nend\n").unwrap();

        let mut expected = Expected::new();
        expected.file(&file, "same\n");
        expected.section(&document, "<!-- s -->\n", "<!-- e -->", "old\n");
        assert_eq!((expected.checked(), expected.differences.len()), (2, 0));
        if !updating() {
            expected.file(&file, "other\n");
            expected.section(&document, "<!-- s -->\n", "<!-- e -->", "new\n");
            expected.file(&directory.join("missing.txt"), "x\n");
            assert_eq!((expected.checked(), expected.differences.len()), (5, 3));
        }
        fs::remove_dir_all(&directory).unwrap();
    }
}
