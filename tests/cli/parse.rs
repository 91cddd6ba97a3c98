//! `amail parse` as a user runs it: files, directories, stdin, formats,
//! strict errors and exit codes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn amail() -> Command {
    Command::new(env!("CARGO_BIN_EXE_amail"))
}

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp-agent-mail-0.1.0")
}

fn run_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = amail()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn amail");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn jsonl(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

#[test]
fn fixture_archive_yields_each_canonical_message_once() {
    let out = amail()
        .args(["parse", "--format", "jsonl"])
        .arg(fixture_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let msgs = jsonl(&out);
    // 11 messages in the archive; the inbox/outbox copies and thread
    // digests must not be counted again.
    let mut ids: Vec<i64> = msgs
        .iter()
        .map(|m| m["id"].as_str().unwrap().parse().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, (1..=11).collect::<Vec<_>>());
    let help = msgs.iter().find(|m| m["id"] == "5").unwrap();
    assert_eq!(help["type"], "HELP_REQUEST");
    assert_eq!(help["parsed"]["issue_type"], "SPEC_UNCLEAR");
    assert!(help["source"]
        .as_str()
        .unwrap()
        .ends_with("help_request__5.md:1"));
    let reply = msgs.iter().find(|m| m["id"] == "7").unwrap();
    assert_eq!(reply["type"], "HELP_RESPONSE");
    assert_eq!(reply["is_reply"], true);
}

#[test]
fn json_keys_are_exactly_the_design_contract() {
    let out = run_with_stdin(
        &["parse", "--format", "json"],
        "Subject: [ol-1] PROGRESS\n\nBody:\nBead: ol-1\nContext usage: 45%\n",
    );
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v[0];
    let mut keys: Vec<&str> = m.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    let mut want = vec![
        "source",
        "id",
        "type",
        "raw_type",
        "is_reply",
        "subject",
        "from",
        "to",
        "cc",
        "thread_id",
        "timestamp",
        "ack_required",
        "importance",
        "body",
        "parsed",
        "diagnostics",
    ];
    want.sort();
    assert_eq!(keys, want);
    let mut parsed: Vec<&str> = m["parsed"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    parsed.sort();
    let mut want_parsed = vec![
        "bead_id",
        "title",
        "started_at",
        "status",
        "step",
        "context_usage",
        "files_touched",
        "issue_type",
        "problem",
        "what_tried",
        "question",
        "guidance",
        "commit_sha",
        "files",
        "tests_pass",
        "lint_pass",
        "build_pass",
        "summary",
        "failure_type",
        "reason",
        "internal_attempts",
        "recommendation",
        "checkpoint_reason",
        "partial_commit_sha",
        "progress",
        "next_steps",
        "issue_id",
        "resume",
        "orchestrator",
        "session",
    ];
    want_parsed.sort();
    assert_eq!(parsed, want_parsed);
    assert_eq!(m["source"], "<stdin>:1");
    assert_eq!(m["parsed"]["tests_pass"], serde_json::Value::Null);
    assert_eq!(m["parsed"]["context_usage"], 45);
}

#[test]
fn piped_output_defaults_to_json_lines() {
    let out = run_with_stdin(&["parse"], "[{\"subject\":\"DONE\",\"body_md\":\"Bead: a-1\"},{\"subject\":\"PROGRESS\",\"body_md\":\"Bead: a-1\"}]");
    assert!(out.status.success());
    let msgs = jsonl(&out);
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[1]["type"], "PROGRESS");
}

#[test]
fn strict_failure_names_file_line_and_column_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.md");
    std::fs::write(
        &path,
        "Subject: [ol-9] HELP_REQUEST\n\nBody:\nBead: ol-9\nIssue Type: CONFUSED\n\n## Question\nWhat now?\n",
    )
    .unwrap();
    let out = parse_strict(&path);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let want = format!("{}:5:13: error[bad-enum]", path.display());
    assert!(err.contains(&want), "stderr was: {err}");
    assert!(err.contains("help:"), "a fix hint is shown: {err}");
    // Lenient mode reads the same file and reports it as a diagnostic.
    let out = amail()
        .args(["parse", "--format", "jsonl"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let m = &jsonl(&out)[0];
    assert_eq!(m["diagnostics"][0]["code"], "bad-enum");
    assert_eq!(m["diagnostics"][0]["line"], 5);
    assert_eq!(m["parsed"]["issue_type"], "CONFUSED");
}

#[test]
fn missing_path_is_exit_1_and_bad_flag_is_exit_2() {
    let out = amail().args(["parse", "/no/such/mail"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/mail"));
    let out = amail().args(["parse", "--format", "xml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn text_format_shows_type_bead_and_sanitised_subject() {
    let out = run_with_stdin(
        &["parse", "--format", "text"],
        "Subject: [ol-1] FAILED \u{1b}]0;pwned\u{7}\n\nBody:\nBead: ol-1\n\n## Failure\nType: TESTS_FAIL\nReason: flaky\n",
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("FAILED"));
    assert!(text.contains("bead ol-1"));
    assert!(
        !text.contains('\u{1b}'),
        "escape sequences never reach the terminal"
    );
}

#[test]
fn aof_format_prints_one_envelope_per_routable_message() {
    let out = amail()
        .args(["parse", "--format", "aof"])
        .arg(fixture_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let envs = jsonl(&out);
    // 11 messages: the unknown-type status note maps to no event.
    assert_eq!(envs.len(), 10);
    for e in &envs {
        assert_eq!(e["protocol"], "aof");
        assert_eq!(e["version"], 1);
        assert!(e["taskId"].as_str().unwrap().starts_with("TASK-"));
    }
    let completions = envs
        .iter()
        .filter(|e| e["type"] == "completion.report")
        .count();
    assert_eq!(completions, 2, "two OFFERING_READY messages");
    let help = envs
        .iter()
        .find(|e| e["type"] == "status.update" && e["payload"]["blockers"].is_array())
        .expect("the help request becomes a status update with blockers");
    assert!(help["payload"]["blockers"][0]
        .as_str()
        .unwrap()
        .starts_with("SPEC_UNCLEAR:"));
}

#[test]
fn a_big_file_prints_the_same_bytes_mapped_as_read_from_stdin() {
    // Over 1 MiB: mapped, and escaped on a second thread while it is
    // parsed (where there are two cores); stdin is read and escaped on
    // one. Escapes of every length, and a section that is a slice of
    // the body.
    let mut doc = String::from(
        "Subject: [b-1] OFFERING_READY\nBody:\nBead: b-1\nStatus: DONE\n\n## Summary\n",
    );
    let mut i = 0;
    while doc.len() < 3 << 20 {
        doc.push_str(&format!("line {i}: \"q\"\t\\ é\u{1}\u{1f} 😀\n"));
        i += 1;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.md");
    std::fs::write(&path, &doc).unwrap();
    let path = path.to_str().unwrap();
    let args = ["parse", "--max-size", "64MiB", "--format", "jsonl"];
    let file = amail().args(args).arg(path).output().unwrap();
    let stdin = run_with_stdin(&[&args[..], &["-"]].concat(), &doc);
    assert!(file.status.success() && stdin.status.success());
    let (file_out, stdin_out) = (
        String::from_utf8(file.stdout.clone()).unwrap(),
        String::from_utf8(stdin.stdout.clone()).unwrap(),
    );
    let source = |s: &str| format!("{{\"source\":{}", serde_json::to_string(s).unwrap());
    let file_out = file_out.replacen(&source(&format!("{path}:1")), &source("<stdin>:1"), 1);
    assert!(file_out == stdin_out, "the mapped file's output differs");
    let v = &jsonl(&file)[0];
    let body = v["body"].as_str().unwrap();
    let summary = v["parsed"]["summary"].as_str().unwrap();
    assert!(doc.ends_with(&format!("{body}\n")) && body.starts_with("Bead: b-1"));
    assert!(summary.starts_with("line 0: \"q\"") && body.ends_with(summary));
}

/// `amail parse --strict` of a pretty-printed JSON array whose third
/// message is malformed said `FILE:1:1`, the array's `[`: serde_json's
/// values keep no positions, so every message of a JSON document was at
/// its first line (and `source` said `FILE:1` for each). The error now
/// names the offending value where it is written, inside the body's
/// string on its line, and each message's `source` is the line of its
/// `{`; JSON Lines the same on the message's own line.
#[test]
fn a_strict_error_in_a_json_array_names_the_line_and_column_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let message = |n: u32, issue: &str| {
        format!(
            "  {{\n    \"id\": {n},\n    \"subject\": \"[ol-9] HELP_REQUEST\",\n    \"from\": \"A\",\n    \"to\": [\"B\"],\n    \"body_md\": \"Bead: ol-9\\nIssue Type: {issue}\\n\\n## Question\\nWhat now?\\n\"\n  }}"
        )
    };
    let pretty = format!(
        "[\n{},\n{},\n{}\n]\n",
        message(1, "STUCK"),
        message(2, "STUCK"),
        message(3, "CONFUSED")
    );
    let lines: String = [
        message(1, "STUCK"),
        message(2, "STUCK"),
        message(3, "CONFUSED"),
    ]
    .iter()
    .map(|m| m.split_whitespace().collect::<Vec<_>>().join(" ") + "\n")
    .collect();
    for (name, text) in [("pretty.json", pretty), ("lines.jsonl", lines)] {
        let path = dir.path().join(name);
        std::fs::write(&path, &text).unwrap();
        // Where `CONFUSED` is written: line and column, from 1.
        let (line, col) = text
            .lines()
            .enumerate()
            .find_map(|(i, l)| {
                l.find("CONFUSED")
                    .map(|c| (i + 1, l[..c].chars().count() + 1))
            })
            .unwrap();
        let out = parse_strict(&path);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        let want = format!("{}:{line}:{col}: error[bad-enum]", path.display());
        assert!(
            err.contains(&want),
            "{name}: want {want}, stderr was: {err}"
        );
        // Each message's source is the line its object opens on.
        let out = amail()
            .args(["parse", "--format", "jsonl"])
            .arg(&path)
            .output()
            .unwrap();
        let opens: Vec<String> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with('{'))
            .map(|(i, _)| format!("{}:{}", path.display(), i + 1))
            .collect();
        let sources: Vec<String> = jsonl(&out)
            .iter()
            .map(|m| m["source"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(sources, opens, "{name}");
    }
}

/// `amail parse --strict --format jsonl PATH`.
fn parse_strict(path: &Path) -> Output {
    amail()
        .args(["parse", "--strict", "--format", "jsonl"])
        .arg(path)
        .output()
        .unwrap()
}
