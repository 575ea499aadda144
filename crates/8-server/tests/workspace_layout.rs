//! The workspace's folders follow the data flow (`crates/README.md`):
//! numbered stages `1-binlog` … `9-cli`, and unnumbered support crates
//! beside them. These tests keep the layout honest: dependencies point
//! back along the flow only, support crates never reach into the stages
//! that assemble the pipeline, and the `sluice` binary stays a thin shell.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Package name → (folder, stage number if any, normal dependencies on
/// workspace crates and on `zookeeper-client`).
fn workspace() -> BTreeMap<String, (String, Option<u32>, Vec<String>)> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(crates_dir()).expect("the crates folder") {
        let dir = entry.expect("a crates entry").path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let folder = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let stage = folder
            .split_once('-')
            .and_then(|(n, _)| n.parse::<u32>().ok());
        let mut name = String::new();
        let mut section = String::new();
        let mut deps = Vec::new();
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line.trim_matches(['[', ']']).to_string();
                continue;
            }
            let key = line.split(['=', '.', ' ']).next().unwrap_or_default();
            if section == "package" && key == "name" {
                name = line
                    .split('=')
                    .nth(1)
                    .unwrap_or_default()
                    .trim()
                    .trim_matches('"')
                    .to_string();
            }
            if section == "dependencies"
                && (key.starts_with("sluice-") || key == "zookeeper-client")
            {
                deps.push(key.to_string());
            }
        }
        assert!(!name.is_empty(), "{folder}/Cargo.toml names no package");
        out.insert(name, (folder, stage, deps));
    }
    out
}

/// Support crates serve the stages; the stages from here on assemble them.
const FIRST_ASSEMBLING_STAGE: u32 = 6;

#[test]
fn dependencies_point_back_along_the_flow() {
    let ws = workspace();
    assert!(ws.len() >= 15, "only {} crates found", ws.len());
    let mut wrong = Vec::new();
    for (name, (folder, stage, deps)) in &ws {
        for dep in deps {
            let Some((dep_folder, dep_stage, _)) = ws.get(dep) else {
                continue;
            };
            let ok = match (stage, dep_stage) {
                // Numbered by dependency floor: a stage uses only stages
                // of lower numbers, never one of its own floor.
                (Some(s), Some(d)) => d < s,
                (None, Some(d)) => *d < FIRST_ASSEMBLING_STAGE,
                (_, None) => true,
            };
            if !ok {
                wrong.push(format!("{folder} ({name}) depends on {dep_folder} ({dep})"));
            }
        }
    }
    assert!(wrong.is_empty(), "against the flow:\n{}", wrong.join("\n"));
}

#[test]
fn the_binary_holds_no_zookeeper_election_or_store_logic() {
    let ws = workspace();
    let (_, _, deps) = ws.get("sluice-cli").expect("the sluice-cli crate");
    for forbidden in [
        "sluice-ha",
        "sluice-store",
        "sluice-meta",
        "zookeeper-client",
    ] {
        assert!(
            !deps.iter().any(|d| d == forbidden),
            "sluice-cli depends on {forbidden}: that logic belongs in sluice-server"
        );
    }
}

#[test]
fn the_binary_is_a_thin_shell() {
    let src = crates_dir().join("9-cli/src");
    let mut lines = 0;
    for entry in std::fs::read_dir(&src).expect("the CLI sources") {
        let path = entry.expect("a source file").path();
        let text = std::fs::read_to_string(&path).expect("a readable source file");
        // Unit tests do not count: cut each file at its test module.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        lines += code.lines().count();
    }
    assert!(
        lines < 600,
        "the sluice binary has {lines} lines of non-test code (limit 600)"
    );
}
