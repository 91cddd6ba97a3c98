//! Issue 14, "CLI tables": `amail threads` and `amail pending` line their
//! columns up by display width (as the TUI does), `threads` shows what
//! each thread is at now, not its first subject; `--max-size` appears only
//! on commands that read mail; `ack`'s usage line reads as a person would
//! write the command.

use std::path::Path;

use unicode_width::UnicodeWidthStr;

use super::fx::{mail, stderr, stdout, Fx};

/// The display column at which `marker` starts on `line`.
fn column_of(line: &str, marker: &str) -> usize {
    let at = line
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker:?} in {line:?}"));
    line[..at].width()
}

/// A mailbox whose thread ids and agent names differ in display width:
/// ASCII, and CJK (two columns a character).
fn mixed_width_mailbox(dir: &Path) {
    mail(
        dir,
        "1.md",
        "m1",
        "Alice",
        1,
        "[b-1] PROGRESS",
        "Bead: b-1\nStatus: compiling",
    );
    mail(
        dir,
        "2.md",
        "m2",
        "李小龍",
        2,
        "[構築-長い名前] HELP_REQUEST",
        "Bead: 構築-長い名前\n## Question\nWhich lock order?",
    );
    mail(
        dir,
        "3.md",
        "m3",
        "Bob",
        3,
        "[b-22] PROGRESS",
        "Bead: b-22\nStatus: tests green",
    );
}

#[test]
fn threads_and_pending_line_up_by_display_width() {
    let fx = Fx::new();
    let dir = fx.path("mail");
    mixed_width_mailbox(&dir);
    let src = dir.to_str().unwrap();

    let out = fx.run(&["threads", src]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for marker in [" msg", " pending"] {
        let cols: Vec<usize> = lines.iter().map(|l| column_of(l, marker)).collect();
        assert!(
            cols.windows(2).all(|w| w[0] == w[1]),
            "{marker:?} at display columns {cols:?}:\n{text}"
        );
    }
}

#[test]
fn pending_rows_line_up_by_display_width() {
    let fx = Fx::new();
    let dir = fx.path("mail");
    for (i, (id, from, agent)) in [
        ("m-1", "Alice", "boss"),
        ("m-22", "李小龍", "構築係"),
        ("m-333", "Bob", "boss"),
    ]
    .into_iter()
    .enumerate()
    {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("{i}.md")),
            format!(
                "Subject: [b-{i}] HELP_REQUEST\nFrom: {from}\nTo: {agent}\nId: {id}\nAck-Required: true\nDate: 2026-11-22T01:0{i}:00Z\n\nBody:\n## Question\nWhy?\n"
            ),
        )
        .unwrap();
    }
    let out = fx.run(&["pending", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for marker in ["HELP_REQUEST", "from ", "thread "] {
        let cols: Vec<usize> = lines.iter().map(|l| column_of(l, marker)).collect();
        assert!(
            cols.windows(2).all(|w| w[0] == w[1]),
            "{marker:?} at display columns {cols:?}:\n{text}"
        );
    }
}

/// A message whose subject names a type the protocol does not list
/// (amail's own GUIDANCE) reads by that name in both tables, as the TUI's
/// badge says (both said NOTE, so the sender of guidance read it back as
/// a note); one that names no type is a NOTE in both (`pending` once said
/// "UNKNOWN" where `threads` said "NOTE"). Its line is its prose, not its
/// type line. (`--json` keeps the parser's name, `UNKNOWN`.)
#[test]
fn an_untyped_message_reads_by_the_name_its_subject_gives_in_both_tables() {
    let fx = Fx::new();
    let dir = fx.path("mail");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("1.md"),
        "Subject: GUIDANCE: Rebase on main\nFrom: BlueLake\nTo: GreenCastle\nId: g1\n\
         Ack-Required: true\nDate: 2026-11-22T01:00:00Z\n\n\
         Body:\nGUIDANCE\n\nThe limiter fix landed; rebase before review.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("2.md"),
        "Subject: standup in five\nFrom: BlueLake\nTo: GreenCastle\nId: n1\n\
         Ack-Required: true\nDate: 2026-11-22T00:00:00Z\n\n\
         Body:\nStandup in five minutes.\n",
    )
    .unwrap();
    let root = dir.to_str().unwrap();
    let pending = stdout(&fx.run(&["pending", root]));
    let line = |text: &str, id: &str| {
        text.lines()
            .find(|l| l.contains(id))
            .unwrap_or_else(|| panic!("no {id} in {text}"))
            .to_string()
    };
    assert!(line(&pending, "g1").contains("  GUIDANCE  "), "{pending}");
    assert!(line(&pending, "n1").contains("  NOTE  "), "{pending}");
    assert!(!pending.contains("UNKNOWN"), "{pending}");
    let threads = stdout(&fx.run(&["threads", root]));
    assert!(line(&threads, "g1").contains("  GUIDANCE  "), "{threads}");
    assert!(line(&threads, "n1").contains("  NOTE  "), "{threads}");
    assert!(
        threads.contains("BlueLake: The limiter fix landed; rebase before review."),
        "{threads}"
    );
    let json = stdout(&fx.run(&["pending", root, "--json"]));
    assert!(json.contains("\"UNKNOWN\""), "{json}");
}

/// `amail tasks` (the board, and one agent's queues with `--agent`) lines
/// its columns up by display width, as `threads` and `pending` do: it
/// padded by `char` count to fixed widths, so a bead longer than twelve
/// (a UUID, `handoffs:BlueLake`) or a CJK agent pushed the rest of its row
/// out of line.
#[test]
fn the_task_board_lines_up_by_display_width() {
    let fx = Fx::new();
    let dir = fx.path("mail");
    mail(
        &dir,
        "1.md",
        "m1",
        "Alice",
        1,
        "[b-1] BEAD_ACCEPTED",
        "Bead: b-1\nTitle: Short bead",
    );
    mail(
        &dir,
        "2.md",
        "m2",
        "李小龍",
        2,
        "[7d3c9a10-0000-4000-8000-000000000001] BEAD_ACCEPTED",
        "Bead: 7d3c9a10-0000-4000-8000-000000000001\nTitle: A bead with a long id",
    );
    mail(
        &dir,
        "3.md",
        "m3",
        "Bob",
        3,
        "[b-3] BEAD_ACCEPTED",
        "Bead: b-3\nTitle: Third",
    );
    let out = fx.route(&dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let tasks = fx.tasks();
    assert_eq!(tasks.len(), 3, "{tasks:?}");
    for args in [vec!["tasks"], vec!["tasks", "--agent", "李小龍"]] {
        let mut argv = args.clone();
        let store = fx.store();
        argv.extend(["--store", &store]);
        let out = fx.run(&argv);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let rows: Vec<(&str, &str)> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("TASK-"))
            .filter_map(|l| {
                let t = tasks
                    .iter()
                    .find(|t| l.contains(t["task_id"].as_str().unwrap()))?;
                Some((l, t["title"].as_str().unwrap()))
            })
            .collect();
        assert!(!rows.is_empty(), "{text}");
        let cols: Vec<usize> = rows.iter().map(|(l, title)| column_of(l, title)).collect();
        assert!(
            cols.windows(2).all(|w| w[0] == w[1]),
            "{args:?}: titles at display columns {cols:?}:\n{text}"
        );
    }
}

#[test]
fn threads_show_what_each_thread_is_at_now() {
    let fx = Fx::new();
    let dir = fx.path("mail");
    mail(
        &dir,
        "1.md",
        "m1",
        "Alice",
        1,
        "[b-7] PROGRESS",
        "Bead: b-7\nStatus: starting",
    );
    mail(
        &dir,
        "2.md",
        "m2",
        "Alice",
        2,
        "[b-7] FAILED",
        "Bead: b-7\nReason: disk full on the runner\nFailure-Type: environment",
    );
    let out = fx.run(&["threads", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("FAILED"), "{text}");
    assert!(
        text.contains("Alice: disk full on the runner"),
        "the newest message's sender and reason: {text}"
    );
    assert!(
        !text.contains("[b-7] PROGRESS"),
        "not the first subject: {text}"
    );
}

/// A thread's line says what it is at in a glance, however long the
/// newest message's line: an agent's answer written as one paragraph of
/// 40,000 characters (no line break) made `amail threads` print a
/// 40,000-column line, found replying through a live server with a long
/// body piped in. The summary is cut, with `…`; the help state and the
/// rest of the line stay.
#[test]
fn a_long_summary_is_cut_to_a_glance() {
    let fx = Fx::new();
    let dir = fx.path("mail");
    let long = "日本語 ✓ index ".repeat(3000);
    mail(
        &dir,
        "1.md",
        "m1",
        "Alice",
        1,
        "[b-9] HELP_REQUEST",
        &format!("Bead: b-9\nIssue Type: STUCK\n\n## Question\n{long}"),
    );
    mail(
        &dir,
        "2.md",
        "m2",
        "Bob",
        2,
        "[b-8] PROGRESS",
        &format!("Bead: b-8\n\n{long}"),
    );
    let out = fx.run(&["threads", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 2, "{text}");
    for line in text.lines() {
        assert!(line.width() <= 200, "{} columns: {line:.300}", line.width());
        assert!(line.contains('…'), "not marked as cut: {line:.300}");
    }
    assert!(
        text.lines()
            .any(|l| l.contains("Alice: 日本語 ✓ index") && l.ends_with("? help unanswered")),
        "{text:.600}"
    );
    // A subject as long, in `pending`: cut too, the unread mark kept.
    std::fs::write(
        dir.join("3.md"),
        format!(
            "Subject: [b-7] CHECKPOINT {}\nFrom: Carol\nTo: boss\nId: m3\nAck-Required: true\n\
             Date: 2026-11-22T01:03:00Z\n\nBody:\nBead: b-7\n",
            "context nearly full ".repeat(100)
        ),
    )
    .unwrap();
    let out = fx.run(&["pending", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("m3"))
        .unwrap_or_else(|| panic!("{text:.600}"));
    assert!(line.width() <= 200 && line.contains('…'), "{line:.300}");
    assert!(line.ends_with("[unread]"), "{line:.300}");
}

#[test]
fn max_size_is_offered_only_by_commands_that_read_mail() {
    let fx = Fx::new();
    for cmd in [
        "parse", "route", "inbox", "threads", "pending", "ack", "reply",
    ] {
        let help = stdout(&fx.run(&[cmd, "--help"]));
        assert!(
            help.contains("--max-size"),
            "{cmd} --help lacks it:\n{help}"
        );
    }
    for cmd in ["tasks", "events", "sweep", "doctor", "demo"] {
        let help = stdout(&fx.run(&[cmd, "--help"]));
        assert!(
            !help.contains("--max-size"),
            "{cmd} --help offers it:\n{help}"
        );
        let out = fx.run(&[cmd, "--max-size", "1KiB"]);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {}", stderr(&out));
    }
    let top = stdout(&fx.run(&["--help"]));
    assert!(!top.contains("--max-size"), "{top}");

    // It still does its job where it is offered.
    let dir = fx.path("mail");
    mail(
        &dir,
        "1.md",
        "m1",
        "Alice",
        1,
        "[b] PROGRESS",
        &"x".repeat(4000),
    );
    let out = fx.run(&["parse", "--max-size", "1KiB", dir.to_str().unwrap()]);
    assert!(stderr(&out).contains("1.md"), "{}", stderr(&out));
}

#[test]
fn ack_usage_reads_as_the_command_is_written() {
    let fx = Fx::new();
    let help = stdout(&fx.run(&["ack", "--help"]));
    let usage = help
        .lines()
        .find(|l| l.starts_with("Usage:"))
        .unwrap_or_else(|| panic!("{help}"));
    assert_eq!(
        usage.trim(),
        "Usage: amail ack <ID>... [SOURCE] --as <AGENT> [OPTIONS]",
        "{help}"
    );
}
