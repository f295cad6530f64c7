//! Where things are: the workspace's root, cargo's target directory, and
//! cargo run in the root.

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The workspace's root: the nearest directory above this crate's own
/// whose `Cargo.toml` has a `[workspace]` table (wherever the crate sits
/// in the workspace).
pub fn root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Some(root) = root_above(manifest_dir) {
        return root;
    }
    // Built in a checkout that is gone (a removed worktree whose build
    // cargo kept: its fingerprints do not depend on the path): the
    // workspace it is run from.
    env::current_dir()
        .ok()
        .and_then(|dir| root_above(&dir))
        .unwrap_or_else(|| manifest_dir.to_owned())
}

/// The nearest of `dir` and the directories above it that holds a
/// workspace's `Cargo.toml`.
fn root_above(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|dir| {
            fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|manifest| manifest.lines().any(|line| line.trim() == "[workspace]"))
        })
        .map(Path::to_owned)
}

fn cargo_program() -> String {
    env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Runs `cargo` with `args` in the workspace's root, failing when it fails.
pub fn cargo(args: &[&str], extra_env: &[(&str, &str)]) -> Result<()> {
    let cargo = cargo_program();
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(&cargo)
        .args(args)
        .envs(extra_env.iter().copied())
        .current_dir(root())
        .status()
        .with_context(|| format!("could not run {cargo}"))?;
    if !status.success() {
        bail!("`cargo {}` failed with {status}", args.join(" "));
    }
    Ok(())
}

/// cargo's target directory for the workspace, as `cargo metadata` gives
/// it: `CARGO_TARGET_DIR`, a configured `build.target-dir`, or `target/`.
pub fn target_dir() -> Result<PathBuf> {
    let cargo = cargo_program();
    let output = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root())
        .output()
        .with_context(|| format!("could not run {cargo} metadata"))?;
    if !output.status.success() {
        bail!(
            "`cargo metadata` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata printed no JSON")?;
    metadata
        .get("target_directory")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .context("no target_directory in cargo metadata")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_workspace_above_this_crate() {
        let root = root();
        assert!(
            root.join("tools/netcfg-load/Cargo.toml").is_file(),
            "{root:?}"
        );
        assert!(root.join("fixtures/bench/site.jsonl").is_file(), "{root:?}");
        // From anywhere inside it, the same root.
        assert_eq!(
            root_above(&root.join("tools/netcfg-load/src")),
            Some(root.clone())
        );
        assert_eq!(root_above(&root), Some(root));
        assert_eq!(root_above(Path::new("/")), None);
    }

    #[test]
    fn the_target_directory_is_cargos() {
        let target = target_dir().unwrap();
        assert!(target.is_absolute(), "{target:?}");
        if let Some(configured) = env::var_os("CARGO_TARGET_DIR") {
            assert_eq!(target, root().join(configured));
        }
    }
}
