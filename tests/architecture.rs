//! The layers of `docs/architecture.md`, checked on the code itself.
//!
//! Between crates the compiler enforces the direction once the manifests
//! are right, so the manifests are checked: `amail-parser` depends on no
//! other amail crate, `amail-core` on the parser only (and on no terminal,
//! async or command-line crate), `amail-tui` on core and parser, never on
//! the binary; `amail-remote` (the server store, which needs tokio and
//! rmcp) on core and parser, never on the TUI or the binary, and only the
//! binary uses it. Inside `amail-core` the modules form a stack that only this
//! test enforces: every `crate::<module>` and `amail_parser` path in a
//! module's code (comments excluded) must name a module below it, and the
//! two refused edges stay refused (router -> parser, bridge, source, inbox;
//! bridge -> router).

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifest(rel: &str) -> toml::Table {
    let text = fs::read_to_string(root().join(rel)).unwrap();
    text.parse().unwrap()
}

/// Names of the normal (not dev) dependencies of a manifest, target
/// tables included.
fn dependencies(m: &toml::Table) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut take = |t: Option<&toml::Value>| {
        if let Some(t) = t.and_then(|t| t.as_table()) {
            out.extend(t.keys().cloned());
        }
    };
    take(m.get("dependencies"));
    if let Some(targets) = m.get("target").and_then(|t| t.as_table()) {
        for t in targets.values() {
            take(t.get("dependencies"));
        }
    }
    out
}

#[test]
fn crates_depend_only_downwards() {
    let parser = dependencies(&manifest("parser/Cargo.toml"));
    let core = dependencies(&manifest("core/Cargo.toml"));
    let tui = dependencies(&manifest("tui/Cargo.toml"));
    for d in ["amail", "amail-core", "amail-tui"] {
        assert!(!parser.iter().any(|x| x == d), "parser depends on {d}");
    }
    for d in [
        "amail",
        "amail-tui",
        "amail-remote",
        "ratatui",
        "crossterm",
        "tokio",
        "rmcp",
        "clap",
        "notify",
    ] {
        assert!(!core.iter().any(|x| x == d), "amail-core depends on {d}");
    }
    assert!(core.iter().any(|x| x == "amail-parser"));
    assert!(
        !tui.iter().any(|x| x == "amail"),
        "amail-tui depends on the binary"
    );
    assert!(tui.iter().any(|x| x == "amail-core"));
    let remote = dependencies(&manifest("remote/Cargo.toml"));
    for d in ["amail", "amail-tui", "ratatui", "crossterm", "clap"] {
        assert!(
            !remote.iter().any(|x| x == d),
            "amail-remote depends on {d}"
        );
    }
    assert!(remote.iter().any(|x| x == "amail-core"));
    for (name, deps) in [("parser", &parser), ("core", &core), ("tui", &tui)] {
        assert!(
            !deps.iter().any(|x| x == "amail-remote"),
            "{name} depends on amail-remote: the server store is the binary's"
        );
    }
    let bin = dependencies(&manifest("Cargo.toml"));
    assert!(bin.iter().any(|x| x == "amail-remote"));
}

/// The modules of amail-core, bottom first; a module may use the ones
/// before it.
const LAYERS: &[&[&str]] = &[
    &["fsio", "safe_text", "utf8_text", "words"],
    &["aof"],
    &["formats"],
    &["source"],
    &["bridge"],
    &["router"],
    &["inbox"],
    &["stores"],
];

/// Edges the stack would allow but the design refuses.
const REFUSED: &[(&str, &str)] = &[
    ("router", "parser"),
    ("router", "bridge"),
    ("router", "source"),
    ("router", "inbox"),
    ("router", "formats"),
    ("bridge", "router"),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments (doc links name modules freely)
/// and without its `#[cfg(test)]` tail (unit tests may use anything).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The core modules (and `parser`) a file's code names.
fn uses(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        // `amail_core::x` in a doc example is not ours; `crate::x` is.
        let before = &code[..i];
        if before.ends_with('_') || before.ends_with(|c: char| c.is_alphanumeric()) {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        out.push(name);
    }
    if code.contains("amail_parser") {
        out.push("parser".into());
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn core_modules_use_only_the_layers_below() {
    let src = root().join("core/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let Some(own) = layer_of(&module) else {
            wrong.push(format!("{}: module {module} is in no layer", rel.display()));
            continue;
        };
        let text = fs::read_to_string(&f).unwrap();
        for used in uses(&code(&text)) {
            if used == module {
                continue;
            }
            if REFUSED.contains(&(module.as_str(), used.as_str())) {
                wrong.push(format!("{}: {module} must not use {used}", rel.display()));
                continue;
            }
            if used == "parser" {
                continue;
            }
            match layer_of(&used) {
                Some(l) if l < own => {}
                Some(_) => wrong.push(format!(
                    "{}: {module} uses {used}, which is not below it",
                    rel.display()
                )),
                None => {}
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

#[test]
fn the_checker_sees_a_use_and_ignores_comments() {
    let c = code("use crate::router::Store; // crate::inbox\n/// [`crate::bridge`]\n");
    assert_eq!(uses(&c), vec!["router".to_string()]);
    assert_eq!(uses("amail_parser::parse(x)"), vec!["parser".to_string()]);
}
