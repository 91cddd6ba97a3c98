//! `amail parse` reads and renders files on every core (issue 6); its
//! output must stay what a sequential run prints: sorted by path, one JSON
//! document for `--format json`.

use std::process::Command;

use amail::demo::corpus;
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

/// Many files go through the worker pipeline (chunks rendered on every
/// core); a few are rendered inline. Both must print the same bytes, with
/// the same failures in the same places.
#[test]
fn pipeline_output_is_byte_identical_to_inline_runs() {
    let dir = tempfile::tempdir().unwrap();
    let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let mailbox = dir.path().join("mail");
    corpus::write_corpus(&mailbox, 150, now).unwrap();
    // A file over the size limit in the middle: listed on stderr in its
    // place, the run goes on, exit 1.
    let mut files = crate::support::walk::files_under(&mailbox);
    std::fs::write(&files[70], "Subject: DONE\n\nBody:\n".repeat(2000)).unwrap();
    files = crate::support::walk::files_under(&mailbox);
    for format in ["jsonl", "text"] {
        let whole = amail()
            .args(["parse", "--max-size", "20KiB", "--format", format])
            .arg(&mailbox)
            .output()
            .unwrap();
        assert_eq!(whole.status.code(), Some(1));
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        let mut unreadable = 0;
        for part in files.chunks(20) {
            let out = amail()
                .args(["parse", "--max-size", "20KiB", "--format", format])
                .args(part)
                .output()
                .unwrap();
            stdout.extend_from_slice(&out.stdout);
            let err = String::from_utf8(out.stderr).unwrap();
            // Over the limit: `PATH: N bytes, over the message size limit`.
            for line in err
                .lines()
                .filter(|l| l.contains("over the message size limit"))
            {
                stderr.push(line.to_string());
                unreadable += 1;
            }
        }
        assert_eq!(unreadable, 1);
        assert!(
            whole.stdout == stdout,
            "{format}: pipeline and inline output differ"
        );
        let whole_err = String::from_utf8(whole.stderr).unwrap();
        assert_eq!(
            whole_err
                .lines()
                .filter(|l| l.contains("over the message size limit"))
                .collect::<Vec<_>>(),
            stderr
        );
        assert!(
            whole_err.contains("1 file could not be read"),
            "{whole_err}"
        );
    }
    // Strict mode stops at the first malformed file: everything before it
    // printed, nothing after.
    let strict_dir = dir.path().join("strict");
    std::fs::create_dir(&strict_dir).unwrap();
    for i in 0..120 {
        let text = if i == 90 {
            "no subject, no type\n".to_string()
        } else {
            format!("Subject: [b-{i}] PROGRESS\nFrom: A\nTo: B\n\nBody:\nBead: b-{i}\nStatus: step {i}\n")
        };
        std::fs::write(strict_dir.join(format!("{i:03}.md")), text).unwrap();
    }
    let files = crate::support::walk::files_under(&strict_dir);
    let strict = amail()
        .args(["parse", "--strict", "--format", "jsonl"])
        .arg(&strict_dir)
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(1));
    let before = strict_inline(&files[..90]);
    assert_eq!(String::from_utf8_lossy(&before).lines().count(), 90);
    assert!(strict.stdout == before);
    let err = String::from_utf8(strict.stderr).unwrap();
    assert!(
        err.contains(&format!("{}:1:1", files[90].display())),
        "{err}"
    );
}

/// `amail parse --strict --format jsonl` of `files`, which must all be
/// valid, run inline (at most 30 inputs a run).
fn strict_inline(files: &[std::path::PathBuf]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in files.chunks(30) {
        let o = amail()
            .args(["parse", "--strict", "--format", "jsonl"])
            .args(part)
            .output()
            .unwrap();
        assert!(o.status.success());
        out.extend_from_slice(&o.stdout);
    }
    out
}
