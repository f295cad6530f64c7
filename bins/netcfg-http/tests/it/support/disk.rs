//! Small and failing disks for the tests: a 4 MiB tmpfs mounted on a data
//! directory (root only; CI runs as root), remounted read-only on demand,
//! and a file that fills it.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    process::Command,
};

/// True when the tests run as root (they may mount filesystems).
pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "0")
}

fn run(command: &str, args: &[&str]) {
    let status = Command::new(command)
        .args(args)
        .status()
        .unwrap_or_else(|error| panic!("{command}: {error}"));
    assert!(status.success(), "{command} {args:?}: {status}");
}

/// A tmpfs of 4 MiB mounted on a directory, unmounted on drop.
pub(crate) struct SmallDisk(PathBuf);

impl SmallDisk {
    pub(crate) fn mount(path: &Path) -> Self {
        fs::create_dir_all(path).expect("the mount point");
        let point = path.to_str().expect("a UTF-8 path");
        run("mount", &["-t", "tmpfs", "-o", "size=4m", "tmpfs", point]);
        Self(path.to_owned())
    }

    pub(crate) fn remount(&self, options: &str) {
        let point = self.0.to_str().expect("a UTF-8 path");
        run("mount", &["-o", &format!("remount,{options}"), point]);
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// A server whose data directory is a fresh [`SmallDisk`].
pub(crate) fn server_on_small_disk() -> (super::Server, SmallDisk) {
    let mut disk = None;
    let server = super::Server::start_prepared(|data_dir| {
        disk = Some(SmallDisk::mount(data_dir));
        Vec::new()
    });
    (server, disk.expect("mounted"))
}

/// Writes a file until the filesystem is full.
pub(crate) fn fill(path: &Path) {
    let mut file = fs::File::create(path).expect("the filler");
    let chunk = vec![0x5a_u8; 64 * 1024];
    loop {
        if let Err(error) = file.write_all(&chunk).and_then(|()| file.sync_all()) {
            assert_eq!(error.raw_os_error(), Some(28), "ENOSPC, not {error}");
            return;
        }
    }
}
