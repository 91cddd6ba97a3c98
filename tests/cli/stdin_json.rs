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

/// `amail threads - < somedir` printed the system's "Is a directory (os
/// error 21)" (a shell opens a folder for `<` without complaint), `parse`
/// "cannot read: is a directory" and a count of unreadable files, `route`
/// "-: is a directory (check the path and its permissions)". Every command
/// that reads stdin now says in one line that it is a directory and to
/// name the folder instead, and exits 1; `reply --body -` says where its
/// body comes from instead.
#[test]
fn a_directory_on_stdin_is_named_as_such_with_what_to_do() {
    let fx = Fx::new();
    let folder = fx.path("mail");
    std::fs::create_dir(&folder).unwrap();
    let store = fx.store();
    for args in [
        &["threads", "-"][..],
        &["pending", "-"][..],
        &["parse", "-"][..],
        &["parse"][..],
        &["parse", "--format", "aof", "-"][..],
        &["route", "-", "--store", &store][..],
        &["route", "--store", &store][..],
    ] {
        let out = fx.run_stdin_from(args, &folder);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("standard input is a directory") && err.contains("as an argument"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("os error"), "{args:?}: {err}");
    }
    let mailbox = fx.path("box");
    crate::fx::message_5(&mailbox);
    let m = mailbox.display().to_string();
    let out = fx.run_stdin_from(&["reply", "5", &m, "--as", "boss", "--body", "-"], &folder);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("standard input is a directory") && err.contains("--body"),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
}
