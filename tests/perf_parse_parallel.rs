//! `amail parse` reads and renders files on every core (issue 6); its
//! output must stay what a sequential run prints: sorted by path, one JSON
//! document for `--format json`.

use std::process::Command;

use amail::inbox::corpus;
use chrono::TimeZone;

fn amail() -> Command {
    Command::new(env!("CARGO_BIN_EXE_amail"))
}

#[test]
fn parallel_parse_output_is_in_path_order_and_complete() {
    let dir = tempfile::tempdir().unwrap();
    let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let info = corpus::write_corpus(&dir.path().join("mail"), 1_200, now).unwrap();
    let out = amail()
        .args(["parse", "--format", "jsonl"])
        .arg(&info.mailbox)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let sources: Vec<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["source"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(sources.len(), 1_200);
    let mut sorted = sources.clone();
    sorted.sort();
    assert_eq!(sources, sorted);

    let out = amail()
        .args(["parse", "--format", "json"])
        .arg(&info.mailbox)
        .output()
        .unwrap();
    assert!(out.status.success());
    let all: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(all.len(), 1_200);
    assert_eq!(all[0]["source"].as_str().unwrap(), sources[0]);
}
