//! Regression tests for issue 12's defects (items 2, 3, 5, 6, 7, 8, 9,
//! 10, 11 and 13), each written before its fix and failing without it.
//!
//! - 2: a SOURCE the user named and mistyped is an error before anything
//!   is written; nothing falls back to the default mailbox.
//!
//! - 3: commands that only read (`tasks`, `events`, `sweep`, `doctor`)
//!   never create a store; `route` says when it creates one.
//! - 5: a completion report for a task that is not in progress is not
//!   dropped, and one that cannot apply is not counted as routed; the
//!   README's mapping table names the status each completion ends in.
//! - 6: no `summary_file_not_found` for reports the router wrote itself.
//! - 7: task titles are the best known, never a raw subject.
//! - 8: binary files are skipped with a warning by every command.
//! - 9: empty input is zero messages; a terminal on stdin gets a hint.
//! - 10: piped `fetch_inbox` output shows its pending acks.
//! - 11: exit codes as the README says (1 bad input, 2 usage).
//! - 13: `inbox --demo` reuses one folder and prints where it is.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use super::fx::{accepted, mail, stderr, stdout, tree, Fx};

// ---------------------------------------------------------------- item 3

#[test]
fn reading_commands_never_create_a_store() {
    let fx = Fx::new();
    let typo = fx.path("typo");
    let t = typo.to_str().unwrap();
    for args in [
        vec!["tasks", "--store", t],
        vec!["tasks", "--store", t, "--json"],
        vec!["events", "--store", t],
        vec!["sweep", "--store", t],
        vec!["doctor", "--store", t, "--check"],
        vec!["doctor", "--store", t],
    ] {
        let out = fx.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(t) && err.contains("amail route"),
            "{args:?} must name the path and say what to do: {err}"
        );
        assert!(!typo.exists(), "{args:?} created {t}");
    }
    // A directory that exists but holds no store is not made into one.
    fs::create_dir_all(&typo).unwrap();
    for args in [
        vec!["tasks", "--store", t],
        vec!["events", "--store", t],
        vec!["sweep", "--store", t],
        vec!["doctor", "--store", t, "--check"],
    ] {
        let out = fx.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(tree(&typo).is_empty(), "{args:?} wrote {:?}", tree(&typo));
    }
    // The default store too.
    let out = fx.run(&["tasks"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!fx.path("store").exists());
}

#[test]
fn route_says_when_it_creates_a_store_and_readers_then_work() {
    let fx = Fx::new();
    let m = fx.path("mail");
    accepted(&m, 1, "w", 1, "bd-1", "One");
    let out = fx.route(&m);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("created") && l.contains(&fx.store()))
            .count(),
        1,
        "one line says the store was created: {err}"
    );
    // Routing again into the store it made says nothing of the kind.
    mail(
        &m,
        "2.md",
        "2",
        "w",
        2,
        "[bd-1] PROGRESS",
        "Bead: bd-1\nStatus: going",
    );
    let out = fx.route(&m);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("created"), "{}", stderr(&out));
    for args in [
        vec!["tasks", "--store", &fx.store()],
        vec!["events", "--store", &fx.store()],
        vec!["sweep", "--store", &fx.store()],
        vec!["doctor", "--store", &fx.store(), "--check"],
    ] {
        let out = fx.run(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
}

/// A store the real AOF wrote has its task directories but none of
/// amail's own state: reading it adds nothing.
#[test]
fn reading_an_existing_store_adds_nothing_to_it() {
    let fx = Fx::new();
    let store = fx.path("store");
    fs::create_dir_all(store.join("tasks/ready")).unwrap();
    fs::write(
        store.join("tasks/ready/TASK-2026-11-22-001.md"),
        "---\nschemaVersion: 1\nid: TASK-2026-11-22-001\ntitle: From AOF\nstatus: ready\npriority: normal\nrouting:\n  tags: []\ncreatedAt: 2026-11-22T00:00:00.000Z\nupdatedAt: 2026-11-22T00:00:00.000Z\nlastTransitionAt: 2026-11-22T00:00:00.000Z\ncreatedBy: main\ndependsOn: []\nmetadata: {}\n---\n\nDo it.\n",
    )
    .unwrap();
    let before = tree(&store);
    let out = fx.run(&["tasks", "--store", &fx.store()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("From AOF"), "{}", stdout(&out));
    let out = fx.run(&["events", "--store", &fx.store()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(tree(&store), before);
}

/// The TUI's real backend reads the board without making a store.
#[test]
fn the_inbox_backend_reads_the_board_without_creating_a_store() {
    use amail_tui::Backend;
    let fx = Fx::new();
    let m = fx.path("mail");
    mail(
        &m,
        "1.md",
        "1",
        "w",
        1,
        "[bd-1] PROGRESS",
        "Bead: bd-1\nStatus: going",
    );
    let store = fx.path("store");
    fs::create_dir_all(&store).unwrap();
    let mut backend = amail::backend::RealBackend::new(
        m,
        amail_core::stores::LoadOptions::default(),
        store.clone(),
        false,
    );
    assert_eq!(backend.tasks().unwrap(), Default::default());
    assert!(tree(&store).is_empty(), "{:?}", tree(&store));
}

// ---------------------------------------------------------------- item 5

const OFFER: &str = "Bead: bd-9\nStatus: DONE\n\n## Changes\n- Commit: abc\n- Files: a.rs\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: PASS\n\n## Summary\nDid it.";

#[test]
fn a_completion_for_a_task_not_in_progress_takes_it_through_in_progress() {
    let fx = Fx::new();
    let m = fx.path("mail");
    mail(&m, "1.md", "1", "w", 1, "[bd-9] OFFERING_READY", OFFER);
    let out = fx.route(&m);
    assert!(out.status.success(), "{}", stderr(&out));
    let t = fx.task_of("bd-9");
    assert_eq!(t["status"], "review", "{t}");
    let moves: Vec<(String, String)> = fx
        .events()
        .iter()
        .filter(|e| e["type"] == "task.transitioned")
        .map(|e| {
            (
                e["payload"]["from"].as_str().unwrap().to_string(),
                e["payload"]["to"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        moves,
        [
            ("ready".to_string(), "in-progress".to_string()),
            ("in-progress".to_string(), "review".to_string())
        ]
    );
    assert!(
        stdout(&out).contains("routed 1 of 1 message into")
            && stdout(&out).contains("1 task created, 2 transitions")
            && stdout(&out).contains("0 rejected"),
        "{}",
        stdout(&out)
    );
    // One task is one task, as the router's line says it.
    let doc = fx.run(&["doctor", "--store", fx.path("store").to_str().unwrap()]);
    assert!(
        stdout(&doc).contains("is consistent (1 task)"),
        "{}",
        stdout(&doc)
    );
    // The worker who reported it holds the run that ended.
    let run: Value = serde_json::from_str(
        &fs::read_to_string(
            fx.path("store")
                .join("state/runs")
                .join(t["task_id"].as_str().unwrap())
                .join("run.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(run["agentId"], "w");
    assert_eq!(run["status"], "completed");
}

#[test]
fn a_completion_that_cannot_apply_is_rejected_not_counted_as_routed() {
    let fx = Fx::new();
    let m = fx.path("mail");
    mail(&m, "1.md", "1", "w", 1, "[bd-9] OFFERING_READY", OFFER);
    assert!(fx.route(&m).status.success());
    let id = fx.task_of("bd-9")["task_id"].as_str().unwrap().to_string();
    // The reviewer closes it (an AOF/1 status update: review -> done) ...
    let env = fx.path("close.aof");
    fs::write(
        &env,
        format!(
            r#"AOF/1 {{"protocol":"aof","version":1,"type":"status.update","taskId":"{id}","fromAgent":"lead","toAgent":"w","sentAt":"2026-11-22T02:00:00Z","payload":{{"taskId":"{id}","agentId":"lead","status":"done"}}}}"#
        ) + "\n",
    )
    .unwrap();
    assert!(fx.route(&env).status.success());
    assert_eq!(fx.task_of("bd-9")["status"], "done");
    // ... and a late checkpoint cannot move a finished task anywhere.
    let late = fx.path("late");
    mail(
        &late,
        "2.md",
        "2",
        "w",
        30,
        "[bd-9] CHECKPOINT",
        "Bead: bd-9\nReason: CONTEXT_HIGH\n\n## Progress\n- Description: half",
    );
    let out = fx.route(&late);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("routed 0 of 1") && stdout(&out).contains("1 rejected"),
        "{}",
        stdout(&out)
    );
    assert!(stderr(&out).contains("rejected"), "{}", stderr(&out));
    assert_eq!(fx.task_of("bd-9")["status"], "done");
    let completed = fx
        .events()
        .iter()
        .filter(|e| e["type"] == "task.completed")
        .count();
    assert_eq!(completed, 1, "the refused report logged task.completed");
}

/// The README's mapping table says where each completion leaves the task,
/// and that is where the router leaves it.
#[test]
fn the_readme_names_the_status_each_completion_ends_in() {
    let fx = Fx::new();
    let m = fx.path("mail");
    let cases = [
        ("OFFERING_READY", OFFER.to_string()),
        ("DONE", OFFER.to_string()),
        (
            "FAILED",
            "Bead: bd-9\nStatus: FAILED\n\n## Failure\nType: TESTS_FAIL\nReason: flaky".into(),
        ),
        (
            "CHECKPOINT",
            "Bead: bd-9\nReason: CONTEXT_HIGH\n\n## Progress\n- Description: half".into(),
        ),
    ];
    let readme =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let router_doc =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/router.md")).unwrap();
    for (i, (kind, body)) in cases.iter().enumerate() {
        let bead = format!("bd-{i}");
        let body = body.replace("bd-9", &bead);
        mail(
            &m,
            &format!("{i}-a.md"),
            &format!("{i}a"),
            "w",
            2 * i as u32,
            &format!("[{bead}] BEAD_ACCEPTED"),
            &format!("Accepted bead: {bead}\nTitle: T{i}"),
        );
        mail(
            &m,
            &format!("{i}-b.md"),
            &format!("{i}b"),
            "w",
            2 * i as u32 + 1,
            &format!("[{bead}] {kind}"),
            &body,
        );
    }
    let out = fx.route(&m);
    assert!(out.status.success(), "{}", stderr(&out));
    for (i, (kind, _)) in cases.iter().enumerate() {
        let status = fx.task_of(&format!("bd-{i}"))["status"]
            .as_str()
            .unwrap()
            .to_string();
        for (doc, text) in [("README.md", &readme), ("docs/router.md", &router_doc)] {
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| {kind} |")))
                .unwrap_or_else(|| panic!("{doc} has no row for {kind}"));
            let last = row.trim_end_matches('|').rsplit('|').next().unwrap();
            let named = last.split('`').nth(1).unwrap_or("");
            assert_eq!(
                named, status,
                "{doc}: {kind} ends in `{status}`, the table says: {row}"
            );
        }
    }
}

// ---------------------------------------------------------------- item 6

#[test]
fn no_missing_summary_warning_for_reports_the_router_routed() {
    let fx = Fx::new();
    let m = fx.path("mail");
    accepted(&m, 1, "w", 1, "bd-1", "One");
    mail(&m, "2.md", "2", "w", 2, "[bd-1] FAILED", "Bead: bd-1\nStatus: FAILED\n\n## Failure\nType: TESTS_FAIL\nReason: flaky\n\n## Recommendation\nRetry.");
    accepted(&m, 3, "v", 3, "bd-2", "Two");
    mail(&m, "4.md", "4", "v", 4, "[bd-2] CHECKPOINT", "Bead: bd-2\nReason: CONTEXT_HIGH\n\n## Progress\n- Description: half\n\n## Next Steps for Successor\n1. Finish");
    mail(
        &m,
        "5.md",
        "5",
        "u",
        5,
        "[bd-3] OFFERING_READY",
        "Bead: bd-3\nStatus: DONE",
    );
    mail(
        &m,
        "6.md",
        "6",
        "t",
        6,
        "[bd-4] OFFERING_READY",
        &OFFER.replace("bd-9", "bd-4"),
    );
    let out = fx.route(&m);
    assert!(out.status.success(), "{}", stderr(&out));
    let warnings: Vec<Value> = fx
        .events()
        .into_iter()
        .filter(|e| e["type"] == "protocol.message.warning")
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
    // A report with no summary points at none; one with a summary points
    // at the file the router wrote.
    for (bead, has_summary) in [
        ("bd-1", false),
        ("bd-2", false),
        ("bd-3", false),
        ("bd-4", true),
    ] {
        let id = fx.task_of(bead)["task_id"].as_str().unwrap().to_string();
        let rr: Value = serde_json::from_str(
            &fs::read_to_string(
                fx.path("store")
                    .join(format!("state/runs/{id}/run_result.json")),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            rr["summaryRef"] == "outputs/summary.md",
            has_summary,
            "{bead}: {rr}"
        );
    }
}

#[test]
fn a_bridged_report_names_a_summary_file_only_when_it_has_a_summary() {
    let opts = amail_parser::ParseOptions::default();
    let failed = amail_parser::parse(
        "Subject: [bd-1] FAILED\nFrom: w\nDate: 2026-11-22T01:00:00Z\n\nBody:\nBead: bd-1\nStatus: FAILED\nType: TESTS_FAIL\nReason: flaky\n",
        &opts,
    )
    .unwrap();
    let env = amail_core::bridge::to_envelope_standalone(&failed[0]).unwrap();
    assert!(
        env.to_json_line().contains(r#""summaryRef":"""#),
        "{}",
        env.to_json_line()
    );
    let text = format!(
        "Subject: [bd-9] OFFERING_READY\nFrom: w\nDate: 2026-11-22T01:00:00Z\n\nBody:\n{OFFER}\n"
    );
    let offered = amail_parser::parse(&text, &opts).unwrap();
    let env = amail_core::bridge::to_envelope_standalone(&offered[0]).unwrap();
    assert!(
        env.to_json_line()
            .contains(r#""summaryRef":"outputs/summary.md""#),
        "{}",
        env.to_json_line()
    );
}

// ---------------------------------------------------------------- item 7

#[test]
fn task_titles_are_the_best_known_never_a_raw_subject() {
    let fx = Fx::new();
    let m = fx.path("mail");
    mail(
        &m,
        "1.md",
        "1",
        "boss",
        1,
        "[ol-527.6] SPAWN_REQUEST",
        "Issue: ol-527.6\nResume: false",
    );
    mail(
        &m,
        "2.md",
        "2",
        "w",
        2,
        "OFFERING READY for ol-9.4 ✅",
        OFFER.replace("bd-9", "ol-9.4").as_str(),
    );
    mail(
        &m,
        "3.md",
        "3",
        "v",
        3,
        "[ol-3] PROGRESS: wiring the login page",
        "Bead: ol-3\nStatus: going",
    );
    let out = fx.route(&m);
    assert!(out.status.success(), "{}", stderr(&out));
    for bead in ["ol-527.6", "ol-9.4", "ol-3"] {
        let title = fx.task_of(bead)["title"].as_str().unwrap().to_string();
        for noise in ["SPAWN", "OFFERING", "PROGRESS", "[", "✅"] {
            assert!(
                !title.contains(noise),
                "{bead}: title {title:?} has {noise:?}"
            );
        }
        assert!(!title.trim().is_empty());
    }
    assert_eq!(fx.task_of("ol-3")["title"], "wiring the login page");

    // BEAD_ACCEPTED's title replaces whatever the task had.
    let m2 = fx.path("mail2");
    accepted(
        &m2,
        4,
        "w",
        10,
        "ol-527.6",
        "Resume the localisation (fr, es)",
    );
    accepted(&m2, 5, "v", 11, "ol-3", "Login page");
    let out = fx.route(&m2);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fx.task_of("ol-527.6")["title"],
        "Resume the localisation (fr, es)"
    );
    assert_eq!(fx.task_of("ol-3")["title"], "Login page");
    // The task file says so too, and the change is in the event log.
    let board = stdout(&fx.run(&["tasks", "--store", &fx.store()]));
    assert!(
        board.contains("Resume the localisation (fr, es)"),
        "{board}"
    );
    assert!(
        fx.events().iter().any(|e| e["type"] == "task.updated"
            && e["payload"].to_string().contains("Login page")),
        "{:?}",
        fx.events()
    );
}

// ---------------------------------------------------------------- item 8

fn mailbox_with_binary(fx: &Fx) -> PathBuf {
    let m = fx.path("mail");
    mail(
        &m,
        "good.md",
        "1",
        "w",
        1,
        "[bd-1] PROGRESS",
        "Bead: bd-1\nStatus: going",
    );
    fs::write(m.join("image.md"), b"Subject: y\n\0\0\0\x01\x02PNG").unwrap();
    m
}

#[test]
fn every_command_skips_a_binary_file_with_a_warning() {
    let fx = Fx::new();
    let m = mailbox_with_binary(&fx);
    let bin = m.join("image.md");
    let b = bin.to_str().unwrap();
    let warned = |o: &Output| {
        stderr(o)
            .lines()
            .any(|l| l.contains("warning") && l.contains(b) && l.contains("binary"))
    };
    // parse, a directory and the file named.
    let out = fx.run(&["parse", "--format", "jsonl", m.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(warned(&out), "parse DIR: {}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));
    assert!(!stdout(&out).contains("image.md"));
    let out = fx.run(&["parse", "--format", "jsonl", b]);
    assert!(warned(&out), "parse FILE: {}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // route
    let out = fx.route(&m);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(warned(&out), "route: {}", stderr(&out));
    assert!(stdout(&out).contains("routed 1 of 1"), "{}", stdout(&out));
    // threads, as before
    let out = fx.run(&["threads", m.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(warned(&out), "threads: {}", stderr(&out));
}

/// More files than one worker's share: the parallel path skips them too.
#[test]
fn parse_skips_binary_files_in_a_big_directory() {
    let fx = Fx::new();
    let m = fx.path("mail");
    for i in 0..100 {
        mail(
            &m,
            &format!("{i:03}.md"),
            &i.to_string(),
            "w",
            i % 60,
            "[bd-1] PROGRESS",
            "Bead: bd-1\nStatus: going",
        );
    }
    fs::write(m.join("050-image.md"), b"\0\0\0\x01\x02PNG").unwrap();
    let out = fx.run(&["parse", "--format", "jsonl", m.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 100);
    assert!(stderr(&out).contains("050-image.md"), "{}", stderr(&out));
}

// ---------------------------------------------------------------- item 9

#[test]
fn empty_input_is_zero_messages() {
    let fx = Fx::new();
    for input in [&b""[..], b"   \n\t\r\n\n", b"\xef\xbb\xbf\n"] {
        let out = fx.run_stdin(&["parse", "--format", "jsonl"], input);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), "", "{input:?}");
        let out = fx.run_stdin(&["parse", "--format", "json"], input);
        assert_eq!(stdout(&out).split_whitespace().collect::<String>(), "[]");
        let out = fx.run_stdin(&["parse", "--strict", "--format", "jsonl"], input);
        assert!(out.status.success(), "strict: {}", stderr(&out));
        let out = fx.run_stdin(&["route", "--store", &fx.store()], input);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stdout(&out).contains("routed 0 of 0 messages"),
            "{}",
            stdout(&out)
        );
    }
    // An empty file in a mailbox is no message either.
    let m = fx.path("mail");
    mail(
        &m,
        "good.md",
        "1",
        "w",
        1,
        "[bd-1] PROGRESS",
        "Bead: bd-1\nStatus: going",
    );
    fs::write(m.join("empty.md"), "").unwrap();
    fs::write(m.join("blank.md"), "\n\n  \n").unwrap();
    let out = fx.run(&["parse", "--format", "jsonl", m.to_str().unwrap()]);
    assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));
    let out = fx.run(&["threads", "--json", m.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("UNKNOWN"), "{}", stdout(&out));
    // The library says the same.
    for s in ["", " ", "\n\r\n", "\u{feff}"] {
        let opts = amail_parser::ParseOptions::default();
        assert!(amail_parser::parse(s, &opts).unwrap().is_empty(), "{s:?}");
        assert!(
            amail_parser::parse(s, &amail_parser::ParseOptions::strict())
                .unwrap()
                .is_empty()
        );
        assert!(amail_parser::parse_bytes(s.as_bytes(), &opts)
            .unwrap()
            .is_empty());
    }
}

/// `amail parse` with a terminal on standard input says it is reading it.
/// Runs the binary under `script`, which gives it a pseudo-terminal.
#[test]
fn reading_a_terminal_says_so() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` (util-linux) to make a terminal");
        return;
    }
    let fx = Fx::new();
    for sub in ["parse --format jsonl", "route"] {
        let store = format!(" --store {}", fx.store());
        let cmd = format!(
            "{} {sub}{}",
            env!("CARGO_BIN_EXE_amail"),
            if sub == "route" { store.as_str() } else { "" }
        );
        let mut child = Command::new("script")
            .args(["-q", "-e", "-c", &cmd, "/dev/null"])
            .env("AMAIL_HOME", fx.dir.path())
            .env("AMAIL_CONFIG", fx.path("none.toml"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdin.take().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
        // Ctrl-D on an empty line: end of input.
        pipe.write_all(b"\x04").unwrap();
        drop(pipe);
        let out = child.wait_with_output().unwrap();
        let all = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            all.contains("reading standard input") && all.contains("Ctrl-D"),
            "{sub}: {all}"
        );
    }
    // Not on a pipe.
    let out = fx.run_stdin(&["parse", "--format", "jsonl"], b"");
    assert!(!stderr(&out).contains("reading standard input"));
}

// ---------------------------------------------------------------- item 2

/// A mailbox at the default place (`$AMAIL_HOME/mail`) holding one
/// ack-required message, `m-1`, from `w` to `boss`.
fn default_mailbox_with_pending(fx: &Fx) -> PathBuf {
    let m = fx.path("mail");
    super::fx::write_help_request(&m, "1.md", "m-1", "boss");
    m
}

/// A SOURCE the user named but mistyped is an error naming it, before
/// anything is written; no command falls back to the default mailbox.
#[test]
fn a_named_source_that_does_not_exist_is_an_error_before_anything_is_written() {
    let fx = Fx::new();
    default_mailbox_with_pending(&fx);
    let before = tree(fx.dir.path());
    let typo = fx.path("demo2/mial");
    for t in [typo.to_str().unwrap(), "./no-such-dir/mial"] {
        for args in [
            vec!["ack", "m-1", t, "--as", "boss"],
            vec!["reply", "m-1", t, "--as", "boss", "--body", "x"],
            vec!["threads", t],
            vec!["pending", t],
            vec!["pending", t, "--as", "boss"],
            vec!["inbox", t],
        ] {
            let out = fx.run(&args);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains(t), "{args:?}: {}", stderr(&out));
            assert!(stdout(&out).is_empty(), "{args:?}: {}", stdout(&out));
            assert_eq!(tree(fx.dir.path()), before, "{args:?} wrote something");
        }
    }
    // With no default mailbox, `amail ack 5 demo2/mial --as boss` said
    // "no mailbox at DEFAULT yet: give a SOURCE": the typo, read as a
    // second id (an id may hold a `/`), was not named. With nothing for
    // it to be an id of, an item with a `/` last is the SOURCE, mistyped.
    let fx = Fx::new();
    let before = tree(fx.dir.path());
    for args in [
        vec!["ack", "5", "no-such-dir/mial", "--as", "boss"],
        vec!["ack", "5", "6", "no-such-dir/mial", "--as", "boss"],
    ] {
        let out = fx.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("amail: no-such-dir/mial: no such file or directory"),
            "{args:?}: {err}"
        );
        assert_eq!(tree(fx.dir.path()), before, "{args:?} wrote something");
    }
}

// ---------------------------------------------------------------- item 10

/// BlueLake's and GreenCastle's `fetch_inbox` results, as the real server
/// returned them (`{"result": [...]}`), from the recorded tool calls.
fn fetch_inbox_json(agent: &str) -> Value {
    let calls: Vec<Value> = serde_json::from_str(
        &fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/mcp-agent-mail-0.1.0/tool_results.json"),
        )
        .unwrap(),
    )
    .unwrap();
    calls
        .into_iter()
        .find(|c| c["tool"] == "fetch_inbox" && c["args"]["agent_name"] == agent)
        .unwrap()["result"]
        .clone()
}

fn pending_json(fx: &Fx, args: &[&str], input: &Value) -> Vec<Value> {
    let mut all = vec!["pending", "-", "--json"];
    all.extend_from_slice(args);
    let out = fx.run_stdin(&all, input.to_string().as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn keys(rows: &[Value]) -> Vec<String> {
    let mut k: Vec<String> = rows
        .iter()
        .map(|r| r["id"].as_str().unwrap().into())
        .collect();
    k.sort();
    k
}

/// `fetch_inbox` output is one agent's inbox: its ack-required messages
/// are that agent's pending acks (the Python server reports no ack state;
/// the Rust port's `read_ts`/`ack_ts` are honoured), to or cc as `kind`
/// says.
#[test]
fn piped_fetch_inbox_shows_its_pending_acks() {
    let fx = Fx::new();
    let blue = fetch_inbox_json("BlueLake");
    // Without --as: the inbox's owner, unnamed.
    let out = fx.run_stdin(&["pending", "-"], blue.to_string().as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("nothing pending"),
        "{}",
        stdout(&out)
    );
    let rows = pending_json(&fx, &[], &blue);
    assert_eq!(keys(&rows), ["10", "5", "8"], "{rows:?}");
    // With --as: that agent's.
    let rows = pending_json(&fx, &["--as", "BlueLake"], &blue);
    assert_eq!(keys(&rows), ["10", "5", "8"], "{rows:?}");
    assert!(rows
        .iter()
        .all(|r| r["agent"] == "BlueLake" && r["kind"] == "to"));
    // GreenCastle is cc'd on 10 only.
    let green = fetch_inbox_json("GreenCastle");
    let rows = pending_json(&fx, &["--as", "GreenCastle"], &green);
    assert_eq!(keys(&rows), ["10"], "{rows:?}");
    assert_eq!(rows[0]["kind"], "cc");
    // The Rust port's shape: read and ack times per message.
    let mut rust = blue.clone();
    for m in rust["result"].as_array_mut().unwrap() {
        if m["id"] == 8 {
            m["read_ts"] = "2026-11-22T03:23:50.870028+00:00".into();
            m["ack_ts"] = "2026-11-22T03:23:50.873376+00:00".into();
        }
        if m["id"] == 5 {
            m["read_ts"] = "2026-11-22T03:24:00+00:00".into();
        }
    }
    let rows = pending_json(&fx, &["--as", "BlueLake"], &rust);
    assert_eq!(keys(&rows), ["10", "5"], "{rows:?}");
    let read: Vec<bool> = rows.iter().map(|r| r["read"].as_bool().unwrap()).collect();
    assert_eq!(read.iter().filter(|r| **r).count(), 1, "{rows:?}");
}

// ---------------------------------------------------------------- item 11

/// The README's exit codes: 1 for bad input or store (an unknown id, not a
/// recipient, no mailbox), 2 for usage.
#[test]
fn bad_input_exits_1_and_usage_exits_2() {
    let fx = Fx::new();
    let m = default_mailbox_with_pending(&fx);
    let ms = m.to_str().unwrap();
    for (args, says) in [
        (vec!["ack", "nope", ms, "--as", "boss"], "no message nope"),
        (
            vec!["reply", "nope", ms, "--as", "boss", "--body", "x"],
            "no message nope",
        ),
        (vec!["ack", "m-1", ms, "--as", "w"], "not a recipient"),
    ] {
        let out = fx.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    // No mailbox at the default place.
    let empty = Fx::new();
    for args in [
        vec!["threads"],
        vec!["pending"],
        vec!["ack", "x", "--as", "boss"],
        vec!["reply", "x", "--as", "boss", "--body", "x"],
        vec!["inbox"],
    ] {
        let out = empty.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("no mailbox at"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // Usage stays 2.
    assert_eq!(fx.run(&["ack", "m-1"]).status.code(), Some(2));
    assert_eq!(fx.run(&["threads", "--bogus"]).status.code(), Some(2));
}

// ---------------------------------------------------------------- item 13

/// Runs `amail inbox --demo EXTRA` in a pseudo-terminal (under `script`),
/// pressing `q` until it quits; returns everything it printed.
fn inbox_demo_in_a_terminal(fx: &Fx, extra: &str) -> String {
    let log = fx.path(&format!("script-{}.log", extra.trim()));
    let mut child = Command::new("script")
        .args([
            "-q",
            "-e",
            "-c",
            &format!("{} inbox --demo{extra}", env!("CARGO_BIN_EXE_amail")),
            "/dev/null",
        ])
        .env("AMAIL_HOME", fx.dir.path())
        .env("AMAIL_CONFIG", fx.path("none.toml"))
        .env("TERM", "xterm-256color")
        .stdin(Stdio::piped())
        .stdout(fs::File::create(&log).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "the inbox did not quit"
        );
        std::thread::sleep(std::time::Duration::from_millis(500));
        let _ = pipe.write_all(b"q").and_then(|()| pipe.flush());
    }
    drop(pipe);
    let out = child.wait_with_output().unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&fs::read(&log).unwrap()),
        stderr(&out)
    );
    fs::remove_file(&log).unwrap();
    all
}

/// `inbox --demo` prints where its mailbox is and reuses one folder under
/// the data dir; `--fresh` writes it anew.
#[test]
fn the_demo_inbox_is_one_folder_reused_and_its_path_printed() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` (util-linux) to make a terminal");
        return;
    }
    let fx = Fx::new();
    let demo = fx.path("demo-inbox");
    let demo_dirs = || -> Vec<String> {
        tree(fx.dir.path())
            .into_iter()
            .filter(|p| p.starts_with("demo") && !p.contains('/'))
            .collect()
    };
    let first = inbox_demo_in_a_terminal(&fx, "");
    assert!(first.contains(demo.to_str().unwrap()), "{first}");
    assert!(demo.join("mail").is_dir());
    fs::write(demo.join("mark"), "").unwrap();
    let second = inbox_demo_in_a_terminal(&fx, "");
    assert!(second.contains(demo.to_str().unwrap()), "{second}");
    assert!(demo.join("mark").exists(), "the demo folder was not reused");
    assert_eq!(demo_dirs(), ["demo-inbox"]);
    let fresh = inbox_demo_in_a_terminal(&fx, " --fresh");
    assert!(fresh.contains(demo.to_str().unwrap()), "{fresh}");
    assert!(!demo.join("mark").exists(), "--fresh kept the old folder");
    assert!(demo.join("mail").is_dir());
    assert_eq!(demo_dirs(), ["demo-inbox"]);
}

/// `--body -` reads the answer from stdin, as `-` names stdin everywhere
/// else amail takes input (`parse -`, `route -`, `pending -`): it sent a
/// reply whose body was the one character `-`, and the piped answer was
/// lost.
#[test]
fn reply_body_dash_reads_stdin() {
    let fx = Fx::new();
    let m = default_mailbox_with_pending(&fx);
    let m = m.to_str().unwrap();
    let reply =
        |input: &[u8]| fx.run_stdin(&["reply", "m-1", m, "--as", "boss", "--body", "-"], input);
    let out = reply(b"Use the partial index.\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let written = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("wrote "))
        .unwrap_or_else(|| panic!("no file written: {text}"));
    let sent = fs::read_to_string(written).unwrap();
    assert!(sent.contains("Use the partial index."), "{sent}");
    // A body of `-` and nothing on stdin is an empty answer, refused.
    let out = reply(b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A piped answer to an id the mailbox lacks: refused, and the answer
    // kept in the data dir's drafts/, the error naming the file (it was
    // lost; `interop::server_source` shows the same for a server gone).
    let out = fx.run_stdin(
        &["reply", "m-404", m, "--as", "boss"],
        b"Keep me: typed once.\n",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let drafts = fx.dir.path().join("drafts");
    let kept: Vec<_> = fs::read_dir(&drafts)
        .unwrap_or_else(|e| panic!("{}: {e}; {err}", drafts.display()))
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(
        fs::read_to_string(&kept[0]).unwrap(),
        "Keep me: typed once.\n"
    );
    assert!(err.contains(&kept[0].display().to_string()), "{err}");
}

/// A task file whose front matter does not parse is named once, with the
/// file's line and column, by `tasks` (a warning) as by `doctor`: the
/// warning said `PATH: 3:8: ... at line 2 column 8`, two positions that
/// disagreed (the second counted inside the front matter).
#[test]
fn a_broken_task_file_is_named_with_one_position() {
    let fx = Fx::new();
    let m = default_mailbox_with_pending(&fx);
    assert!(fx.route(&m).status.success());
    let file = crate::support::walk::files_under(&fx.path("store").join("tasks"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .expect("a task file");
    let text = fs::read_to_string(&file).unwrap();
    let broken: Vec<String> = text
        .lines()
        .map(|l| match l.strip_prefix("title:") {
            Some(_) => "title: [unclosed".to_string(),
            None => l.to_string(),
        })
        .collect();
    let line = broken.iter().position(|l| l == "title: [unclosed").unwrap() + 1;
    fs::write(&file, broken.join("\n")).unwrap();
    let store = fx.store();
    let err = stderr(&fx.run(&["tasks", "--store", &store]));
    let want = format!("{}:{line}:", file.display());
    assert!(err.contains(&want), "{err}");
    assert!(!err.contains(" at line "), "{err}");
    let out = stdout(&fx.run(&["doctor", "--store", &store]));
    assert!(out.contains(&want), "{out}");
}

/// A path that is not there read four ways: `parse` said "no such file or
/// directory", `threads`, `pending`, `inbox` and `reply` the system's
/// "No such file or directory (os error 2)", `route` that with "(check
/// the path and its permissions)", `ack` "no such directory". Every
/// command now says it as `parse` does, with nothing of Rust's error
/// type (`os error 2`) in it.
#[test]
fn a_missing_path_is_named_the_same_way_by_every_command() {
    let fx = Fx::new();
    let gone = fx.path("no-such-mail");
    let g = gone.to_str().unwrap();
    let store = fx.store();
    for args in [
        vec!["parse", g],
        vec!["threads", g],
        vec!["pending", g],
        vec!["inbox", g],
        vec!["route", g, "--store", &store],
        vec!["reply", "x", g, "--as", "A", "--body", "hi"],
        vec!["ack", "x", g, "--as", "A"],
    ] {
        let out = fx.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("amail: {g}: no such file or directory")),
            "{args:?}: {err}"
        );
        assert!(!err.contains("os error"), "{args:?}: {err}");
    }
}

/// A server's URL given to a command that reads files: `amail parse
/// http://127.0.0.1:8765/mcp/` and `amail route URL` said "no such file
/// or directory (check the path and its permissions)", as if the URL were
/// a mistyped path. Found after learning that `threads`, `pending`,
/// `inbox`, `ack` and `reply` take a server's URL as SOURCE. They say it
/// is a server, which commands work through one, and how `parse` reads a
/// server's mail (its fetch_inbox JSON on stdin); nothing is created.
#[test]
fn a_server_url_given_to_parse_or_route_names_the_commands_that_take_one() {
    let fx = Fx::new();
    let store = fx.store();
    // Nothing listens there, and nothing may be asked of it.
    let url = "http://127.0.0.1:1/mcp/";
    for args in [
        vec!["parse", url],
        vec!["parse", "--strict", url],
        vec!["route", url, "--store", &store],
    ] {
        let out = fx.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains(url)
                && err.contains("a server's URL")
                && err.contains("amail threads")
                && !err.contains("no such file"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(!Path::new(&store).exists(), "route created a store");

    // The URL and no message id (`amail ack URL --as A`): it said "no
    // mailbox at DATA_DIR/mail yet: give a SOURCE", the URL read as an
    // id. It says the id is missing, and where it goes.
    the_id_left_out_is_named(&fx, url, "A");
}

/// `amail ack SOURCE --as AGENT` and `amail reply SOURCE --as AGENT`, the
/// id left out: a usage error that says so and where the id goes, not "no
/// mailbox" (the SOURCE read as an id on the default mailbox).
fn the_id_left_out_is_named(fx: &Fx, source: &str, agent: &str) {
    for (args, want) in [
        (
            vec!["ack", source, "--as", agent],
            format!("amail ack ID... {source}"),
        ),
        (
            vec!["reply", source, "--as", agent, "--body", "hi"],
            format!("amail reply ID {source}"),
        ),
    ] {
        let out = fx.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("no message id") && err.contains(&want) && !err.contains("no mailbox"),
            "{args:?}: {err}"
        );
    }
}

/// A token file that cannot be read names where amail was told to find
/// it: `server_token_file` in the config said only "PATH: cannot read the
/// token file: No such file or directory (os error 2)", and a user who
/// never typed PATH had to guess it came from the config file. Each
/// origin (the flag, the config's key, a `[[servers]]` entry) is named,
/// with nothing of Rust's error type in it; no server is asked.
#[test]
fn an_unreadable_token_file_names_where_it_was_named() {
    let fx = Fx::new();
    let config = fx.path("no-config.toml");
    let gone = fx.path("gone-token");
    let g = gone.to_str().unwrap();
    let url = "http://127.0.0.1:1/mcp/";
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_amail"))
            .args(args)
            .env("AMAIL_HOME", fx.dir.path())
            .env("AMAIL_CONFIG", &config)
            .env_remove("AMAIL_SERVER_TOKEN")
            .output()
            .unwrap()
    };
    let check = |out: Output, origin: &str| {
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains(g) && err.contains(origin) && !err.contains("os error"),
            "{origin}: {err}"
        );
        assert!(
            !err.contains("no server answers"),
            "a server was asked: {err}"
        );
    };
    check(run(&["threads", url, "--token-file", g]), "--token-file");
    fs::write(&config, format!("server_token_file = \"{g}\"\n")).unwrap();
    check(run(&["threads", url]), "server_token_file");
    // The agents' tokens file (0.3.x servers), named the same way.
    fs::write(&config, format!("agent_tokens_file = \"{g}\"\n")).unwrap();
    check(run(&["threads", url]), "agent_tokens_file");
    fs::write(&config, format!("server_token_file = \"{g}\"\n")).unwrap();
    assert!(
        stderr(&run(&["threads", url])).contains(config.to_str().unwrap()),
        "the config file is named"
    );
    // A [[servers]] entry's token_file, for a storage root it names.
    let root = fx.path("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    fs::write(
        &config,
        format!(
            "[[servers]]\nstorage_root = \"{}\"\nurl = \"{url}\"\ntoken_file = \"{g}\"\n",
            root.display()
        ),
    )
    .unwrap();
    check(
        run(&["ack", "1", root.to_str().unwrap(), "--as", "BlueLake"]),
        "[[servers]]",
    );
}

/// A path that is there but cannot be followed (a link that leads to
/// itself): `parse` said "no such file or directory", whatever stopped
/// it, while `threads` said "too many levels of symbolic links". Found
/// by giving each command a link loop. Every command now names it as the
/// broken link it is, round to itself (`fsio::reason_at`).
#[cfg(unix)]
#[test]
fn a_path_that_cannot_be_followed_says_why_in_every_command() {
    let fx = Fx::new();
    let link = fx.path("loop");
    std::os::unix::fs::symlink(&link, &link).unwrap();
    let l = link.to_str().unwrap();
    for (args, out) in fx.each_reader(l) {
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("amail: {l}: broken link to {l} (a loop of links)")),
            "{args:?}: {err}"
        );
    }
}

/// `amail inbox --fresh DIR` (without `--demo`) said "amail inbox needs a
/// terminal" when piped and opened DIR's inbox in a terminal, `--fresh`
/// ignored: clap's `requires` never fires for a flag that is a bool
/// (false is its value when absent). Found by trying `--fresh` on a
/// mailbox of one's own. It is a usage error naming `--demo`, before the
/// terminal is asked for.
#[test]
fn fresh_without_demo_is_a_usage_error() {
    let fx = Fx::new();
    let m = fx.path("mail");
    fs::create_dir_all(&m).unwrap();
    for args in [
        &["inbox", "--fresh", m.to_str().unwrap()][..],
        &["inbox", "--fresh"][..],
    ] {
        let out = fx.run(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--demo") && err.contains("--fresh"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("terminal"), "{args:?}: {err}");
    }
}

/// The SOURCE first, as `amail threads SOURCE` and `amail pending SOURCE`
/// take it: `amail ack ./mail demo-07 --as BlueLake` read the mailbox as
/// an id and answered "no mailbox at DATA_DIR/mail yet", and `amail reply
/// ./mail demo-11 ...` answered "demo-11: no such file or directory".
/// An existing directory or a server's URL is never an id: first or last,
/// it is the SOURCE. Alone, it is a SOURCE with the id left out.
#[test]
fn the_source_may_come_before_the_ids_as_threads_takes_it() {
    let fx = Fx::new();
    let root = fx.demo();
    let mail = root.join("mail");
    let m = mail.to_str().unwrap();
    let out = fx.run(&["ack", m, "demo-07", "--as", "BlueLake"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("acked demo-07 as BlueLake"),
        "{}",
        stdout(&out)
    );
    let out = fx.run(&["reply", m, "demo-11", "--as", "Chiron", "--body", "Use v2."]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("replied to demo-11 as Chiron"),
        "{}",
        stdout(&out)
    );
    let replies = fs::read_dir(mail.join("replies")).unwrap().count();
    assert_eq!(replies, 1);
    // The mailbox and no id: it says the id is missing and where it goes.
    the_id_left_out_is_named(&fx, m, "Chiron");
    assert_eq!(fs::read_dir(mail.join("replies")).unwrap().count(), 1);
}

/// The demo's store with `lines` added to its event log's day file: the
/// store, the day file and the number of the first line added.
fn demo_log_with(fx: &Fx, lines: &str) -> (std::path::PathBuf, std::path::PathBuf, usize) {
    let store = fx.demo().join("store");
    let day = std::fs::read_dir(store.join("events"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap() != "events.jsonl")
        .expect("a day file");
    let mut text = std::fs::read_to_string(&day).unwrap();
    let first = text.lines().count() + 1;
    text.push_str(lines);
    std::fs::write(&day, text).unwrap();
    (store, day, first)
}

/// `amail events` on a log with a line that is not an event said "skipped
/// 1 line(s)"; a count is said as a person says it (`amail_core::words`).
#[test]
fn a_log_line_that_is_not_an_event_is_counted_in_words() {
    let fx = Fx::new();
    let (store, _, _) = demo_log_with(&fx, "not an event\n");
    let out = fx.run(&["events", "--store", store.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("amail: skipped 1 line that is not an event;"),
        "{}",
        stderr(&out)
    );
}

/// `amail events` said how many lines it skipped and sent the user to
/// `amail doctor` to find them: each is named where it is, file, line and
/// column, with why it is not an event, as doctor names it.
#[test]
fn a_log_line_that_is_not_an_event_is_named_by_file_line_and_column() {
    let fx = Fx::new();
    let (store, day, first) = demo_log_with(&fx, "{\"eventId\": 9999, oops}\n\n[1]\n");
    let out = fx.run(&["events", "--store", store.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let at =
        |line: usize, column: usize| format!("{}:{line}:{column}: not an event: ", day.display());
    assert!(
        err.contains(&format!("{}key must be a string; skipped", at(first, 19))),
        "{err}"
    );
    assert!(
        err.contains(&format!("{}invalid length 1, expected", at(first + 2, 3))),
        "{err}"
    );
    assert!(err.contains("skipped 2 lines that are not events"), "{err}");
    // What doctor names is what events names.
    let out = fx.run(&["doctor", "--check", "--store", store.to_str().unwrap()]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(said.contains(&at(first, 19)), "{said}");
}
