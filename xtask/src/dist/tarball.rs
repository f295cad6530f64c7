//! `netcfg-<version>-<target>.tar.gz`: the binaries, the default
//! configuration file, the systemd unit, README, docs and licences under one
//! top directory, byte for byte the same on every run from one commit.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Result, ensure};

use super::{
    BINARIES, Release,
    files::{
        EXECUTABLE, REGULAR, copy_file, copy_tree, output_of, require_tool, settle_tree, write_file,
    },
};

/// The unit's command in the Debian package, and in a hand installation
/// from the tarball (binaries outside the package manager go to /usr/local).
const PACKAGED_COMMAND: &str = "ExecStart=/usr/bin/netcfg-http ";
const LOCAL_COMMAND: &str = "ExecStart=/usr/local/bin/netcfg-http ";

/// The top directory of the tarball (and the tarball's name without `.tar.gz`).
pub(super) fn top_directory(release: &Release) -> String {
    format!("netcfg-{}-{}", release.version, release.target)
}

/// The files of the tarball below its top directory, with their modes.
pub(super) fn expected_files(release: &Release) -> Result<Vec<(PathBuf, u32)>> {
    let mut files: Vec<(PathBuf, u32)> = BINARIES
        .iter()
        .map(|binary| (Path::new("bin").join(binary), EXECUTABLE))
        .collect();
    for name in [
        "netcfg.toml",
        "netcfg.service",
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
    ] {
        files.push((PathBuf::from(name), REGULAR));
    }
    let docs = release.root.join("docs");
    for relative in super::files::walk(&docs)? {
        if docs.join(&relative).is_file() {
            files.push((Path::new("docs").join(relative), REGULAR));
        }
    }
    files.sort();
    Ok(files)
}

/// Stages the tarball's tree under `staging` and writes it into `out`.
pub(super) fn build(release: &Release, staging: &Path, out: &Path) -> Result<PathBuf> {
    require_tool("tar", "tar")?;
    require_tool("gzip", "gzip")?;
    let name = top_directory(release);
    let top = staging.join(&name);
    let root = &release.root;
    for binary in BINARIES {
        copy_file(
            &release.binary(binary),
            &top.join("bin").join(binary),
            EXECUTABLE,
        )?;
    }
    write_file(&top.join("netcfg.toml"), release.host_config()?, REGULAR)?;
    let unit = std::fs::read_to_string(root.join("packaging/netcfg.service"))?;
    ensure!(
        unit.matches(PACKAGED_COMMAND).count() == 1,
        "packaging/netcfg.service must have exactly one `{PACKAGED_COMMAND}…` line"
    );
    write_file(
        &top.join("netcfg.service"),
        unit.replace(PACKAGED_COMMAND, LOCAL_COMMAND),
        REGULAR,
    )?;
    for file in ["README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
        copy_file(&root.join(file), &top.join(file), REGULAR)?;
    }
    copy_tree(&root.join("docs"), &top.join("docs"))?;
    settle_tree(staging, release.epoch)?;

    let tar = out.join(format!("{name}.tar"));
    output_of(
        Command::new("tar")
            .arg("--create")
            .arg("--file")
            .arg(&tar)
            .args([
                "--format=gnu",
                "--sort=name",
                &format!("--mtime=@{}", release.epoch),
                "--owner=0",
                "--group=0",
                "--numeric-owner",
            ])
            .arg("--directory")
            .arg(staging)
            .arg(&name),
    )?;
    // -n: no file name or time stamp in the gzip header.
    output_of(Command::new("gzip").args(["-n", "-9", "--force"]).arg(&tar))?;
    Ok(out.join(format!("{name}.tar.gz")))
}
