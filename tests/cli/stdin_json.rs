//! JSON piped to `threads -` / `pending -` that is not JSON, or holds no
//! message (found by a new user: `fetch_inbox` output cut short, piped to
//! `amail threads -`, listed a thread `stdin#1` whose message was the
//! broken JSON text itself, and exited 0 without a word; a JSON Lines
//! stream with one broken line lost that line's message silently in
//! `pending -`). `amail parse -` reports both as errors at their line
//! and column; the commands that read stdin as a mailbox now name them
//! the same way, as they name a bad file in a mailbox, and load the rest.

use super::fx::{stderr, stdout, Fx};

#[test]
fn broken_json_on_stdin_is_named_with_its_position_not_listed_as_mail() {
    let fx = Fx::new();
    let cut_short = b"[{\"id\": 1, \"subject\": \"[a] PROGRESS\",\n \"from\": }]";
    for cmd in ["threads", "pending"] {
        let out = fx.run_stdin(&[cmd, "-"], cut_short);
        let err = stderr(&out);
        assert!(err.contains("<stdin>:2:10"), "{cmd}: {err}");
        assert!(!stdout(&out).contains("stdin#"), "{cmd}: {}", stdout(&out));
        assert!(
            !stdout(&out).contains("\"from\""),
            "{cmd}: {}",
            stdout(&out)
        );
    }
    // JSON Lines, the second line broken: the first still loads.
    let lines = b"{\"id\": 7, \"subject\": \"[b] HELP_REQUEST\", \"from\": \"W\", \"to\": [\"boss\"], \"ack_required\": true, \"body_md\": \"Issue Type: STUCK\"}\n{\"id\": 8,\n";
    let out = fx.run_stdin(&["threads", "-", "--json"], lines);
    let err = stderr(&out);
    assert!(err.contains("<stdin>:2:"), "{err}");
    let threads: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&serde_json::Value> = threads
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["message_ids"].as_array().unwrap())
        .collect();
    assert_eq!(ids, [&serde_json::json!("7")], "{threads}");
    // Valid JSON that is no message is named too.
    let out = fx.run_stdin(&["threads", "-"], b"{\"foo\": 1}\n");
    assert!(stderr(&out).contains("<stdin>:1:1"), "{}", stderr(&out));
    assert!(!stdout(&out).contains("stdin#"), "{}", stdout(&out));
}
