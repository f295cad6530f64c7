//! `netcfg_<version>_<arch>.deb`, built with `dpkg-deb` from a staged root:
//! the binaries in /usr/bin, the unit in /lib/systemd/system, the
//! configuration in /etc/netcfg (a conffile), the maintainer scripts of
//! `packaging/debian/`.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result};

use super::{
    BINARIES, Release,
    files::{
        EXECUTABLE, REGULAR, copy_file, copy_tree, output_of, require_tool, settle_tree, walk,
        write_file,
    },
};

/// Where the configuration file goes (the package's only conffile).
pub(super) const CONFIG_PATH: &str = "etc/netcfg/netcfg.toml";
/// Where the systemd unit goes.
pub(super) const UNIT_PATH: &str = "lib/systemd/system/netcfg.service";
/// Where the documentation goes.
const DOC_DIR: &str = "usr/share/doc/netcfg";
/// The maintainer scripts, from `packaging/debian/`.
pub(super) const SCRIPTS: &[&str] = &["postinst", "prerm", "postrm"];

/// The package's file name.
pub(super) fn file_name(release: &Release) -> String {
    format!("netcfg_{}_{}.deb", release.version, release.arch)
}

/// Every file the package installs (relative to /), with its mode.
pub(super) fn expected_files(release: &Release) -> Result<Vec<(PathBuf, u32)>> {
    let mut files: Vec<(PathBuf, u32)> = BINARIES
        .iter()
        .map(|binary| (Path::new("usr/bin").join(binary), EXECUTABLE))
        .collect();
    files.push((PathBuf::from(UNIT_PATH), REGULAR));
    files.push((PathBuf::from(CONFIG_PATH), REGULAR));
    let doc = Path::new(DOC_DIR);
    files.push((doc.join("copyright"), REGULAR));
    files.push((doc.join("README.md"), REGULAR));
    let docs = release.root.join("docs");
    for relative in walk(&docs)? {
        if docs.join(&relative).is_file() {
            files.push((doc.join("docs").join(relative), REGULAR));
        }
    }
    files.sort();
    Ok(files)
}

/// The control files (in DEBIAN/), with their modes.
pub(super) fn expected_control_files() -> Vec<(PathBuf, u32)> {
    let mut files: Vec<(PathBuf, u32)> = ["control", "conffiles", "md5sums"]
        .iter()
        .map(|name| (PathBuf::from(name), REGULAR))
        .collect();
    files.extend(SCRIPTS.iter().map(|name| (PathBuf::from(name), EXECUTABLE)));
    files.sort();
    files
}

/// Stages the package's root under `staging` and builds it into `out`.
pub(super) fn build(release: &Release, staging: &Path, out: &Path) -> Result<PathBuf> {
    require_tool("dpkg-deb", "dpkg")?;
    require_tool("md5sum", "coreutils")?;
    let root = &release.root;
    let packaging = root.join("packaging");
    for binary in BINARIES {
        copy_file(
            &release.binary(binary),
            &staging.join("usr/bin").join(binary),
            EXECUTABLE,
        )?;
    }
    copy_file(
        &packaging.join("netcfg.service"),
        &staging.join(UNIT_PATH),
        REGULAR,
    )?;
    write_file(&staging.join(CONFIG_PATH), release.host_config()?, REGULAR)?;
    let doc = staging.join(DOC_DIR);
    write_file(&doc.join("copyright"), copyright(root)?, REGULAR)?;
    copy_file(&root.join("README.md"), &doc.join("README.md"), REGULAR)?;
    copy_tree(&root.join("docs"), &doc.join("docs"))?;

    // The control part, after the data so its sizes and sums are known.
    let control = staging.join("DEBIAN");
    let data_files = expected_files(release)?;
    write_file(
        &control.join("control"),
        control_file(release, staging, &data_files)?,
        REGULAR,
    )?;
    write_file(
        &control.join("conffiles"),
        format!("/{CONFIG_PATH}\n"),
        REGULAR,
    )?;
    let mut md5sum = Command::new("md5sum");
    md5sum.current_dir(staging);
    md5sum.args(data_files.iter().map(|(path, _)| path));
    write_file(&control.join("md5sums"), output_of(&mut md5sum)?, REGULAR)?;
    for script in SCRIPTS {
        copy_file(
            &packaging.join("debian").join(script),
            &control.join(script),
            EXECUTABLE,
        )?;
    }
    settle_tree(staging, release.epoch)?;

    let deb = out.join(file_name(release));
    output_of(
        Command::new("dpkg-deb")
            .args(["--root-owner-group", "-Zxz", "--build"])
            .arg(staging)
            .arg(&deb)
            .env("SOURCE_DATE_EPOCH", release.epoch.to_string()),
    )?;
    Ok(deb)
}

/// `packaging/debian/control` with this release's version, architecture,
/// installed size and library dependencies filled in.
fn control_file(
    release: &Release,
    staging: &Path,
    data_files: &[(PathBuf, u32)],
) -> Result<String> {
    let template = std::fs::read_to_string(release.root.join("packaging/debian/control"))?;
    // As dpkg-gencontrol counts: each file's KiB rounded up, one per directory.
    let mut kibibytes = 0;
    for (path, _) in data_files {
        kibibytes += std::fs::metadata(staging.join(path))?.len().div_ceil(1024);
    }
    kibibytes += walk(staging)?
        .iter()
        .filter(|path| staging.join(path).is_dir())
        .count() as u64;
    Ok(template
        .replace("@VERSION@", &release.version)
        .replace("@ARCH@", &release.arch)
        .replace("@INSTALLED_SIZE@", &kibibytes.to_string())
        .replace("@DEPENDS@", &depends(&release.binary("netcfg-http"))?))
}

/// The shared libraries the server needs, as Debian dependencies: the
/// newest `GLIBC_2.N` symbol version it asks for, and libgcc_s (unwinding)
/// when it links it. Read from the binary's bytes: its dynamic section names
/// both, even stripped.
fn depends(binary: &Path) -> Result<String> {
    let bytes =
        std::fs::read(binary).with_context(|| format!("could not read {}", binary.display()))?;
    let marker = b"GLIBC_2.";
    let newest_glibc = bytes
        .windows(marker.len())
        .enumerate()
        .filter(|(_, window)| *window == marker)
        .filter_map(|(at, _)| {
            let digits: String = bytes[at + marker.len()..]
                .iter()
                .take_while(|byte| byte.is_ascii_digit())
                .map(|&byte| char::from(byte))
                .collect();
            digits.parse::<u32>().ok()
        })
        .max();
    let mut depends = match newest_glibc {
        Some(minor) => vec![format!("libc6 (>= 2.{minor})")],
        None => vec!["libc6".to_owned()],
    };
    let libgcc = b"libgcc_s.so.1";
    if bytes.windows(libgcc.len()).any(|window| window == libgcc) {
        depends.push("libgcc-s1".to_owned());
    }
    Ok(depends.join(", "))
}

/// `packaging/debian/copyright` with the MIT text (Debian's copyright format
/// indents it, a lone `.` for a blank line); Apache-2.0 is in common-licenses.
fn copyright(root: &Path) -> Result<String> {
    let template = std::fs::read_to_string(root.join("packaging/debian/copyright"))?;
    let mit = std::fs::read_to_string(root.join("LICENSE-MIT"))?;
    let indented: Vec<String> = mit
        .trim()
        .lines()
        .map(|line| match line.trim_end() {
            "" => " .".to_owned(),
            text => format!(" {text}"),
        })
        .collect();
    Ok(template.replace("@MIT@", &indented.join("\n")))
}
