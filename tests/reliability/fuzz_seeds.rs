//! The fuzz corpora inside CI: every committed seed of the amail fuzz
//! targets (`fuzz/seeds/<target>/`) goes through the same checks as its
//! target (`fuzz/fuzz_targets/*.rs`), so a regression on a known input
//! shows in `cargo test` without cargo-fuzz. A crash the fuzzer finds is
//! added to `fuzz/seeds/<target>/` and so becomes a test here.

use std::fs;
use std::path::Path;

use amail_core::aof::detect::{detect, Input};
use amail_core::router::task::Task;
use amail_core::stores::mcp::{db as mcp_db, timestamps};
use rusqlite::types::ValueRef;

fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut out: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds in {}", dir.display());
    out
}

#[test]
fn aof_detect_seeds() {
    for (_, data) in seeds("aof_detect") {
        let text = String::from_utf8_lossy(&data);
        let _ = detect(Input::Text(&text));
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&data) {
            let _ = detect(Input::Object(&v));
        }
    }
}

#[test]
fn task_front_matter_seeds() {
    for (name, data) in seeds("task_front_matter") {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        if let Ok(t) = Task::parse(text) {
            let again = Task::parse(&t.render()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let third = Task::parse(&again.render()).unwrap();
            assert_eq!(
                again.render(),
                third.render(),
                "{name}: render is not stable"
            );
        }
    }
}

#[test]
fn mcp_row_seeds() {
    for (_, data) in seeds("mcp_row") {
        // Every byte string as each SQLite type the decoders see.
        let text = String::from_utf8_lossy(&data);
        let mut n = [0u8; 8];
        n[..data.len().min(8)].copy_from_slice(&data[..data.len().min(8)]);
        for v in [
            ValueRef::Text(text.as_bytes()),
            ValueRef::Blob(&data),
            ValueRef::Integer(i64::from_le_bytes(n)),
            ValueRef::Real(f64::from_le_bytes(n)),
            ValueRef::Null,
        ] {
            let _ = timestamps::decode(v);
            let _ = mcp_db::truthy(v);
        }
    }
}

#[test]
fn protocol_files_seeds() {
    use amail_core::formats::{detect as detect_protocol, parse_files, File};
    for (name, data) in seeds("protocol_files") {
        let text = String::from_utf8_lossy(&data);
        let lines = text.split('\n').count() as u32;
        for path in ["a.json", "repo/.handoffs/a.json"] {
            if let Some((_, parsed)) = detect_protocol(path, &text) {
                for d in &parsed.diags {
                    assert!(d.line >= 1 && d.line <= lines, "{name}: {d}");
                    assert!(d.column >= 1, "{name}: {d}");
                }
            }
        }
        let _ = parse_files(&[File::named("x/.handoffs/b.json".into(), text.to_string())]);
    }
}
