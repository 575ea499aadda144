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

/// Every crate's non-test Rust sources under `src/`: (path, the code before
/// its unit tests). A file that is a test module of its own (`tests.rs`,
/// anything under a `tests` folder) is left out.
fn sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.expect("a source entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if name != "tests" {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" {
                let text = std::fs::read_to_string(&path).expect("a readable source file");
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                out.push((path, code.to_string()));
            }
        }
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(crates_dir()).expect("the crates folder") {
        walk(&entry.expect("a crates entry").path().join("src"), &mut out);
    }
    assert!(out.len() > 100, "only {} source files found", out.len());
    out
}

/// Longest a source file may be: a reader holds one in mind at a time.
const MAX_FILE_LINES: usize = 1200;

/// Longest a function may be (its signature to its closing brace).
const MAX_FUNCTION_LINES: usize = 120;

#[test]
fn no_source_file_is_too_long_to_read() {
    let long: Vec<String> = sources()
        .into_iter()
        .map(|(path, code)| (path, code.lines().count()))
        .filter(|(_, n)| *n > MAX_FILE_LINES)
        .map(|(path, n)| format!("{}: {n} lines", path.display()))
        .collect();
    assert!(
        long.is_empty(),
        "source files over {MAX_FILE_LINES} lines (split them):\n{}",
        long.join("\n")
    );
}

/// The functions of formatted code (`cargo fmt`): a `fn` line with a body
/// ends at the first line after it that is its indentation and `}`.
/// Returns (name, first line number, lines).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let mut words = line.split_whitespace().skip_while(|w| {
            w.starts_with("pub")
                || ["async", "const", "unsafe", "extern", "\"C\"", "default"].contains(w)
        });
        if words.next() != Some("fn") {
            continue;
        }
        let name: String = words
            .next()
            .unwrap_or_default()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{}}}", " ".repeat(indent));
        // A declaration without a body (a trait's) ends in `;` before any
        // `{`: it has no closing line of its own.
        let body = lines[i..]
            .iter()
            .position(|l| l.trim_end().ends_with('{') || l.trim_end().ends_with(';'))
            .is_some_and(|j| lines[i + j].trim_end().ends_with('{'));
        if !body || line.trim_end().ends_with('}') {
            continue;
        }
        if let Some(end) = lines[i + 1..].iter().position(|l| l.trim_end() == close) {
            out.push((name, i + 1, end + 2));
        }
    }
    out
}

#[test]
fn no_function_is_too_long_to_read() {
    let mut long = Vec::new();
    for (path, code) in sources() {
        for (name, at, n) in functions(&code) {
            if n > MAX_FUNCTION_LINES {
                long.push(format!("{}:{at}: fn {name}: {n} lines", path.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_function_reader_finds_bodies_and_skips_declarations() {
    let code = "pub trait T {\n    fn declared(&self);\n    fn with_default(&self) {\n        one();\n    }\n}\n\npub(crate) async fn long(\n    a: u8,\n) -> u8 {\n    a\n}\nfn short() {}\n";
    let found = functions(code);
    assert_eq!(
        found,
        vec![
            ("with_default".to_string(), 3, 3),
            ("long".to_string(), 8, 5)
        ]
    );
}

/// A crate's top-level modules (`src/x.rs` or `src/x/`) and, for each,
/// those it names through `crate::` (or `super::` in a file directly under
/// `src/`).
fn module_imports(
    src: &Path,
    files: Vec<(PathBuf, String)>,
) -> BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut graph: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for (path, code) in files.into_iter().filter(|(p, _)| p.starts_with(src)) {
        let Ok(rel) = path.strip_prefix(src) else {
            continue;
        };
        let mut parts = rel.iter().filter_map(|p| p.to_str());
        let first = parts.next().unwrap_or_default();
        let nested = parts.next().is_some();
        let module = first.trim_end_matches(".rs").to_string();
        if ["lib", "main"].contains(&module.as_str()) && !nested {
            continue;
        }
        let mut prefixes = vec!["crate::"];
        if !nested {
            prefixes.push("super::");
        }
        // Comments (doc links among them) name modules without using them.
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let targets = graph.entry(module.clone()).or_default();
        for prefix in prefixes {
            for (at, _) in code.match_indices(prefix) {
                // Part of a longer path (`sluice_x::crate::`) is not ours.
                if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let rest = &code[at + prefix.len()..];
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => {
                        // `crate::{a::X, b}`: the first segment of each path
                        // at the group's top level.
                        let mut depth = 0;
                        let end = group
                            .find(|c| {
                                match c {
                                    '{' => depth += 1,
                                    '}' if depth == 0 => return true,
                                    '}' => depth -= 1,
                                    _ => {}
                                }
                                false
                            })
                            .unwrap_or(group.len());
                        let mut names = Vec::new();
                        let mut depth = 0;
                        let mut start = 0;
                        for (i, c) in group[..end].char_indices() {
                            match c {
                                '{' => depth += 1,
                                '}' => depth -= 1,
                                ',' if depth == 0 => {
                                    names.push(&group[start..i]);
                                    start = i + 1;
                                }
                                _ => {}
                            }
                        }
                        names.push(&group[start..end]);
                        names
                    }
                    None => vec![rest],
                };
                for name in names {
                    let name: String = name
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != module {
                        targets.insert(name);
                    }
                }
            }
        }
    }
    // Names that are not modules (items of the crate root) are no edges.
    let modules: std::collections::BTreeSet<String> = graph.keys().cloned().collect();
    for targets in graph.values_mut() {
        targets.retain(|t| modules.contains(t));
    }
    graph
}

/// The modules of `graph` that reach themselves again through others: each
/// circle once, as the path found first.
fn circles(graph: &BTreeMap<String, std::collections::BTreeSet<String>>) -> Vec<Vec<String>> {
    fn path_back(
        graph: &BTreeMap<String, std::collections::BTreeSet<String>>,
        from: &str,
        to: &str,
        seen: &mut std::collections::BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> bool {
        for next in graph.get(from).into_iter().flatten() {
            if next == to {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if path_back(graph, next, to, seen, path) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut found: Vec<Vec<String>> = Vec::new();
    for start in graph.keys() {
        if found.iter().any(|c| c.contains(start)) {
            continue;
        }
        let mut path = vec![start.clone()];
        let mut seen = std::collections::BTreeSet::from([start.clone()]);
        if path_back(graph, start, start, &mut seen, &mut path) {
            found.push(path);
        }
    }
    found
}

#[test]
fn no_module_imports_itself_through_others() {
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(crates_dir()).expect("the crates folder") {
        let dir = entry.expect("a crates entry").path();
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        for circle in circles(&module_imports(&src, sources())) {
            let folder = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
            wrong.push(format!(
                "{folder}: {} -> {}",
                circle.join(" -> "),
                circle[0]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "modules that import themselves through others (move what they share into a module both use):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_circle_finder_finds_a_circle_and_nothing_else() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    let circle = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]);
    assert_eq!(circles(&circle), vec![vec!["a", "b", "c"]]);
    let tree = graph(&[("a", "b"), ("a", "c"), ("b", "c"), ("c", "d")]);
    assert!(circles(&tree).is_empty());
}

#[test]
fn the_import_reader_sees_paths_groups_and_super_but_not_comments() {
    let src = Path::new("/x/src");
    let file = |name: &str, code: &str| (src.join(name), code.to_string());
    let graph = module_imports(
        src,
        vec![
            file("lib.rs", "mod a; mod b; mod c; mod d; use crate::a::A;"),
            file(
                "a.rs",
                "use crate::{b::{B, Bb}, c};\nfn f() { super::d::g() }",
            ),
            file("b/mod.rs", "mod inner;"),
            file(
                "b/inner.rs",
                "use super::super::a; use crate::c::C; use super::Other;",
            ),
            file("c.rs", "// see crate::a\n/// [`crate::d`]\nfn c() {}"),
            file(
                "d.rs",
                "fn g() { other_crate::crate::a(); crate::Root::new(); }",
            ),
        ],
    );
    let edges = |m: &str| graph[m].iter().cloned().collect::<Vec<_>>();
    assert_eq!(edges("a"), ["b", "c", "d"]);
    assert_eq!(edges("b"), ["c"]);
    assert!(edges("c").is_empty());
    assert!(edges("d").is_empty());
    assert!(!graph.contains_key("lib"));
}
