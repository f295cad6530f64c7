//! Small file and process helpers for staging artefacts: explicit modes
//! (never the umask's), fixed mtimes, sorted walks.

use std::{
    fs::{self, File, FileTimes, Permissions},
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, UNIX_EPOCH},
};

use anyhow::{Context, Result, bail};

/// Mode of directories, executables and scripts.
pub(super) const EXECUTABLE: u32 = 0o755;
/// Mode of every other file.
pub(super) const REGULAR: u32 = 0o644;

/// Runs `command`, failing with its standard error when it fails; gives its
/// standard output.
pub(super) fn output_of(command: &mut Command) -> Result<String> {
    let shown = format!("{command:?}");
    let output = command
        .output()
        .with_context(|| format!("could not run {shown}"))?;
    if !output.status.success() {
        bail!(
            "{shown} failed with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    String::from_utf8(output.stdout).with_context(|| format!("{shown} printed non-UTF-8"))
}

/// Fails unless `tool` is on the PATH, naming the Debian package that has it.
pub(super) fn require_tool(tool: &str, package: &str) -> Result<()> {
    if which(tool).is_none() {
        bail!("`{tool}` is needed: install it with `apt-get install {package}`");
    }
    Ok(())
}

/// Where `tool` is on the PATH, if it is.
pub(super) fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|directory| directory.join(tool))
        .find(|candidate| candidate.is_file())
}

/// Writes `contents` to `path` with `mode`, creating its parents.
pub(super) fn write_file(path: &Path, contents: impl AsRef<[u8]>, mode: u32) -> Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, contents).with_context(|| format!("could not write {}", path.display()))?;
    fs::set_permissions(path, Permissions::from_mode(mode))?;
    Ok(())
}

/// Copies `from` to `to` with `mode`, creating the parents of `to`.
pub(super) fn copy_file(from: &Path, to: &Path, mode: u32) -> Result<()> {
    let contents = fs::read(from).with_context(|| format!("could not read {}", from.display()))?;
    write_file(to, contents, mode)
}

/// Copies the regular files under `from` into `to` (mode 0644), skipping
/// hidden ones.
pub(super) fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    for relative in walk(from)? {
        let source = from.join(&relative);
        if source.is_file() {
            copy_file(&source, &to.join(&relative), REGULAR)?;
        }
    }
    Ok(())
}

/// Every path under `root` (files and directories, relative, hidden ones
/// left out), sorted.
pub(super) fn walk(root: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let directory = root.join(&relative);
        for entry in fs::read_dir(&directory)
            .with_context(|| format!("could not list {}", directory.display()))?
        {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = relative.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                pending.push(path.clone());
            }
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Gives every directory under `root` (and `root`) mode 0755 and every
/// path the mtime `epoch`, so nothing of the build machine's clock or umask
/// reaches an artefact.
pub(super) fn settle_tree(root: &Path, epoch: u64) -> Result<()> {
    let time = UNIX_EPOCH + Duration::from_secs(epoch);
    let mut paths = walk(root)?;
    // Children first, so setting a file's time cannot touch its directory's.
    paths.reverse();
    paths.push(PathBuf::new());
    for relative in paths {
        let path = root.join(relative);
        if path.is_dir() {
            fs::set_permissions(&path, Permissions::from_mode(EXECUTABLE))?;
        }
        File::open(&path)
            .and_then(|file| file.set_times(FileTimes::new().set_modified(time).set_accessed(time)))
            .with_context(|| format!("could not set the time of {}", path.display()))?;
    }
    Ok(())
}

/// Writes `SHA256SUMS` in `directory` for `artefacts` (which are in it).
pub(super) fn sha256sums(directory: &Path, artefacts: &[&Path]) -> Result<PathBuf> {
    require_tool("sha256sum", "coreutils")?;
    let mut command = Command::new("sha256sum");
    command.current_dir(directory);
    for artefact in artefacts {
        command.arg(artefact.file_name().context("an artefact has a name")?);
    }
    let sums = directory.join("SHA256SUMS");
    write_file(&sums, output_of(&mut command)?, REGULAR)?;
    Ok(sums)
}
