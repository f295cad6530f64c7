//! The load generator: wrk (Debian), driven by Lua scripts that write
//! their figures on one line the bench parses.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

/// The figures of one load run.
#[derive(Debug, Clone)]
pub(crate) struct Load {
    pub(crate) connections: u32,
    pub(crate) requests: u64,
    pub(crate) seconds: f64,
    /// Connect, read, write and timeout errors, and answers of 400 or more.
    pub(crate) errors: u64,
    pub(crate) p50_ms: f64,
    pub(crate) p90_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) max_ms: f64,
}

impl Load {
    /// Requests answered per second.
    pub(crate) fn rate(&self) -> f64 {
        self.requests as f64 / self.seconds
    }
}

/// Writes the figures on one line, `BENCH key=value ...`.
const DONE: &str = r#"
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d errors=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
"#;

/// The script of a plain GET.
pub(crate) fn get_script(dir: &Path) -> Result<PathBuf> {
    let path = dir.join("get.lua");
    fs::write(&path, DONE).with_context(|| format!("could not write {}", path.display()))?;
    Ok(path)
}

/// The script of `PATCH /nets/{net}/devices/{serial}`: each request the
/// full device body `body` (a Lua format string: `%s` the serial number,
/// then `%s` and `%d` for a new name), cycling over `serials`; each wrk
/// thread starts at its own place in the list, so concurrent requests hit
/// different devices.
pub(crate) fn patch_script(
    dir: &Path,
    net: &str,
    serials: &[String],
    body: &str,
) -> Result<PathBuf> {
    let request = format!(
        r#"local body = string.format('{body}', serial, serial, counter)
  return wrk.format("PATCH", "/nets/{net}/devices/" .. serial,
    {{ ["Content-Type"] = "application/json" }}, body)"#
    );
    cycling_script(&dir.join("patch.lua"), serials, &request)
}

/// The script of `GET /nets/{net}/devices/{serial}`, cycling over
/// `serials` as [`patch_script`] does: the read a PATCH is weighed against.
pub(crate) fn get_one_script(dir: &Path, net: &str, serials: &[String]) -> Result<PathBuf> {
    let request = format!(r#"return wrk.format("GET", "/nets/{net}/devices/" .. serial)"#);
    cycling_script(&dir.join("get-one.lua"), serials, &request)
}

/// [`get_one_script`] with `Authorization: Bearer <secret>` on every
/// request (an API key: the reads access control weighs).
pub(crate) fn get_one_script_as(
    dir: &Path,
    net: &str,
    serials: &[String],
    secret: &str,
) -> Result<PathBuf> {
    let request = format!(
        r#"return wrk.format("GET", "/nets/{net}/devices/" .. serial,
    {{ ["Authorization"] = "Bearer {secret}" }})"#
    );
    cycling_script(&dir.join("get-one-as.lua"), serials, &request)
}

/// A script whose requests cycle over `serials` (`request`, Lua, builds
/// each from `serial` and `counter`), each wrk thread from its own place.
fn cycling_script(path: &Path, serials: &[String], request: &str) -> Result<PathBuf> {
    let list: Vec<String> = serials
        .iter()
        .map(|serial| format!("\"{serial}\""))
        .collect();
    let script = format!(
        r#"
local serials = {{ {list} }}
local counter = 0
offset = 0
local threads = 0
function setup(thread)
  thread:set("offset", threads * 389)
  threads = threads + 1
end
function request()
  counter = counter + 1
  local serial = serials[((offset + counter) % #serials) + 1]
  {request}
end
{DONE}"#,
        list = list.join(", "),
    );
    fs::write(path, script).with_context(|| format!("could not write {}", path.display()))?;
    Ok(path.to_owned())
}

/// Runs wrk for `seconds` with `connections` against `url`.
pub(crate) fn run(script: &Path, url: &str, connections: u32, seconds: u32) -> Result<Load> {
    // Two wrk threads (one per core) when there are two connections or
    // more: with one, a busy machine starves wrk before the server, and the
    // baseline would measure wrk.
    let threads = connections.min(2);
    let output = Command::new("wrk")
        .args([
            &format!("-t{threads}"),
            &format!("-c{connections}"),
            &format!("-d{seconds}s"),
            "--timeout",
            "10s",
            "-s",
        ])
        .arg(script)
        .arg(url)
        .output()
        .context("could not run wrk")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed ({}): {stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // Requests still queued in the server when wrk stopped finish before
    // the next run starts.
    std::thread::sleep(std::time::Duration::from_millis(500));
    parse(&stdout, connections).with_context(|| format!("wrk printed no figures:\n{stdout}"))
}

fn parse(stdout: &str, connections: u32) -> Option<Load> {
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("BENCH "))?;
    let field = |name: &str| -> Option<u64> {
        line.split_whitespace()
            .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))?
            .parse()
            .ok()
    };
    let ms = |name: &str| field(name).map(|us| us as f64 / 1_000.0);
    Some(Load {
        connections,
        requests: field("requests")?,
        seconds: field("duration_us")? as f64 / 1e6,
        errors: field("errors")?,
        p50_ms: ms("p50_us")?,
        p90_ms: ms("p90_us")?,
        p99_ms: ms("p99_us")?,
        max_ms: ms("max_us")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_figures_line() {
        let out = "Running 5s test\nBENCH requests=1000 duration_us=5000000 errors=2 p50_us=1500 p90_us=2000 p99_us=3000 max_us=9000\n";
        let load = parse(out, 8).unwrap();
        assert_eq!(load.requests, 1000);
        assert_eq!(load.errors, 2);
        assert!((load.rate() - 200.0).abs() < 1e-9);
        assert!((load.p99_ms - 3.0).abs() < 1e-9);
        assert!(parse("no figures", 8).is_none());
        let partial = "BENCH requests=1000 duration_us=5000000 errors=0 p50_us=1500";
        assert!(parse(partial, 8).is_none(), "a line without every figure");
    }

    #[test]
    fn the_patch_script_cycles_over_the_serials_with_full_bodies() {
        let dir = std::env::temp_dir().join(format!("netcfg-load-wrk-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let serials = ["01:05:0001".to_owned(), "01:05:0002".to_owned()];
        let path = patch_script(
            &dir,
            "bench",
            &serials,
            r#"{"serial_number":"%s","name":"Tag %s rev %d"}"#,
        )
        .unwrap();
        let script = fs::read_to_string(&path).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        assert!(
            script.contains(r#"local serials = { "01:05:0001", "01:05:0002" }"#),
            "{script}"
        );
        assert!(
            script.contains(r#"wrk.format("PATCH", "/nets/bench/devices/" .. serial"#),
            "{script}"
        );
        assert!(script.contains(r#"string.format('{"serial_number":"%s","name":"Tag %s rev %d"}', serial, serial, counter)"#), "{script}");
        // Every script reports its figures the same way.
        assert!(
            script.contains("io.write(string.format(\n    \"BENCH requests=%d"),
            "{script}"
        );
    }
}
