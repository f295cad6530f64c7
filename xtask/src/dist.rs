//! `cargo xtask dist`: the release artefacts in `target/dist/`: a tarball,
//! a Debian package and `SHA256SUMS` (issue 7); and [`check()`], which builds
//! them twice and inspects them.
//!
//! Everything is built with system tools Debian has (tar, gzip, dpkg-deb,
//! sha256sum) so xtask stays small. The tarball is reproducible: fixed
//! mtimes (`SOURCE_DATE_EPOCH`, else the last commit's time, else 0), sorted
//! entries, owner and group 0 by number, `gzip -n`. dpkg-deb honours
//! `SOURCE_DATE_EPOCH` itself.

mod check;
mod config;
mod deb;
mod files;
mod tarball;

use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

pub(crate) use check::check;
use files::{output_of, sha256sums};

/// The binaries a release ships.
const BINARIES: &[&str] = &["netcfg-http", "netcfg-sim"];

/// What every artefact is made from: the release binaries and the facts
/// that name and date them.
#[derive(Debug)]
struct Release {
    /// The workspace root.
    root: PathBuf,
    /// The workspace version (`[workspace.package]`).
    version: String,
    /// The host target triple the binaries were built for.
    target: String,
    /// The Debian architecture of that target.
    arch: String,
    /// Every mtime in the artefacts, in seconds since 1970.
    epoch: u64,
    /// Where this release's binaries are (a copy of the build's).
    binary_dir: PathBuf,
}

/// The artefacts of one packaging run.
#[derive(Debug)]
struct Artefacts {
    tarball: PathBuf,
    deb: PathBuf,
    sums: PathBuf,
}

/// `cargo xtask dist` builds the artefacts; `cargo xtask dist --check`
/// builds them twice and checks them (what CI runs).
pub(crate) fn dist(check_only: bool) -> Result<()> {
    if check_only {
        return check();
    }
    let release = Release::build()?;
    let artefacts = release.package(&release.root.join("target/dist"))?;
    for path in [&artefacts.tarball, &artefacts.deb, &artefacts.sums] {
        let size = std::fs::metadata(path)?.len();
        eprintln!("dist: {} ({} KiB)", path.display(), size.div_ceil(1024));
    }
    Ok(())
}

/// The release build of [`BINARIES`], running in the background (at the
/// lowest priority, its output in `target/ci-release-build.log`) while
/// other steps of CI run; [`Release::build`] then finds it done.
#[derive(Debug)]
pub(crate) struct ReleaseBuild {
    child: std::process::Child,
    log: PathBuf,
}

impl ReleaseBuild {
    /// Starts the build.
    pub(crate) fn start() -> Result<Self> {
        let root = crate::workspace_root();
        let log = root.join("target").join("ci-release-build.log");
        let output = std::fs::File::create(&log)
            .with_context(|| format!("could not create {}", log.display()))?;
        let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut command = Command::new("nice");
        command
            .args(["-n", "19"])
            .arg(&cargo)
            .args(["build", "--release"]);
        for binary in BINARIES {
            command.args(["-p", binary]);
        }
        let child = command
            .current_dir(&root)
            .stdout(output.try_clone()?)
            .stderr(output)
            .spawn()
            .context("could not start the release build in the background")?;
        eprintln!(
            "ci: the release build runs in the background ({})",
            log.display()
        );
        Ok(Self { child, log })
    }

    /// Waits for the build; its log is shown when it failed.
    pub(crate) fn wait(mut self) -> Result<()> {
        let status = self.child.wait().context("waiting for the release build")?;
        if !status.success() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            bail!("the release build failed ({status}):\n{log}");
        }
        Ok(())
    }
}

// A step that failed before `dist --check` leaves no build running.
impl Drop for ReleaseBuild {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Release {
    /// Builds the release binaries and gathers the facts about them.
    fn build() -> Result<Self> {
        let root = crate::workspace_root();
        let mut args = vec!["build", "--release"];
        for binary in BINARIES {
            args.extend(["-p", binary]);
        }
        crate::cargo(&args, &[])?;
        let target = host_target()?;
        let target_dir = env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"));
        let built_dir = if target_dir.is_absolute() {
            target_dir.join("release")
        } else {
            root.join(target_dir).join("release")
        };
        // A snapshot, so that a build by someone else in the shared target
        // directory cannot change the binaries between two packaging runs.
        let binary_dir = root.join("target/dist-binaries");
        for binary in BINARIES {
            files::copy_file(
                &built_dir.join(binary),
                &binary_dir.join(binary),
                files::EXECUTABLE,
            )?;
        }
        Ok(Self {
            version: workspace_version(&root)?,
            arch: debian_arch(&target)?,
            epoch: source_date_epoch(&root),
            root,
            target,
            binary_dir,
        })
    }

    /// Writes the tarball, the Debian package and `SHA256SUMS` into `out`
    /// (emptied first).
    fn package(&self, out: &Path) -> Result<Artefacts> {
        if out.exists() {
            std::fs::remove_dir_all(out)
                .with_context(|| format!("could not empty {}", out.display()))?;
        }
        std::fs::create_dir_all(out)?;
        let staging = out.join("staging");
        let tarball = tarball::build(self, &staging.join("tarball"), out)?;
        let deb = deb::build(self, &staging.join("deb"), out)?;
        std::fs::remove_dir_all(&staging)?;
        let sums = sha256sums(out, &[&tarball, &deb])?;
        Ok(Artefacts { tarball, deb, sums })
    }

    /// The default configuration file for a host installation, written from
    /// docs/configuration.md's key table.
    fn host_config(&self) -> Result<String> {
        let reference = std::fs::read_to_string(self.root.join("docs/configuration.md"))
            .context("could not read docs/configuration.md")?;
        config::host_config(&config::keys(&reference)?)
    }

    /// The path of release binary `name`.
    fn binary(&self, name: &str) -> PathBuf {
        self.binary_dir.join(name)
    }
}

/// The workspace version, as cargo reads it: the version of the server's
/// package (`version.workspace = true`), from `cargo metadata`.
fn workspace_version(root: &Path) -> Result<String> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let metadata = output_of(
        Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .current_dir(root),
    )?;
    let metadata: serde_json::Value =
        serde_json::from_str(&metadata).context("`cargo metadata` printed no JSON")?;
    metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"] == BINARIES[0])
        .and_then(|package| package["version"].as_str())
        .map(str::to_owned)
        .with_context(|| format!("`cargo metadata` gives no version of {}", BINARIES[0]))
}

/// The host target triple, from `rustc -vV`.
fn host_target() -> Result<String> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let info = output_of(Command::new(rustc).arg("-vV"))?;
    info.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .context("`rustc -vV` names no host")
}

/// The Debian architecture of a target triple, or of this machine when the
/// triple is not one we know.
fn debian_arch(target: &str) -> Result<String> {
    let cpu = target.split('-').next().unwrap_or_default();
    let known = match cpu {
        "x86_64" => Some("amd64"),
        "aarch64" => Some("arm64"),
        "i686" | "i586" => Some("i386"),
        "armv7" if target.ends_with("gnueabihf") => Some("armhf"),
        "riscv64gc" => Some("riscv64"),
        "powerpc64le" => Some("ppc64el"),
        "s390x" => Some("s390x"),
        _ => None,
    };
    match known {
        Some(arch) => Ok(arch.to_owned()),
        None => Ok(output_of(Command::new("dpkg").arg("--print-architecture"))?
            .trim()
            .to_owned()),
    }
}

/// `SOURCE_DATE_EPOCH` if set, else the last commit's time, else 0: the
/// same on every run from one commit.
fn source_date_epoch(root: &Path) -> u64 {
    if let Some(epoch) = env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|value| value.trim().parse().ok())
    {
        return epoch;
    }
    output_of(
        Command::new("git")
            .args(["log", "-1", "--format=%ct"])
            .current_dir(root),
    )
    .ok()
    .and_then(|time| time.trim().parse().ok())
    .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_what_cargo_reads() {
        let version = workspace_version(&crate::workspace_root()).unwrap();
        let parts: Vec<&str> = version.split('.').collect();
        assert_eq!(parts.len(), 3, "{version}");
        assert!(
            parts.iter().all(|part| part.parse::<u64>().is_ok()),
            "{version}"
        );
    }
}
