//! The layer rules of docs/architecture.md, checked on cargo's own
//! dependency graph (`cargo metadata`): no crate depends on what its layer
//! must not know. Plain `cargo test` runs this (netcfg-http is a default
//! member), and so does `cargo xtask layers`.
//!
//! A rule names the crate it is about; the test fails when that crate no
//! longer exists (a renamed crate must take its rules along), except for
//! the crates in [`PLANNED`], announced but not merged yet: their rules hold
//! from the moment they appear, and the test then asks for their names to
//! leave [`PLANNED`].

use std::{
    collections::{BTreeMap, BTreeSet},
    process::Command,
};

use serde_json::{Value, json};

/// Crates that touch the outside world (files, sockets, devices, clocks, HTTP).
const IO: &[&str] = &[
    "tokio",
    "mio",
    "actix-web",
    "actix-http",
    "actix-server",
    "rusqlite",
    "libsqlite3-sys",
    "tokio-serial",
    "serialport",
    "socket2",
    "env_logger",
    "config",
];
const HTTP: &[&str] = &[
    "actix-web",
    "actix-http",
    "actix-server",
    "utoipa-swagger-ui",
];
const SQLITE: &[&str] = &["rusqlite", "libsqlite3-sys"];
const SERIAL: &[&str] = &["tokio-serial", "serialport"];

/// The server's crates above the bottom layers (the model, its attribute
/// and netcfg-threads), which no bottom layer may know.
const ABOVE_BOTTOM: &[&str] = &[
    "netcfg-store",
    "netcfg-engine",
    "netcfg-api",
    "netcfg-host",
    "netcfg-service",
    "netcfg-outputs",
    "netcfg-ui",
];

/// The server's crates that hold its saved state and run its networks, with
/// the API and the service over them.
const SERVER_CORE: &[&str] = &[
    "netcfg-store",
    "netcfg-engine",
    "netcfg-api",
    "netcfg-service",
];

/// Crates announced but not merged yet: rules about them are kept already
/// (none now).
const PLANNED: &[&str] = &[];

/// How a forbidden crate may not be reached.
#[derive(Debug, Clone, Copy)]
enum Reach {
    /// Neither directly nor through any other crate.
    Any,
    /// Not as a dependency of the crate's own (another layer may own it).
    Direct,
}

/// One rule: `subject` must not depend on any crate of `forbidden`.
#[derive(Debug)]
struct Rule {
    subject: &'static str,
    reach: Reach,
    forbidden: &'static [&'static [&'static str]],
    why: &'static str,
}

const RULES: &[Rule] = &[
    Rule {
        subject: "netcfg-model",
        reach: Reach::Any,
        forbidden: &[IO],
        why: "the model is pure: no I/O, no async",
    },
    Rule {
        subject: "netcfg-model",
        reach: Reach::Any,
        forbidden: &[ABOVE_BOTTOM, &["netcfg-threads"]],
        why: "the model is the bottom layer (its one netcfg dependency is netcfg-model-derive, its compile-time attribute)",
    },
    Rule {
        subject: "netcfg-model-derive",
        reach: Reach::Any,
        forbidden: &[IO, &["netcfg-model", "netcfg-threads"], ABOVE_BOTTOM],
        why: "the model's attribute is a proc-macro below the model: it reads tokens and writes tokens, nothing else (syn, quote)",
    },
    Rule {
        subject: "netcfg-threads",
        reach: Reach::Any,
        forbidden: &[IO, &["netcfg-model"], ABOVE_BOTTOM],
        why: "scheduling hints are a bottom layer beside the model: two system calls through libc, which any crate may use",
    },
    Rule {
        subject: "netcfg-store",
        reach: Reach::Any,
        forbidden: &[
            HTTP,
            SERIAL,
            &[
                "netcfg-engine",
                "netcfg-api",
                "netcfg-host",
                "netcfg-service",
            ],
        ],
        why: "the store knows nothing of HTTP, devices or the host",
    },
    Rule {
        subject: "netcfg-engine",
        reach: Reach::Any,
        forbidden: &[
            HTTP,
            SQLITE,
            &[
                "netcfg-store",
                "netcfg-api",
                "netcfg-host",
                "netcfg-service",
            ],
        ],
        why: "the engine knows nothing of HTTP, saved-state files or the host",
    },
    Rule {
        subject: "netcfg-service",
        reach: Reach::Any,
        forbidden: &[HTTP, &["netcfg-api", "config", "env_logger", "clap"]],
        why: "the service layer knows no HTTP: any front door (the API, a program) calls it",
    },
    Rule {
        subject: "netcfg-outputs",
        reach: Reach::Any,
        forbidden: &[HTTP, SQLITE, SERIAL, SERVER_CORE, &["netcfg-host"]],
        why: "the outputs publish what they are handed (MQTT, webhooks as an HTTP client): no server, no saved state, no devices",
    },
    Rule {
        subject: "netcfg-api",
        reach: Reach::Direct,
        forbidden: &[
            SQLITE,
            SERIAL,
            &["socket2", "netcfg-store", "netcfg-engine", "netcfg-host"],
        ],
        why: "the API reaches the saved state, the networks and the host through netcfg-service, which owns every operation on a configuration and the live feed",
    },
    Rule {
        subject: "netcfg-api",
        reach: Reach::Any,
        forbidden: &[&["config", "env_logger", "clap"]],
        why: "the API mounts in any actix-web server: settings and logging set-up are the binary's",
    },
    Rule {
        subject: "netcfg-ui",
        reach: Reach::Any,
        forbidden: &[
            SQLITE,
            SERIAL,
            &[
                "netcfg-model",
                "netcfg-store",
                "netcfg-engine",
                "netcfg-host",
                "netcfg-api",
            ],
        ],
        why: "the web front end serves files only: its code reaches the data through the public API, in the browser",
    },
    Rule {
        subject: "netcfg-host",
        reach: Reach::Any,
        forbidden: &[HTTP, SQLITE, SERIAL, SERVER_CORE],
        why: "host facts (network interfaces, packages) need only netcfg-model: no HTTP, no SQLite, no serial",
    },
    Rule {
        subject: "netcfg-load",
        reach: Reach::Any,
        forbidden: &[
            HTTP,
            SQLITE,
            SERIAL,
            SERVER_CORE,
            &["netcfg-host", "netcfg-http"],
        ],
        why: "the load harnesses drive the built server from outside, over HTTP as its users do (and sqlite3's command line): none of the server's own crates",
    },
];

/// `cargo metadata` of this workspace, dependencies resolved.
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--manifest-path",
            manifest,
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

/// The dependency graph: package id to (name, the ids of its normal
/// dependencies), and the names of the workspace's members.
struct Graph {
    packages: BTreeMap<String, (String, Vec<String>)>,
    members: BTreeSet<String>,
}

impl Graph {
    fn new(metadata: &Value) -> Graph {
        let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
        let list = |value: &Value| value.as_array().cloned().unwrap_or_default();
        let names: BTreeMap<String, String> = list(&metadata["packages"])
            .iter()
            .map(|package| (text(&package["id"]), text(&package["name"])))
            .collect();
        let mut packages = BTreeMap::new();
        for node in list(&metadata["resolve"]["nodes"]) {
            // Normal dependencies only: what the crate needs at run time,
            // not its tests' or its build script's.
            let normal = list(&node["deps"])
                .iter()
                .filter(|dep| {
                    list(&dep["dep_kinds"])
                        .iter()
                        .any(|kind| kind["kind"].is_null())
                })
                .map(|dep| text(&dep["pkg"]))
                .collect();
            let id = text(&node["id"]);
            let name = names.get(&id).cloned().unwrap_or_default();
            packages.insert(id, (name, normal));
        }
        let members = list(&metadata["workspace_members"])
            .iter()
            .filter_map(|id| names.get(&text(id)).cloned())
            .collect();
        Graph { packages, members }
    }

    /// The names of what `name` depends on at run time: directly, or also
    /// through others.
    fn dependencies(&self, name: &str, reach: Reach) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut to_visit: Vec<&String> = self
            .packages
            .iter()
            .filter(|(_, (package, _))| package == name)
            .flat_map(|(_, (_, deps))| deps)
            .collect();
        while let Some(id) = to_visit.pop() {
            if !seen.insert(id.clone()) {
                continue;
            }
            if let (Reach::Any, Some((_, deps))) = (reach, self.packages.get(id)) {
                to_visit.extend(deps);
            }
        }
        seen.iter()
            .filter_map(|id| self.packages.get(id).map(|(name, _)| name.clone()))
            .collect()
    }
}

/// Every broken rule and every rule about a crate that is not there.
fn problems(metadata: &Value, rules: &[Rule], planned: &[&str]) -> Vec<String> {
    let graph = Graph::new(metadata);
    let mut found = BTreeSet::new();
    for name in planned.iter().filter(|name| graph.members.contains(**name)) {
        found.insert(format!(
            "{name} is in the workspace now: remove it from PLANNED in {}, so its rules must hold",
            file!()
        ));
    }
    for rule in rules {
        let ours = rule
            .forbidden
            .iter()
            .flat_map(|group| group.iter())
            .filter(|name| name.starts_with("netcfg-"));
        for name in std::iter::once(&rule.subject).chain(ours) {
            if !graph.members.contains(*name) && !planned.contains(name) {
                found.insert(format!(
                    "a rule names {name}, which is not in the workspace: update the rules ({})",
                    rule.why
                ));
            }
        }
        if !graph.members.contains(rule.subject) {
            continue;
        }
        let dependencies = graph.dependencies(rule.subject, rule.reach);
        for name in rule.forbidden.iter().flat_map(|group| group.iter()) {
            if dependencies.contains(*name) {
                let how = match rule.reach {
                    Reach::Any => "depends on",
                    Reach::Direct => "depends directly on",
                };
                found.insert(format!("{} {how} {name}, but {}", rule.subject, rule.why));
            }
        }
    }
    found.into_iter().collect()
}

/// A handler parses, calls one function of the service layer and renders:
/// it never reaches past the service into the store or the engine. Read
/// from the source, since the API crate still depends on the engine for
/// its live feed.
#[test]
fn no_handler_names_the_store_or_the_engine() {
    let handlers = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../crates/netcfg-api/src/handlers"
    );
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(handlers).expect("the handlers' folder") {
        let path = entry.expect("a handler file").path();
        let text = std::fs::read_to_string(&path).expect("a handler file reads");
        for (number, line) in (1..).zip(text.lines()) {
            if ["netcfg_store", "netcfg_engine", "netcfg_host"]
                .iter()
                .any(|name| line.contains(name))
            {
                offenders.push(format!("{}:{number}: {}", path.display(), line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "handlers past the service:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn every_crate_keeps_to_its_layer() {
    let problems = problems(&metadata(), RULES, PLANNED);
    assert!(
        problems.is_empty(),
        "layer rules broken (see docs/architecture.md):\n  {}",
        problems.join("\n  ")
    );
}

/// A graph of three workspace crates: `a` depends on `b`, `b` on the
/// outside crate `io`; `a` has `c` as a dev-dependency only.
fn small_workspace() -> Value {
    let node = |id: &str, deps: &[(&str, Option<&str>)]| {
        let deps: Vec<Value> = deps
            .iter()
            .map(|(pkg, kind)| json!({"pkg": pkg, "dep_kinds": [{"kind": kind}]}))
            .collect();
        json!({"id": id, "deps": deps})
    };
    json!({
        "packages": [
            {"id": "a-id", "name": "netcfg-a"},
            {"id": "b-id", "name": "netcfg-b"},
            {"id": "c-id", "name": "netcfg-c"},
            {"id": "io-id", "name": "io"},
        ],
        "workspace_members": ["a-id", "b-id", "c-id"],
        "resolve": {"nodes": [
            node("a-id", &[("b-id", None), ("c-id", Some("dev"))]),
            node("b-id", &[("io-id", None)]),
            node("c-id", &[]),
            node("io-id", &[]),
        ]},
    })
}

#[test]
fn a_dependency_through_another_crate_breaks_an_any_rule_not_a_direct_one() {
    let rule = |reach| Rule {
        subject: "netcfg-a",
        reach,
        forbidden: &[&["io"]],
        why: "a test",
    };
    let any = problems(&small_workspace(), &[rule(Reach::Any)], &[]);
    assert_eq!(any, ["netcfg-a depends on io, but a test"]);
    assert!(problems(&small_workspace(), &[rule(Reach::Direct)], &[]).is_empty());
}

#[test]
fn dev_dependencies_do_not_count() {
    let rule = Rule {
        subject: "netcfg-a",
        reach: Reach::Any,
        forbidden: &[&["netcfg-c"]],
        why: "a test",
    };
    assert!(problems(&small_workspace(), &[rule], &[]).is_empty());
}

#[test]
fn a_rule_about_a_crate_that_is_gone_fails_unless_planned() {
    let rule = Rule {
        subject: "netcfg-gone",
        reach: Reach::Any,
        forbidden: &[&["netcfg-a"]],
        why: "a test",
    };
    let found = problems(&small_workspace(), std::slice::from_ref(&rule), &[]);
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("netcfg-gone"), "{found:?}");
    assert!(problems(&small_workspace(), &[rule], &["netcfg-gone"]).is_empty());
    let arrived = problems(&small_workspace(), &[], &["netcfg-b"]);
    assert_eq!(arrived.len(), 1);
    assert!(arrived[0].contains("remove it from PLANNED"), "{arrived:?}");
}
