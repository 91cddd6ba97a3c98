//! What the person sees is true and complete (issue 14, first part): no
//! body text hidden, `v` numbered as the file, `--as` marks, protocol
//! items in the right filter, the board beside the mailbox, one roster
//! state, ids told apart, every filter at 60 columns, the whole legend.

use std::path::Path;

use amail::backend::{store_beside, RealBackend};
use amail_core::inbox::{AgentState, TurnState};
use amail_parser::MessageType;
use amail_tui::model::{Filter, Pane, Screen};
use amail_tui::testing::{
    fixed_now, message, render_to_string, FakeBackend, InboxBuilder, TestApp,
};
use amail_tui::{Model, UiConfig};
use chrono::{Duration, TimeZone, Utc};

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Each message of `m`'s inbox in the message view on a tall screen: every
/// word of its body is on screen.
fn assert_every_body_word_shown(m: &mut Model) {
    let keys: Vec<(String, String)> = m
        .inbox
        .messages
        .iter()
        .map(|x| (m.inbox.thread_for(x).id.clone(), x.key.to_string()))
        .collect();
    assert!(!keys.is_empty());
    for (thread, key) in keys {
        m.screen = Screen::Inbox;
        m.filter = Filter::All;
        m.sel.thread = Some(thread);
        m.sel.message = Some(key.clone());
        m.focus = Pane::Message;
        m.size = (100, 400);
        let screen = render_to_string(m, 100, 400);
        let shown: std::collections::HashSet<String> = words(&screen).into_iter().collect();
        let body =
            amail_core::safe_text::clean_text(&m.inbox.message_by_key(&key).unwrap().message.body)
                .into_owned();
        let missing: Vec<String> = words(&body)
            .into_iter()
            .filter(|w| !shown.contains(w))
            .collect();
        assert!(
            missing.is_empty(),
            "message {key}: body words not shown: {missing:?}\n{screen}"
        );
    }
}

#[test]
fn the_message_view_never_has_fewer_words_than_the_body() {
    // The sample inbox, and the demo mailbox read by the real store (its
    // help requests carry `### problem` sections and intro prose).
    let mut sample = TestApp::sample().model;
    assert_every_body_word_shown(&mut sample);
    let dir = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap();
    let info = amail::demo::mailbox::write_demo_at(dir.path(), now).unwrap();
    let inbox = amail_core::stores::load(&info.mailbox, &Default::default()).unwrap();
    let mut demo = Model::new(inbox, Vec::new(), now, UiConfig::default());
    assert_every_body_word_shown(&mut demo);
}

#[test]
fn unmapped_body_lines_follow_the_fields() {
    let now = fixed_now();
    let mut b = InboxBuilder::new("mail");
    let msg = message(
        MessageType::HelpRequest,
        "[ol-9] HELP_REQUEST",
        "PurpleBear",
        &["BlueLake"],
        "ol-9",
        now,
        "Context first: I am on the second pass.\n\n## Question\nWhich port?\n\n### problem\nThe sidecar binds 8080 twice.",
        |p| p.question = Some("Which port?".into()),
    );
    b.add("1", msg, &[], &[]);
    let mut app = TestApp::new(
        FakeBackend::new(b.build(), Vec::new(), now),
        UiConfig::default(),
    );
    app.press("<enter><enter>");
    let screen = app.render(80, 30);
    assert!(screen.contains("Also in the message"), "{screen}");
    assert!(
        screen.contains("Context first: I am on the second pass."),
        "{screen}"
    );
    assert!(screen.contains("The sidecar binds 8080 twice."), "{screen}");
    // The mapped question is shown once, as its field.
    assert_eq!(screen.matches("Which port?").count(), 1, "{screen}");
}

#[test]
fn raw_view_numbers_the_lines_as_the_file_does() {
    // A plain mailbox through the real backend: the diagnostic on the
    // subject (line 4 of the file) points at the line shown as 4.
    let dir = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap();
    let mail = dir.path().join("mail");
    std::fs::create_dir(&mail).unwrap();
    std::fs::write(
        mail.join("note.md"),
        "From: PurpleBear\nTo: BlueLake\nDate: 2026-11-22T04:00:00Z\nSubject: [ol-9] WIBBLE\n\nFirst body line.\n",
    )
    .unwrap();
    let backend = RealBackend::new(mail, Default::default(), dir.path().join("store"), false);
    let mut app = TestApp::with_backend(backend, now, UiConfig::default());
    let (thread, key, path, line) = app
        .model
        .inbox
        .messages
        .iter()
        .find_map(|x| {
            let d = x.message.diagnostics.iter().find(|d| d.line > 1)?;
            Some((
                app.model.inbox.thread_for(x).id.clone(),
                x.key.to_string(),
                x.path.clone()?,
                d.line,
            ))
        })
        .expect("a diagnostic past line 1");
    app.model.sel.thread = Some(thread);
    app.model.sel.message = Some(key);
    app.model.focus = Pane::Message;
    app.press("v");
    let file = std::fs::read_to_string(&path).unwrap();
    let nth = file.lines().nth(line as usize - 1).unwrap().trim_end();
    let screen = app.render(120, 200);
    let want = format!("▸{line:>4} {}", amail_core::safe_text::reveal(nth));
    let want: String = want.chars().take(40).collect();
    assert!(screen.contains(&want), "want {want:?} in\n{screen}");
}

/// A file line wider than the raw view went on in the number gutter: its
/// rows after the first started at the pane's edge, under the line
/// numbers, so the numbers no longer stood apart from the text. They now
/// hang under the line's text, as a field's value hangs under itself.
#[test]
fn raw_view_hangs_a_long_line_under_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap();
    let mail = dir.path().join("mail");
    std::fs::create_dir(&mail).unwrap();
    let long = format!("Status: {} TAILSTATUS", "y".repeat(250));
    std::fs::write(
        mail.join("long.md"),
        format!("Subject: [ol-9] PROGRESS\nFrom: A\nTo: B\nDate: 2026-11-22T04:00:00Z\n\nBody:\n{long}\nStep: s\n"),
    )
    .unwrap();
    let backend = RealBackend::new(mail, Default::default(), dir.path().join("store"), false);
    let mut app = TestApp::with_backend(backend, now, UiConfig::default());
    app.press("<enter><enter>v");
    for (w, h) in [(80u16, 40u16), (120, 60)] {
        let screen = app.render(w, h);
        // The raw pane's rows (it has the focus: the heavy border).
        let rows: Vec<&str> = screen
            .lines()
            .filter_map(|l| l.split('┃').nth(1))
            .filter(|t| t.contains("yyy"))
            .collect();
        assert!(rows.len() > 1, "the line wraps at {w}:\n{screen}");
        for text in &rows {
            assert!(
                text.starts_with("      ") || text.contains(" 7 Status:") || text.contains(" 8 "),
                "a wrapped row starts in the number gutter at {w}:\n{screen}"
            );
        }
        assert!(screen.contains("TAILSTATUS"), "{screen}");
        assert!(
            screen.contains("    8 Step: s"),
            "the next line keeps its number:\n{screen}"
        );
    }
}

#[test]
fn as_agent_marks_only_what_that_agent_owes() {
    // The help request in ol-527.2 is PurpleBear's to BlueLake: as
    // PurpleBear it owes nothing, so no ✓ACK (it never acked it).
    let mut app = TestApp::sample().with_identity("PurpleBear");
    app.press("/ol-527.2<enter><enter>");
    let screen = app.render(80, 24);
    let row = screen.lines().find(|l| l.contains("? HELP")).unwrap();
    assert!(!row.contains("ACK"), "{row}");
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter><enter>");
    let screen = app.render(80, 24);
    let row = screen.lines().find(|l| l.contains("? HELP")).unwrap();
    assert!(row.contains("●ACK"), "{row}");
}

#[test]
fn completed_protocol_items_count_as_done() {
    let now = fixed_now();
    let mut b = InboxBuilder::new("mail");
    for (key, raw, status) in [
        ("a2a", "A2A_RESULT", "COMPLETED"),
        ("handoff-done", "HANDOFF", "completed"),
        ("handoff-no", "HANDOFF", "rejected"),
        ("handoff-open", "HANDOFF", "accepted"),
        ("a2a-failed", "A2A_RESULT", "FAILED"),
    ] {
        let mut msg = message(
            MessageType::Unknown,
            &format!("[{key}] {raw} {status}"),
            "A",
            &["B"],
            key,
            now,
            "x",
            |p| p.status = Some(status.to_string().into()),
        );
        msg.raw_type = Some(raw.into());
        b.add(key, msg, &[], &[]);
    }
    let app = TestApp::new(
        FakeBackend::new(b.build(), Vec::new(), now),
        UiConfig::default(),
    );
    let ids = |f: Filter| {
        let mut m = Model::new(
            app.model.inbox.clone(),
            Vec::new(),
            now,
            UiConfig::default(),
        );
        m.filter = f;
        let mut v: Vec<String> = m.visible_threads().iter().map(|t| t.id.clone()).collect();
        v.sort();
        v
    };
    assert_eq!(ids(Filter::Done), ["a2a", "handoff-done", "handoff-no"]);
    assert_eq!(ids(Filter::InProgress), ["handoff-open"]);
    assert_eq!(ids(Filter::Failed), ["a2a-failed"]);
}

#[test]
fn the_inbox_finds_the_store_beside_a_mailbox() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amail"))
        .arg("demo")
        .arg(dir.path())
        .env("AMAIL_HOME", dir.path().join("home"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let default = dir.path().join("elsewhere");
    let found = store_beside(&dir.path().join("mail"), default.clone());
    assert_eq!(found, dir.path().join("store"));
    // And the board it opens has the demo's tasks.
    let mut backend = RealBackend::new(dir.path().join("mail"), Default::default(), found, false);
    use amail_tui::Backend;
    assert!(!backend.tasks().unwrap().tasks.is_empty());
    // No store beside: the default.
    let lone = tempfile::tempdir().unwrap();
    std::fs::create_dir(lone.path().join("mail")).unwrap();
    assert_eq!(
        store_beside(&lone.path().join("mail"), default.clone()),
        default
    );
    // A mistyped --store is an error, before any terminal is needed.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(["inbox"])
        .arg(dir.path().join("mail"))
        .arg("--store")
        .arg(dir.path().join("nope"))
        .env("AMAIL_HOME", dir.path().join("home"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no task store at"), "{err}");
}

#[test]
fn the_roster_shows_one_state_per_agent() {
    let mut app = TestApp::sample();
    let a = &mut app.model.inbox.agents[0];
    a.state = AgentState::Idle;
    a.turn = TurnState::Running;
    let name = a.name.clone();
    app.press("w");
    let screen = app.render(160, 30);
    let row = screen.lines().find(|l| l.contains(&name)).unwrap();
    assert!(row.contains("▶ running"), "{row}");
    assert!(!row.contains("idle"), "{row}");
    assert!(
        !screen.contains(" turn "),
        "no second state column:\n{screen}"
    );
}

#[test]
fn ids_that_share_a_prefix_stay_apart() {
    let now = fixed_now();
    let mut b = InboxBuilder::new("mail");
    for (i, id) in [
        "7d3c9a10-0e4f-4c1b-9a55-3f1e2d7c9b01",
        "7d3c9a10-0e4f-4c1b-9a55-3f1e2d7c4a77",
    ]
    .into_iter()
    .enumerate()
    {
        let msg = message(
            MessageType::Progress,
            &format!("[{id}] PROGRESS"),
            "A",
            &["B"],
            id,
            now - Duration::minutes(i as i64),
            "step",
            |_| {},
        );
        b.add(&i.to_string(), msg, &[], &[]);
    }
    let mut tasks = amail_tui::testing::sample_tasks(now);
    tasks[0].id = "TASK-2026-11-24-3sEaQ1".into();
    tasks[1].id = "TASK-2026-11-24-3sEaZ9".into();
    let mut app = TestApp::new(FakeBackend::new(b.build(), tasks, now), UiConfig::default());
    for w in [60u16, 80, 120] {
        let screen = app.render(w, 20);
        assert!(screen.contains("9b01"), "{w}: {screen}");
        assert!(screen.contains("4a77"), "{w}: {screen}");
    }
    app.press("t");
    for w in [80u16, 120] {
        let screen = app.render(w, 30);
        assert!(screen.contains("3sEaQ1"), "{w}: {screen}");
        assert!(screen.contains("3sEaZ9"), "{w}: {screen}");
    }
}

/// The family in the roster: its agent and bead columns cut a long value
/// at its end, so agents and beads that share a prefix read the same
/// (`7d3c9a10-000…` for each of five handoffs), and a value as wide as
/// its column ran into the next (`7d3c9a10-000…●1 ack`).
#[test]
fn the_roster_tells_agents_and_beads_that_share_a_prefix_apart() {
    let now = fixed_now();
    let mut b = InboxBuilder::new("mail");
    for (i, (agent, id)) in crate::lookalike::PAIRS.into_iter().enumerate() {
        let msg = message(
            MessageType::HelpRequest,
            &format!("[{id}] HELP_REQUEST"),
            agent,
            &["BlueLake"],
            id,
            now - Duration::minutes(i as i64),
            "stuck",
            |_| {},
        );
        b.add(&i.to_string(), msg, &[], &[]);
    }
    let mut app = TestApp::new(
        FakeBackend::new(b.build(), Vec::new(), now),
        UiConfig::default(),
    );
    app.press("w");
    // Below 60 columns too, where the columns are narrowed to fit.
    for w in [36u16, 40, 48, 56, 80, 120, 160] {
        let screen = app.render(w, 30);
        let rows: Vec<&str> = screen
            .lines()
            .filter(|l| l.contains("needs help"))
            .collect();
        assert_eq!(rows.len(), 2, "{w}:\n{screen}");
        for (row, ends) in rows.iter().zip(crate::lookalike::ENDS) {
            crate::lookalike::assert_ends_apart(row, ends, w, &screen);
        }
    }
}

#[test]
fn clipped_pane_titles_end_in_an_ellipsis() {
    let now = fixed_now();
    let mut b = InboxBuilder::new("mail");
    let subject = "[ol-9] PROGRESS: wiring the rate limiter counters into the metrics endpoint";
    b.add(
        "1",
        message(
            MessageType::Progress,
            subject,
            "A",
            &["B"],
            "ol-9",
            now,
            "step",
            |_| {},
        ),
        &[],
        &[],
    );
    let mut app = TestApp::new(
        FakeBackend::new(b.build(), Vec::new(), now),
        UiConfig::default(),
    );
    app.press("<enter><enter>");
    let screen = app.render(60, 20);
    let title = screen.lines().find(|l| l.contains("PROGRESS ·")).unwrap();
    let after = title.split("PROGRESS ·").nth(1).unwrap();
    assert!(
        after.trim_end_matches(['"', '┓', '━', ' ']).ends_with('…'),
        "{title}"
    );
}

#[test]
fn at_60_columns_every_filter_shows_under_its_one_name() {
    let mut app = TestApp::sample();
    let narrow = app.render(60, 20);
    let wide = app.render(200, 60);
    let tabs = |s: &str| s.lines().nth(1).unwrap().to_string();
    for f in Filter::ALL {
        let name = match f {
            Filter::All => "All",
            Filter::PendingAck => "Pending",
            Filter::Help => "Help",
            Filter::InProgress => "Active",
            Filter::Failed => "Failed",
            Filter::Done => "Done",
        };
        assert!(tabs(&narrow).contains(name), "{name}: {}", tabs(&narrow));
        assert!(tabs(&wide).contains(name), "{name}: {}", tabs(&wide));
    }
    // No empty gutter: with no flag on any row shown, the badge follows the
    // cursor directly.
    app.press("5");
    let screen = app.render(60, 20);
    let row = screen.lines().find(|l| l.contains("✗ FAILED")).unwrap();
    assert!(row.starts_with("\"┃▶ ✗ FAILED"), "{row}");
}

/// The header names every screen whole at any width from 30 columns:
/// narrower than the whole header, the key hints go (the footer and `?`
/// give them), then who the inbox is read as (the status bar says it too);
/// nothing is cut mid-word.
#[test]
fn the_header_names_every_screen_whole_when_narrow() {
    let mut app = TestApp::sample();
    for key in ["i", "t", "w"] {
        app.press(key);
        for w in 30..=90u16 {
            let screen = app.render(w, 20);
            let row = screen.lines().next().unwrap().trim_matches('"').to_string();
            for name in ["Inbox", "Tasks", "Agents"] {
                assert!(row.contains(name), "{w} columns: {row:?}");
            }
            // A key hint whole or not at all.
            assert_eq!(
                row.matches('[').count(),
                row.matches(']').count(),
                "{w} columns: {row:?}"
            );
            // Who the inbox is read as, whole or not at all.
            assert!(
                row.contains("as any recipient") || !row.contains(" as "),
                "{w} columns: {row:?}"
            );
            if w >= 60 {
                assert!(
                    row.contains("[i]") && row.contains("as any recipient"),
                    "{w}: {row:?}"
                );
            }
        }
    }
}

/// Below 60 columns the tabs still name their filters whole: from 40
/// columns every name, narrower the selected one and its neighbours, with
/// `…` where tabs are left out; never a name cut mid-word.
#[test]
fn narrow_tabs_show_whole_names_and_mark_what_is_left_out() {
    let names = ["All", "Pending", "Help", "Active", "Failed", "Done"];
    let mut app = TestApp::sample();
    for key in ["1", "6", "3"] {
        app.press(key);
        let selected = names[key.parse::<usize>().unwrap() - 1];
        for w in 24..=60u16 {
            let screen = app.render(w, 20);
            let row = screen.lines().nth(1).unwrap().trim_matches('"').to_string();
            let words: Vec<&str> = row
                .split_whitespace()
                .map(|t| t.trim_matches(|c| c == '[' || c == ']'))
                .filter(|t| !t.is_empty())
                .collect();
            for word in &words {
                assert!(
                    names.contains(word) || word.parse::<usize>().is_ok() || *word == "…",
                    "{w} columns, key {key}: {word:?} in {row:?}"
                );
            }
            assert!(words.contains(&selected), "{w} columns: {row:?}");
            let shown = names.iter().filter(|n| words.contains(n)).count();
            if w >= 40 {
                assert_eq!(shown, 6, "{w} columns: {row:?}");
            } else {
                assert!(shown == 6 || words.contains(&"…"), "{w} columns: {row:?}");
            }
        }
    }
}

#[test]
fn the_help_legend_lists_every_badge_and_scrolls_with_an_indicator() {
    let long = "x".repeat(10);
    let cfg = format!("[keys]\nno_such_action_with_a_long_name_{long} = \"z\"\nalso_not_an_action_{long}_{long}_{long} = \"y\"\n");
    let config = UiConfig::from_file(
        Path::new("/home/someone/.config/amail/config.toml"),
        Some(&cfg.parse::<toml::Table>().unwrap()),
        false,
    );
    assert_eq!(config.warnings.len(), 2);
    let mut app = TestApp::new(FakeBackend::sample(), config.clone());
    app.press("?");
    let top = app.render(80, 24);
    assert!(top.contains(" of "), "{top}");
    assert!(top.contains("↓"), "{top}");
    app.press("G");
    let bottom = app.render(80, 24);
    assert!(bottom.contains("↑"), "{bottom}");
    // Every badge word, NOTE included, somewhere in the overlay.
    let mut all = String::new();
    for _ in 0..40 {
        all.push_str(&app.render(80, 24));
        app.press("k");
    }
    for w in [
        "ACCEPTED", "PROGRESS", "HELP", "ANSWER", "OFFERED", "DONE", "FAILED", "CHECKPT", "SPAWN",
        "SPAWNED", "NOTE",
    ] {
        assert!(all.contains(w), "{w} missing from the legend");
    }
    // Config problems whole (wrapped, not cut).
    let flat: String = words(&bottom).join(" ");
    for w in &config.warnings {
        for word in words(w) {
            assert!(flat.contains(&word), "{word} of {w:?} not shown:\n{bottom}");
        }
    }
}

/// The status bar's pending total and per-agent debts, now counted from
/// the threads still owed an ack, equal a count over every message: with
/// and without `--as`, before and after acks.
#[test]
fn pending_counts_equal_a_count_over_every_message() {
    let by_messages = |m: &Model| {
        let mut owed = std::collections::BTreeMap::<String, usize>::new();
        for x in m.inbox.messages.iter().filter(|x| x.message.ack_required) {
            for r in x.recipients.iter().filter(|r| r.ack_at.is_none()) {
                *owed.entry(r.agent.to_string()).or_default() += 1;
            }
        }
        let pending = match m.identity.as_deref() {
            Some(me) => owed.get(me).copied().unwrap_or(0),
            None => owed.values().sum(),
        };
        (pending, owed)
    };
    for who in [None, Some("BlueLake"), Some("PurpleBear")] {
        let mut app = match who {
            Some(me) => TestApp::sample().with_identity(me),
            None => TestApp::sample(),
        };
        for round in 0..3 {
            let (pending, owed) = by_messages(&app.model);
            let c = app.model.counts();
            assert_eq!(
                (c.pending, c.owed),
                (pending, owed),
                "{who:?} round {round}"
            );
            if round == 0 && who.is_none() {
                assert!(pending > 0, "the sample owes acks");
            }
            // Ack the selected thread (as whoever it asks), then count again.
            app.press("a");
            app.press("<Enter>");
        }
    }
}

/// Each tab's count equals the threads listed under it, the "Pending"
/// tab's equals the threads with a message someone (or `--as`) still owes
/// an ack on, counted over the messages, and every thread is in exactly one
/// of Active, Failed and Done: with and without `--as`, before and after
/// acks. (The counts are taken in one pass over the threads, each thread's
/// facts worked out once, and the pending fact from the thread's own sum.)
#[test]
fn tab_counts_equal_the_threads_each_tab_lists() {
    for who in [None, Some("BlueLake"), Some("PurpleBear")] {
        let mut app = match who {
            Some(me) => TestApp::sample().with_identity(me),
            None => TestApp::sample(),
        };
        for round in 0..3 {
            let c = app.model.counts();
            let owing = |m: &Model| {
                m.inbox
                    .threads
                    .iter()
                    .filter(|t| {
                        t.messages.iter().any(|&i| {
                            let x = &m.inbox.messages[i];
                            x.message.ack_required
                                && x.recipients.iter().any(|r| {
                                    r.ack_at.is_none() && who.is_none_or(|me| me == r.agent)
                                })
                        })
                    })
                    .count()
            };
            assert_eq!(c.filters[1], owing(&app.model), "{who:?} round {round}");
            let shown = app.model.filter;
            for (i, f) in Filter::ALL.into_iter().enumerate() {
                app.model.filter = f;
                let listed = app.model.visible_threads().len();
                assert_eq!(c.filters[i], listed, "{f:?} {who:?} round {round}");
            }
            app.model.filter = shown;
            let [all, _, _, active, failed, done] = c.filters;
            assert_eq!(all, active + failed + done, "{who:?} round {round}");
            assert_eq!(all, app.model.inbox.threads.len());
            if round == 0 && who.is_none() {
                assert!(c.filters[1] > 0 && failed > 0 && done > 0, "{c:?}");
            }
            app.press("a");
            app.press("<Enter>");
        }
    }
}

/// The help's last lines said `Config: ~/.config/amail/config.toml` when
/// no file was there, as if it had been read: a user who mistyped the
/// path in `$AMAIL_CONFIG` could not tell why their keys did nothing.
/// It now says the file is not there and the defaults are in use.
#[test]
fn the_help_says_when_the_config_file_is_not_there() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("config.toml");
    let present = dir.path().join("present.toml");
    std::fs::write(&present, "mouse = true\n").unwrap();
    for (path, text, want) in [
        (&missing, None, "(not there: built-in defaults)"),
        (&present, Some("mouse = true\n"), ""),
    ] {
        let table = text.map(|t| t.parse::<toml::Table>().unwrap());
        let config = UiConfig::from_file(path, table.as_ref(), false);
        let mut app = TestApp::new(FakeBackend::sample(), config);
        app.press("?G");
        let screen = app.render(100, 60);
        let line = screen
            .lines()
            .find(|l| l.contains("Config:"))
            .unwrap_or_else(|| panic!("{screen}"));
        assert!(
            line.contains(&format!("Config: {}", path.display())),
            "{line}"
        );
        if want.is_empty() {
            assert!(!line.contains("not there"), "{line}");
        } else {
            assert!(line.contains(want), "{line}");
        }
    }
}
