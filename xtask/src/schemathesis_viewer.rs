//! The viewer's run of `cargo xtask schemathesis` (issue 47): schemathesis
//! sends every change of both tables (POST, PUT, PATCH, DELETE) with a
//! viewer's API key, and no change may land. Proven from outside: what an
//! admin reads before and after (the configurations and whether they run,
//! each one's history, the other users) is the same, and the audit trail
//! holds the viewer's refusals (403), so the key was live and refused, not
//! unknown.

use std::{path::Path, process::Command};

use anyhow::{Context, Result, bail};
use netcfg_load::server::{Client, Server, Value};

/// The viewer the run makes, and its key's name.
const VIEWER: &str = "schemathesis-viewer";
/// The audit entries read (the trail's largest page).
const AUDIT_PAGE: usize = 1_000;
/// Cases per operation, generated (no coverage phase: the refusal comes
/// before any body or parameter is read, so boundary values add nothing).
const EXAMPLES: &str = "2";

/// Makes the viewer and its key, sends every change of both tables with
/// it, and checks that nothing changed.
pub(crate) fn run(server: &Server, admin: &Client, root: &Path, excluded: &[&str]) -> Result<()> {
    let user = format!(
        r#"{{"name": "{VIEWER}", "role": "viewer", "password": "a viewer of the schemathesis run"}}"#
    );
    admin.expect_ok("POST", "/users", Some(&user))?;
    let key = admin
        .expect_ok(
            "POST",
            &format!("/users/{VIEWER}/keys"),
            Some(r#"{"name": "schemathesis", "role": "viewer"}"#),
        )?
        .payload("api_key")?
        .get("key")
        .and_then(Value::as_str)
        .context("no key in the answer")?
        .to_owned();
    let before = state(admin)?;
    for version in ["5.1", "5.0"] {
        eprintln!("schemathesis: the {version} table's changes with a viewer's key");
        let url = format!("{}/api.json?version={version}", server.url());
        let output = Command::new("schemathesis")
            .args([
                "run",
                &url,
                "--checks",
                "not_a_server_error",
                "--phases",
                "fuzzing",
                "-n",
                EXAMPLES,
                "--seed",
                "1",
                "--workers",
                "1",
            ])
            .args(["--include-method-regex", "^(POST|PUT|PATCH|DELETE)$"])
            .args(["-H", &format!("Api-Version: {version}")])
            .args(["-H", &format!("Authorization: Bearer {key}")])
            .args(
                excluded
                    .iter()
                    .flat_map(|operation| ["--exclude-operation-id", operation]),
            )
            .current_dir(root)
            .output()
            .context("could not run schemathesis")?;
        if !output.status.success() {
            eprintln!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            bail!(
                "schemathesis with a viewer's key found failures in the {version} table (see above)"
            );
        }
    }
    let after = state(admin)?;
    if before != after {
        bail!("a viewer's key changed what an admin reads:\nbefore: {before}\nafter:  {after}");
    }
    let refused = refusals(admin)?;
    if refused == 0 {
        bail!("the audit trail holds no 403 of {VIEWER}: its key was not what schemathesis sent");
    }
    let at_least = if refused >= AUDIT_PAGE {
        "at least "
    } else {
        ""
    };
    eprintln!(
        "schemathesis: a viewer's key changed nothing in either table ({at_least}{refused} changes refused with 403)"
    );
    Ok(())
}

/// What an admin reads that a change would alter: every configuration
/// (whether it runs), each one's newest history entry, the other users.
fn state(admin: &Client) -> Result<String> {
    let nets = admin
        .expect_ok("GET", "/nets", None)?
        .payload("configurations")?;
    let mut seen = vec![nets.to_string()];
    for net in nets.as_array().map(Vec::as_slice).unwrap_or_default() {
        let name = net
            .get("name")
            .and_then(Value::as_str)
            .context("a configuration without a name")?;
        let history = admin.expect_ok("GET", &format!("/nets/{name}/history?limit=1"), None)?;
        seen.push(history.text());
    }
    let users = admin.expect_ok("GET", "/users", None)?.payload("users")?;
    let others: Vec<&Value> = users
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|user| user.get("name").and_then(Value::as_str) != Some(VIEWER))
        .collect();
    seen.push(serde_json::to_string(&others)?);
    Ok(seen.join("\n"))
}

/// The viewer's refusals (403) in the audit trail's newest page.
fn refusals(admin: &Client) -> Result<usize> {
    let audit = admin
        .expect_ok("GET", &format!("/audit?limit={AUDIT_PAGE}"), None)?
        .payload("audit")?;
    Ok(audit
        .get("entries")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|entry| {
            entry.get("event").and_then(Value::as_str) == Some("refused")
                && entry.get("status").and_then(Value::as_u64) == Some(403)
                && entry
                    .get("user")
                    .and_then(Value::as_str)
                    .is_some_and(|user| user.contains(VIEWER))
        })
        .count())
}
