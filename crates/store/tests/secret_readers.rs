//! The seed stays in the rules engine until the match ends, by construction: the meta the
//! gateway and the clock read has no seed, the store they hold ([`EventStore`]) has no
//! method that returns it, and the seed's own type ([`MatchSecret`]), the store trait that
//! reads it ([`HostStore`]) and its accessor appear nowhere in their sources or in
//! those of the workspace crates they are built from (but this crate, which defines them,
//! and the rules engine, which reads them). The crates are found from `cargo metadata`,
//! so a new dependency is checked as soon as it is added.
//!
//! [`MatchSecret`]: store::MatchSecret
//! [`EventStore`]: store::EventStore
//! [`HostStore`]: store::HostStore

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The names that reach the seed.
const SECRET_NAMES: [&str; 4] = ["MatchSecret", "match_secret", "HostStore", "open_host_store"];

/// The services that must never hold the seed.
const EDGE: [&str; 2] = ["gateway", "clock"];

/// The crates that may: the store that keeps it and the engine that replays matches.
const TRUSTED: [&str; 2] = ["store", "rules-engine"];

/// Every workspace package: its name -> (its directory, the workspace packages it is built
/// from: normal and build dependencies, not dev ones).
fn workspace() -> BTreeMap<String, (PathBuf, Vec<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    packages
        .iter()
        .map(|p| {
            let name = p["name"].as_str().expect("a package name").to_string();
            let manifest = PathBuf::from(p["manifest_path"].as_str().expect("a manifest path"));
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .filter_map(|d| d["name"].as_str())
                .filter(|d| names.contains(d))
                .map(str::to_string)
                .collect();
            (name, (manifest.parent().expect("a package directory").to_path_buf(), deps))
        })
        .collect()
}

/// The edge services and every workspace crate they are built from, but the trusted ones.
fn edge_crates(ws: &BTreeMap<String, (PathBuf, Vec<String>)>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = EDGE.iter().map(|s| s.to_string()).collect();
    while let Some(name) = todo.pop() {
        if TRUSTED.contains(&name.as_str()) || !seen.insert(name.clone()) {
            continue;
        }
        let (_, deps) = ws.get(&name).unwrap_or_else(|| panic!("{name} is a workspace package"));
        todo.extend(deps.iter().cloned());
    }
    seen
}

/// Every `.rs` file under `dir` (its build output aside).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_crate_of_the_gateway_or_the_clock_names_the_secret() {
    let ws = workspace();
    let checked = edge_crates(&ws);
    // The walk found what the services are built from, not only the services.
    for expected in ["gateway", "clock", "service-kit", "api", "rules-core"] {
        assert!(checked.contains(expected), "{expected} missing from {checked:?}");
    }
    let mut found = Vec::new();
    for name in &checked {
        let mut files = Vec::new();
        rust_files(&ws[name].0, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a readable source file");
            for needle in SECRET_NAMES {
                for (n, line) in text.lines().enumerate() {
                    if line.contains(needle) {
                        found.push(format!("{}:{}: {needle}", file.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "the seed's names outside the rules engine:\n{}", found.join("\n"));
}

#[test]
fn the_names_checked_are_the_secret_and_its_accessor() {
    // Were they renamed, the check above would pass vacuously.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let model = std::fs::read_to_string(src.join("matches/model.rs")).expect("matches/model.rs");
    let store = std::fs::read_to_string(src.join("matches/traits.rs")).expect("matches/traits.rs");
    assert!(model.contains(&format!("pub struct {}", SECRET_NAMES[0])));
    assert!(store.contains(&format!("async fn {}(", SECRET_NAMES[1])));
    assert!(
        store.contains(&format!("pub trait {}: EventStore", SECRET_NAMES[2])),
        "the host store's trait"
    );
    let open = std::fs::read_to_string(src.join("open.rs")).expect("open.rs");
    assert!(open.contains(&format!("pub async fn {}_from_env", SECRET_NAMES[3])));
    // The edge's store trait has neither the secret nor match creation.
    let edge = store.split("pub trait EventStore").nth(1).expect("EventStore");
    let edge = &edge[..edge.find("\n}\n").expect("the trait's end")];
    let code: Vec<&str> = edge.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    assert!(code.iter().any(|l| l.contains("async fn meta(")), "{edge}");
    assert!(!code.iter().any(|l| l.contains("match_secret") || l.contains("create_match")));
    // And the meta the edge reads has no seed of its own.
    let meta = model.split("pub struct MatchMeta {").nth(1).expect("MatchMeta");
    let meta = &meta[..meta.find('}').expect("the struct's end")];
    let fields: Vec<&str> = meta.lines().map(str::trim).filter(|l| l.starts_with("pub ")).collect();
    assert!(fields.len() >= 5, "{fields:?}");
    assert!(fields.iter().all(|f| !f.contains("seed")), "MatchMeta has a seed field: {fields:?}");
}
