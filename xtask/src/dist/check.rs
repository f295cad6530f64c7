//! The release check that `cargo xtask ci` runs: one release build,
//! packaged twice; the two tarballs (and packages) must be the same bytes;
//! then the package is unpacked with `dpkg-deb` and every file's path and
//! mode checked, the unit verified, the server run from the unpacked tree.

use std::{
    collections::BTreeMap,
    io::{BufRead, BufReader},
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail, ensure};

use super::{
    Release, config, deb,
    files::{EXECUTABLE, output_of, walk, which},
    tarball,
};
use netcfg_load::server::Client;

/// Only a hung server reaches this.
const HUNG: Duration = Duration::from_secs(60);

/// Lines the unit must have: what the service runs, as whom, and its
/// hardening.
const UNIT_LINES: &[&str] = &[
    "Type=notify",
    "NotifyAccess=main",
    "WatchdogSec=30s",
    "ExecStart=/usr/bin/netcfg-http --config /etc/netcfg/netcfg.toml",
    "User=netcfg",
    "Group=netcfg",
    "SupplementaryGroups=dialout",
    "Restart=on-failure",
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "ReadWritePaths=/var/lib/netcfg",
    "ProtectKernelTunables=yes",
    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
    "WantedBy=multi-user.target",
];

/// Builds the artefacts twice and checks them; prints what it checked.
pub(crate) fn check() -> Result<()> {
    let started = Instant::now();
    let release = Release::build()?;
    let built = started.elapsed();
    let scratch = release.root.join("target/dist-check");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)?;
    }
    let packaging = Instant::now();
    // The two runs share nothing but the binaries: run them side by side.
    let (first, second) = thread::scope(|scope| {
        let second = scope.spawn(|| release.package(&scratch.join("second")));
        let first = release.package(&release.root.join("target/dist"));
        (first, second.join())
    });
    let first = first?;
    let second = second.map_err(|_| anyhow::anyhow!("the second packaging run panicked"))??;
    println!(
        "dist check: release build {:.0} s, two packaging runs {:.1} s",
        built.as_secs_f64(),
        packaging.elapsed().as_secs_f64()
    );

    for (one, other) in [(&first.tarball, &second.tarball), (&first.deb, &second.deb)] {
        let bytes = std::fs::read(one)?;
        ensure!(
            bytes == std::fs::read(other)?,
            "{} differs between two runs on the same commit (compare with {})",
            one.display(),
            other.display()
        );
        println!(
            "dist check: {} is the same {} bytes on both runs",
            file_name(one),
            bytes.len()
        );
    }
    output_of(
        Command::new("sha256sum")
            .args(["--check", "--strict", "SHA256SUMS"])
            .current_dir(first.sums.parent().context("SHA256SUMS has a directory")?),
    )?;
    println!("dist check: SHA256SUMS matches both artefacts");

    check_tarball(&release, &first.tarball)?;
    check_deb(&release, &first.deb, &scratch)?;
    std::fs::remove_dir_all(&scratch)?;
    println!(
        "dist check: every check passed ({:.0} s)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A listing's mode string (`-rwxr-xr-x`) as a number.
fn mode_of(text: &str) -> Result<u32> {
    let permissions = text.get(1..10).context("a mode string")?;
    let mut mode = 0;
    for (bit, character) in permissions.chars().enumerate() {
        if character != '-' {
            mode |= 1 << (8 - bit);
        }
    }
    Ok(mode)
}

/// One entry of a `tar -tv` listing (also what `dpkg-deb -c` prints).
#[derive(Debug)]
struct Listed {
    kind: char,
    mode: u32,
    owner: String,
    time: String,
    path: String,
}

fn listing(text: &str) -> Result<Vec<Listed>> {
    text.lines()
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            ensure!(fields.len() >= 6, "an unexpected listing line: {line}");
            Ok(Listed {
                kind: fields[0].chars().next().unwrap_or('?'),
                mode: mode_of(fields[0])?,
                owner: fields[1].to_owned(),
                time: format!("{} {}", fields[3], fields[4]),
                path: fields[5..].join(" "),
            })
        })
        .collect()
}

/// The tarball: the expected files with their modes under one top
/// directory, directories 0755, every entry owned by 0/0 and dated `epoch`.
fn check_tarball(release: &Release, tarball: &Path) -> Result<()> {
    let text = output_of(
        Command::new("tar")
            .args([
                "--list",
                "--verbose",
                "--numeric-owner",
                "--full-time",
                "--gzip",
                "--file",
            ])
            .arg(tarball)
            .env("TZ", "UTC"),
    )?;
    let entries = listing(&text)?;
    let top = tarball::top_directory(release);
    let time = output_of(Command::new("date").args([
        "-u",
        "-d",
        &format!("@{}", release.epoch),
        "+%Y-%m-%d %H:%M:%S",
    ]))?;
    let mut files = BTreeMap::new();
    for entry in &entries {
        ensure!(
            entry.owner == "0/0",
            "{}: owner {}, not 0/0",
            entry.path,
            entry.owner
        );
        ensure!(
            entry.time == time.trim(),
            "{}: time {}, not {}",
            entry.path,
            entry.time,
            time.trim()
        );
        let relative = entry.path.trim_end_matches('/');
        let Some(inside) = relative.strip_prefix(&top) else {
            bail!("{} is outside the top directory {top}", entry.path);
        };
        match entry.kind {
            'd' => ensure!(
                entry.mode == EXECUTABLE,
                "directory {}: mode {:o}",
                entry.path,
                entry.mode
            ),
            '-' => {
                files.insert(PathBuf::from(inside.trim_start_matches('/')), entry.mode);
            }
            other => bail!("{}: an entry of kind `{other}`", entry.path),
        }
    }
    compare_files("the tarball", &files, &tarball::expected_files(release)?)?;
    println!(
        "dist check: {} holds {} entries under {top}/, modes as expected, owner 0/0, mtime {}",
        file_name(tarball),
        entries.len(),
        time.trim()
    );
    Ok(())
}

/// `found` (path → mode) is exactly `expected`.
fn compare_files(
    what: &str,
    found: &BTreeMap<PathBuf, u32>,
    expected: &[(PathBuf, u32)],
) -> Result<()> {
    let expected: BTreeMap<PathBuf, u32> = expected.iter().cloned().collect();
    let mut problems = Vec::new();
    for (path, mode) in &expected {
        match found.get(path) {
            None => problems.push(format!("{} is missing", path.display())),
            Some(found) if found != mode => {
                problems.push(format!("{}: mode {found:o}, not {mode:o}", path.display()));
            }
            Some(_) => {}
        }
    }
    for path in found.keys().filter(|path| !expected.contains_key(*path)) {
        problems.push(format!("{} is not expected", path.display()));
    }
    if !problems.is_empty() {
        bail!("{what}:\n  {}", problems.join("\n  "));
    }
    Ok(())
}

/// The files (path → mode) under `root`, checking that every directory is 0755.
fn files_under(root: &Path) -> Result<BTreeMap<PathBuf, u32>> {
    let mut files = BTreeMap::new();
    for relative in walk(root)? {
        let metadata = std::fs::symlink_metadata(root.join(&relative))?;
        let mode = metadata.permissions().mode() & 0o7777;
        if metadata.is_dir() {
            ensure!(
                mode == EXECUTABLE,
                "directory {}: mode {mode:o}",
                relative.display()
            );
        } else if metadata.is_file() {
            files.insert(relative, mode);
        } else {
            bail!("{} is neither a file nor a directory", relative.display());
        }
    }
    Ok(files)
}

/// The package, unpacked into `scratch`.
fn check_deb(release: &Release, deb: &Path, scratch: &Path) -> Result<()> {
    let name = file_name(deb);
    // Owners as packaged (extraction by root would keep them, by others not).
    let contents = listing(&output_of(
        Command::new("dpkg-deb").arg("--contents").arg(deb),
    )?)?;
    for entry in &contents {
        ensure!(
            entry.owner == "root/root",
            "{name}: {} is owned by {}",
            entry.path,
            entry.owner
        );
    }
    println!(
        "dist check: {name}: {} entries, all root/root",
        contents.len()
    );

    let root = scratch.join("root");
    let control = scratch.join("control");
    output_of(
        Command::new("dpkg-deb")
            .arg("--extract")
            .arg(deb)
            .arg(&root),
    )?;
    output_of(
        Command::new("dpkg-deb")
            .arg("--control")
            .arg(deb)
            .arg(&control),
    )?;
    let data_files = deb::expected_files(release)?;
    compare_files(&name, &files_under(&root)?, &data_files)?;
    compare_files(
        &format!("{name} (control)"),
        &files_under(&control)?,
        &deb::expected_control_files(),
    )?;
    println!(
        "dist check: {name}: exactly the {} expected files, modes as expected (binaries and scripts 0755, the rest 0644, directories 0755)",
        data_files.len() + deb::expected_control_files().len()
    );

    check_control(release, &control, &root)?;
    check_config(release, &root)?;
    check_unit(&root)?;
    check_server(release, &root, scratch)
}

/// The control fields, the conffile, the checksums, the scripts' syntax.
fn check_control(release: &Release, control: &Path, root: &Path) -> Result<()> {
    let fields = std::fs::read_to_string(control.join("control"))?;
    for expected in [
        "Package: netcfg".to_owned(),
        format!("Version: {}", release.version),
        format!("Architecture: {}", release.arch),
    ] {
        ensure!(
            fields.lines().any(|line| line == expected),
            "control has no `{expected}`:\n{fields}"
        );
    }
    let conffiles = std::fs::read_to_string(control.join("conffiles"))?;
    ensure!(
        conffiles == format!("/{}\n", deb::CONFIG_PATH),
        "conffiles: {conffiles:?}"
    );
    output_of(
        Command::new("md5sum")
            .args(["--check", "--quiet", "--strict"])
            .arg(control.join("md5sums"))
            .current_dir(root),
    )?;
    for script in deb::SCRIPTS {
        output_of(Command::new("sh").arg("-n").arg(control.join(script)))?;
    }
    let postinst = std::fs::read_to_string(control.join("postinst"))?;
    ensure!(
        postinst.contains("adduser --system --group"),
        "postinst creates no system user"
    );
    println!(
        "dist check: control names netcfg {} {}; conffile /{}; md5sums match; {} parse with sh -n",
        release.version,
        release.arch,
        deb::CONFIG_PATH,
        deb::SCRIPTS.join(", ")
    );
    Ok(())
}

/// The configuration file sets every documented key, and data_dir to the
/// service's directory.
fn check_config(release: &Release, root: &Path) -> Result<()> {
    let file = std::fs::read_to_string(root.join(deb::CONFIG_PATH))?;
    let reference = std::fs::read_to_string(release.root.join("docs/configuration.md"))?;
    let keys = config::keys(&reference)?;
    for key in keys.iter().filter(|key| key.default.is_some()) {
        let prefix = format!("{} = ", key.name);
        ensure!(
            file.lines().any(|line| line.starts_with(&prefix)),
            "netcfg.toml does not set {}",
            key.name
        );
    }
    let data_dir = format!("data_dir = \"{}\"", config::HOST_DATA_DIR);
    ensure!(
        file.lines().any(|line| line == data_dir),
        "netcfg.toml lacks `{data_dir}`"
    );
    println!(
        "dist check: /{} sets all {} documented keys that have a default, {data_dir}",
        deb::CONFIG_PATH,
        keys.iter().filter(|key| key.default.is_some()).count()
    );
    Ok(())
}

/// The unit's lines, and `systemd-analyze verify` where it exists (on a
/// copy whose ExecStart names the unpacked server, since /usr/bin/netcfg-http
/// need not exist on this machine).
fn check_unit(root: &Path) -> Result<()> {
    let unit = std::fs::read_to_string(root.join(deb::UNIT_PATH))?;
    for line in UNIT_LINES {
        ensure!(
            unit.lines().any(|have| have == *line),
            "the unit has no `{line}`"
        );
    }
    println!(
        "dist check: the unit has the {} required lines (user, command, hardening)",
        UNIT_LINES.len()
    );
    if which("systemd-analyze").is_none() {
        println!("dist check: systemd-analyze verify SKIPPED: systemd-analyze is not installed");
        return Ok(());
    }
    let server = root.join("usr/bin/netcfg-http");
    let copy = root.join("netcfg.service");
    std::fs::write(
        &copy,
        unit.replace(
            "ExecStart=/usr/bin/netcfg-http",
            &format!("ExecStart={}", server.display()),
        ),
    )?;
    let output = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&copy)
        .output()?;
    std::fs::remove_file(&copy)?;
    let complaints = String::from_utf8_lossy(&output.stderr);
    ensure!(
        output.status.success() && complaints.trim().is_empty(),
        "systemd-analyze verify: {}\n{complaints}",
        output.status
    );
    println!("dist check: systemd-analyze verify: the unit is clean (no warnings)");
    Ok(())
}

/// The unpacked server names its version, and starts with the packaged
/// configuration (data directory and address overridden) and serves /api.json.
fn check_server(release: &Release, root: &Path, scratch: &Path) -> Result<()> {
    let server = root.join("usr/bin/netcfg-http");
    let version = output_of(Command::new(&server).arg("--version"))?;
    ensure!(
        version.contains(&release.version),
        "`netcfg-http --version` printed {version:?}, not version {}",
        release.version
    );
    println!(
        "dist check: unpacked `netcfg-http --version` says {:?}",
        version.trim()
    );

    let mut child = Command::new(&server)
        .arg("--config")
        .arg(root.join(deb::CONFIG_PATH))
        .arg("--data-dir")
        .arg(scratch.join("data"))
        .args(["--bind", "127.0.0.1", "--port", "0"])
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("could not start the unpacked server")?;
    let stderr = child.stderr.take().context("the server's standard error")?;
    let (lines, received) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let address = loop {
        match received.recv_timeout(HUNG) {
            Ok(line) => {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    break rest
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_owned();
                }
                seen.push(line);
            }
            Err(_) => {
                let _ = child.kill();
                let status = child.wait()?;
                bail!(
                    "the unpacked server did not start with the packaged configuration ({status}):\n{}",
                    seen.join("\n")
                );
            }
        }
    };
    let answer = Client::at(&address).send("GET", "/api.json", None);
    let _ = child.kill();
    child.wait()?;
    let answer = answer?;
    ensure!(
        answer.status == 200 && answer.json()?.get("openapi").is_some(),
        "GET /api.json from the unpacked server: {} {}",
        answer.status,
        answer.text()
    );
    println!(
        "dist check: the unpacked server starts with the packaged configuration and serves /api.json (200)"
    );
    Ok(())
}
