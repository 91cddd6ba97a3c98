//! The CLI over the neighbouring protocols: `amail parse` and `amail route`
//! detect handoff and A2A files by themselves, `amail threads` warns about
//! agents breaking the single-active-turn rule, `amail demo` writes both.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::support::fs::copy_dir;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn amail(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .current_dir(root())
        .env_remove("HANDOFF_DIR")
        .output()
        .unwrap()
}

/// [`amail`] with `HANDOFF_DIR` set.
fn amail_in(handoff_dir: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .current_dir(root())
        .env("HANDOFF_DIR", handoff_dir)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The thread ids `threads --json` printed, sorted.
fn thread_ids(out: &Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut ids: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["thread_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
fn parse_prints_protocol_objects() {
    let out = amail(&[
        "parse",
        "--format",
        "jsonl",
        "tests/data/handoff/valid/reoffered.json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert!(lines.iter().all(|l| l["protocol"] == "handoff/0.1"));
    assert_eq!(lines[3]["state"], "re-offered");
    assert_eq!(
        lines[3]["source"],
        "tests/data/handoff/valid/reoffered.json:5"
    );

    let out = amail(&["parse", "--format", "json", "tests/data/a2a/valid"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 10);
    assert!(arr.iter().all(|o| o["protocol"] == "a2a"));
    assert!(arr
        .iter()
        .any(|o| o["priority"] == "HIGH" && o["deadline"].is_string()));
    assert!(arr.iter().any(|o| o["progress_percentage"] == 45));
}

#[test]
fn agent_mail_json_is_unchanged() {
    let out = amail(&[
        "parse",
        "--format",
        "jsonl",
        "tests/data/mixed/mail/BlueLake/001-bead-accepted.md",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["type"], "BEAD_ACCEPTED");
    assert!(v.get("protocol").is_none());
}

#[test]
fn parse_reports_located_diagnostics() {
    let out = amail(&[
        "parse",
        "--format",
        "jsonl",
        "tests/data/handoff/invalid/bad-status.json",
    ]);
    assert!(out.status.success());
    assert!(
        text(&out.stderr).contains("tests/data/handoff/invalid/bad-status.json:4:3: schema:"),
        "{}",
        text(&out.stderr)
    );
    let out = amail(&[
        "parse",
        "--strict",
        "tests/data/a2a/invalid/bad-transition.jsonl",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("bad-transition.jsonl:4:1: invalid_transition"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn parse_aof_bridges_protocol_items() {
    let out = amail(&[
        "parse",
        "--format",
        "aof",
        "tests/data/handoff/valid/failed.json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["type"], "completion.report");
    assert_eq!(v["payload"]["outcome"], "blocked");
}

#[test]
fn route_takes_a_mixed_mailbox() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    copy_dir(&root().join("tests/data/mixed/mail"), &mail);
    let store = dir.path().join("store");
    let (m, s) = (mail.to_str().unwrap(), store.to_str().unwrap());
    let out = amail(&["route", m, "--store", s]);
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert!(so.starts_with("routed 17 of 17 messages"), "{so}");
    assert!(se.contains("broken.json:8:3: schema:"), "{se}");
    assert_eq!(out.status.code(), Some(1), "a bad file is bad input");
    // Without the broken file: clean, and idempotent.
    std::fs::remove_file(mail.join(".handoffs/broken.json")).unwrap();
    let out = amail(&["route", m, "--store", s]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("0 transitions, 17 duplicates"),
        "{}",
        text(&out.stdout)
    );
    let out = amail(&["tasks", "--store", s]);
    let t = text(&out.stdout);
    assert!(t.contains("task_lint_9"), "{t}");
    assert!(t.contains("Review the auth module"), "{t}");
}

#[test]
fn threads_warns_about_two_active_beads() {
    let out = amail(&["threads", "tests/data/mixed/mail"]);
    assert!(out.status.success());
    let e = text(&out.stderr);
    assert!(
        e.contains("BlueLake has 2 beads in progress at once (ol-700, ol-701)"),
        "{e}"
    );
    assert!(e.contains("coder has 2 beads in progress at once"), "{e}");
}

#[test]
fn demo_writes_handoffs_and_a2a() {
    let dir = tempfile::tempdir().unwrap();
    let out = amail(&["demo", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mail = dir.path().join("mail");
    assert_eq!(
        std::fs::read_dir(mail.join(".handoffs")).unwrap().count(),
        5
    );
    let inbox = amail_core::stores::load(&mail, &Default::default()).unwrap();
    assert!(inbox.problems.is_empty(), "{:?}", inbox.problems);
    let raw: std::collections::BTreeSet<&str> = inbox
        .messages
        .iter()
        .filter_map(|m| m.message.raw_type.map(|r| r.as_str()))
        .collect();
    for r in ["HANDOFF", "A2A_TASK", "A2A_PROGRESS", "A2A_RESULT"] {
        assert!(raw.contains(r), "{r} missing: {raw:?}");
    }
    let states: std::collections::BTreeSet<&str> = inbox
        .messages
        .iter()
        .filter(|m| m.message.raw_type.is_some_and(|r| r == "HANDOFF"))
        .filter_map(|m| m.message.parsed.status.as_deref())
        .collect();
    for s in [
        "offered",
        "accepted",
        "completed",
        "failed",
        "rejected",
        "re-offered",
    ] {
        assert!(states.contains(s), "{s} missing: {states:?}");
    }
}

#[test]
fn handoff_dir_env_points_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    copy_dir(&root().join("tests/data/mixed/mail"), &mail);
    std::fs::rename(mail.join(".handoffs"), mail.join("shared-ho")).unwrap();
    std::fs::remove_file(mail.join("shared-ho/broken.json")).unwrap();
    // Hidden from the mail walker under its new name too.
    std::fs::rename(mail.join("shared-ho"), mail.join(".shared-ho")).unwrap();
    let m = mail.to_str().unwrap();
    let without = amail(&["threads", m, "--json"]);
    let with = amail_in(".shared-ho", &["threads", m, "--json"]);
    let h = "0f1c2d3e-0000-4000-8000-000000000006".to_string();
    assert!(!thread_ids(&without).contains(&h));
    assert!(thread_ids(&with).contains(&h), "{:?}", thread_ids(&with));
}

/// A `HANDOFF_DIR` the mail walk does not pass over (not hidden) is the
/// mailbox's handoff folder as `.handoffs/` is, for every command: its
/// JSON files are handoffs, each read once (even broken JSON, a
/// diagnostic), and nothing else in it is mail. `parse` printed the broken
/// file as a mail message; `route` and the inbox dropped it without a
/// word; the inbox showed a note left in the folder as a thread and a copy
/// in a sub-folder as a second snapshot; `route` routed that copy.
#[test]
fn a_visible_handoff_dir_is_read_once_and_alike_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    let ho = with_visible_handoffs(&mail);
    std::fs::write(ho.join("notes.md"), "Subject: scratch notes\n\nNot mail.\n").unwrap();
    std::fs::create_dir(ho.join("old")).unwrap();
    std::fs::copy(ho.join("offered.json"), ho.join("old/offered.json")).unwrap();
    let m = mail.to_str().unwrap();
    let run = |args: &[&str]| amail_in("handoffs", args);

    // parse: each handoff item once, from the folder's own JSON files.
    let parsed = run(&["parse", "--format", "jsonl", m]);
    let stdout = text(&parsed.stdout);
    let stderr = text(&parsed.stderr);
    let sources: Vec<String> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["source"].to_string())
        .collect();
    let from = |name: &str| sources.iter().filter(|s| s.contains(name)).count();
    assert_eq!(from("handoffs/offered.json"), 1, "{stdout}");
    assert_eq!(from("handoffs/old/"), 0, "{stdout}");
    assert_eq!(from("notes.md"), 0, "{stdout}");
    assert_eq!(
        from("garbled.json"),
        0,
        "parse read a broken handoff as mail: {stdout}"
    );
    assert!(
        stderr.contains("garbled.json"),
        "parse said nothing of it: {stderr}"
    );

    // route: what `parse --format aof` prints, the broken file not routed.
    let aof = run(&["parse", "--format", "aof", m]);
    let envelopes = text(&aof.stdout).lines().count();
    let store = dir.path().join("store");
    let routed = run(&["route", m, "--store", store.to_str().unwrap()]);
    let summary = text(&routed.stdout);
    let said = text(&routed.stderr);
    assert!(
        summary.starts_with(&format!("routed {envelopes} of ")),
        "parse --format aof printed {envelopes}; route: {summary}{said}"
    );
    assert!(
        said.contains("garbled.json"),
        "route said nothing of it: {said}"
    );

    // The inbox: the same items, each once; the note is no thread.
    let threads = run(&["threads", m, "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&threads.stdout).unwrap();
    let ids: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["message_ids"].as_array().unwrap().clone())
        .map(|i| i.as_str().unwrap().to_string())
        .collect();
    let offered = "handoff:0f1c2d3e-0000-4000-8000-000000000001@";
    assert_eq!(
        ids.iter().filter(|i| i.starts_with(offered)).count(),
        1,
        "{ids:?}"
    );
    let subjects = listed.to_string();
    assert!(!subjects.contains("scratch notes"), "{subjects}");
    let warned = text(&threads.stderr);
    assert!(
        warned.contains("garbled.json"),
        "threads said nothing of it: {warned}"
    );
}

/// The mixed mailbox copied to `mail`, its handoffs in a visible
/// `handoffs` folder (`HANDOFF_DIR=handoffs`) beside a broken
/// `garbled.json`; returns that folder.
fn with_visible_handoffs(mail: &std::path::Path) -> PathBuf {
    copy_dir(&root().join("tests/data/mixed/mail"), mail);
    let ho = mail.join("handoffs");
    std::fs::rename(mail.join(".handoffs"), &ho).unwrap();
    std::fs::write(ho.join("garbled.json"), "{ not json").unwrap();
    ho
}

/// The handoff files of the second of two named mailboxes, behind more
/// inputs than one worker's share, are read as handoffs: the walk says
/// which files they are, and `parse` keeps that by their place among
/// the inputs, in order and in parallel alike.
#[test]
fn the_handoffs_of_every_named_mailbox_are_known_wherever_they_fall() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    with_visible_handoffs(&first);
    let many = first.join("BlueLake/many");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..40 {
        std::fs::write(
            many.join(format!("{i:02}.md")),
            format!("Subject: [ol-{i}] PROGRESS\n\n## Status\nworking\n"),
        )
        .unwrap();
    }
    let second = dir.path().join("second");
    with_visible_handoffs(&second);
    let lone = dir.path().join("lone.md");
    std::fs::write(&lone, "Subject: [ol-9] PROGRESS\n\n## Status\nok\n").unwrap();
    let [lone, first, second] = [&lone, &first, &second].map(|p| p.to_str().unwrap());
    let parsed = amail_in(
        "handoffs",
        &["parse", "--format", "jsonl", lone, first, second],
    );
    let stdout = text(&parsed.stdout);
    let stderr = text(&parsed.stderr);
    let garbled_as_mail: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("garbled.json"))
        .collect();
    assert!(
        garbled_as_mail.is_empty(),
        "read as mail: {garbled_as_mail:?}"
    );
    for mail in [first, second] {
        assert!(
            stderr.contains(&format!("{mail}/handoffs/garbled.json")),
            "nothing said of {mail}'s broken handoff: {stderr}"
        );
        let offered = stdout
            .lines()
            .filter(|l| l.contains(&format!("{mail}/handoffs/offered.json")))
            .count();
        assert_eq!(offered, 1, "{stdout}");
    }
}

/// A folder above a mailbox named as the source (`amail parse DIR` after
/// `amail demo DIR`, whose mailbox is `DIR/mail`): the walk passes over
/// hidden folders, so the mailbox's `.handoffs/` was never read and every
/// command lost its handoffs (the demo's folder: `parse` 27 records where
/// `DIR/mail` gives 35, `threads` 9 threads of 14). A mailbox's handoff
/// folder below the named one is read as the named one's is, by `parse`,
/// `route` and the inbox alike; each file once, also when `HANDOFF_DIR`
/// names it too.
#[test]
fn a_mailbox_s_handoffs_are_read_from_a_folder_above_it() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().join("team");
    let mail = top.join("mail");
    copy_dir(&root().join("tests/data/mixed/mail"), &mail);
    // A second mailbox that holds handoffs and no mail at all.
    let solo_box = top.join("solo");
    let solo = solo_box.join(".handoffs");
    std::fs::create_dir_all(&solo).unwrap();
    let offered = std::fs::read_to_string(mail.join(".handoffs/offered.json")).unwrap();
    let task = "0f1c2d3e-0000-4000-8000-0000000000aa";
    std::fs::write(
        solo.join("solo.json"),
        offered.replace("0f1c2d3e-0000-4000-8000-000000000001", task),
    )
    .unwrap();
    let [top, mail, solo_box] = [&top, &mail, &solo_box].map(|p| p.to_str().unwrap());

    // parse: the same handoff records from above as from each mailbox,
    // and the broken one's diagnostic.
    let handoffs = |run: &dyn Fn(&[&str]) -> Output, source: &str| -> Vec<String> {
        let out = run(&["parse", "--format", "jsonl", source]);
        let mut sources: Vec<String> = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["protocol"] == "handoff/0.1")
            .map(|v| v["source"].as_str().unwrap().to_string())
            .collect();
        sources.sort();
        sources
    };
    let plain = |args: &[&str]| amail(args);
    let mut below = handoffs(&plain, mail);
    below.extend(handoffs(&plain, solo_box));
    below.sort();
    assert!(below.len() > 4, "{below:?}");
    assert_eq!(handoffs(&plain, top), below);
    let said = text(&amail(&["parse", "--format", "jsonl", top]).stderr);
    assert!(said.contains("broken.json"), "{said}");
    // `HANDOFF_DIR` naming the mailbox's folder from above: read once.
    let named = |args: &[&str]| amail_in("mail/.handoffs", args);
    assert_eq!(handoffs(&named, top), below);

    // route: what `parse --format aof` prints from above, the mailboxes'
    // records together.
    let envelopes = |source: &str| {
        let out = amail(&["parse", "--format", "aof", source]);
        text(&out.stdout).lines().count()
    };
    let all = envelopes(top);
    assert_eq!(all, envelopes(mail) + envelopes(solo_box));
    let store = dir.path().join("store");
    let routed = amail(&["route", top, "--store", store.to_str().unwrap()]);
    let summary = text(&routed.stdout);
    assert!(
        summary.starts_with(&format!("routed {all} of ")),
        "{summary}{}",
        text(&routed.stderr)
    );

    // The inbox: the threads of both mailboxes, each once.
    let threads = |source: &str| thread_ids(&amail(&["threads", source, "--json"]));
    let mut both = threads(mail);
    both.extend(threads(solo_box));
    both.sort();
    assert!(both.contains(&task.to_string()), "{both:?}");
    assert_eq!(threads(top), both);
}
