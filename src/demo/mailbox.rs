//! `amail demo`: a realistic plain mailbox to try every view on.
//!
//! One "wave" of a crank/swarm run: an orchestrator (BlueLake), a helper
//! (Chiron) and four workers on six beads, using every protocol message
//! type, with pending acks, an answered and an unanswered help request, a
//! failure, a checkpoint, a spawn and non-ASCII text. Everything is derived
//! from the `now` passed in, so a fixed clock gives the same bytes (the TUI
//! snapshots rely on it).
//!
//! The script is data ([`DemoMail`] values from [`demo_mails`]); a larger
//! corpus is more waves with renumbered beads (see `waves`). The mail is
//! then routed into an AOF task store beside it (`DIR/store`), so the task
//! board has something to show too.

use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, DurationRound, TimeDelta, Utc};

use amail_core::stores::mailbox::journal::{self, JournalEntry};
use amail_core::stores::mailbox::{render_spec_text, SpecMail};

/// One demo message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoMail {
    pub id: String,
    pub from: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub thread: String,
    pub at: DateTime<Utc>,
    pub subject: String,
    pub body: String,
    pub ack_required: bool,
    pub importance: String,
    /// Recipients who have acknowledged it (recorded in the ack journal).
    pub acked_by: Vec<String>,
}

/// What `write_demo` wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DemoInfo {
    /// The folder given (or made).
    pub root: PathBuf,
    /// The plain mailbox: `<root>/mail`.
    pub mailbox: PathBuf,
    /// Where the AOF store goes: `<root>/store`.
    pub store: PathBuf,
    pub messages: usize,
    pub agents: Vec<String>,
    pub beads: Vec<String>,
}

/// Writes the demo mailbox under `dir` (created if needed), now.
pub fn write_demo(dir: &Path) -> io::Result<DemoInfo> {
    write_demo_at(dir, Utc::now())
}

/// [`write_demo`] with a fixed clock: same `now`, same files.
pub fn write_demo_at(dir: &Path, now: DateTime<Utc>) -> io::Result<DemoInfo> {
    write_demo_waves(dir, now, 1)
}

/// `waves` copies of the scenario with distinct beads (issue 6 scales this).
pub fn write_demo_waves(dir: &Path, now: DateTime<Utc>, waves: usize) -> io::Result<DemoInfo> {
    let now = now.duration_trunc(TimeDelta::seconds(1)).unwrap_or(now);
    let mailbox = dir.join("mail");
    let store = dir.join("store");
    // Both folders, before anything is written: the demo's mail routed
    // into a store already there would move its tasks.
    for folder in [&mailbox, &store] {
        if folder.exists() && std::fs::read_dir(folder)?.next().is_some() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{}: not empty; the demo only writes into a fresh folder",
                    folder.display()
                ),
            ));
        }
    }
    let mails = demo_mails(now, waves);
    for (n, m) in mails.iter().enumerate() {
        let text = render_spec_text(&SpecMail {
            id: &m.id,
            from: &m.from,
            to: &m.to,
            thread: &m.thread,
            date: m.at,
            subject: &m.subject,
            body: &m.body,
            ack_required: m.ack_required,
            importance: &m.importance,
        });
        let text = if m.cc.is_empty() {
            text
        } else {
            // Cc goes with the other envelope headers, after To.
            let to_line = format!("To: {}\n", m.to.join(", "));
            text.replacen(&to_line, &format!("{to_line}Cc: {}\n", m.cc.join(", ")), 1)
        };
        let slug = amail_core::stores::names::subject_slug(&m.subject);
        let path = mailbox
            .join(&m.from)
            .join(format!("{:03}-{slug}.md", n + 1));
        amail_core::fsio::write_new(&path, text.as_bytes()).map_err(|e| to_io(e.into()))?;
    }
    // Acks: a little after each message.
    for m in &mails {
        for agent in &m.acked_by {
            let at = m.at + Duration::minutes(3);
            journal::append(
                &mailbox,
                JournalEntry {
                    key: m.id.clone(),
                    id: Some(m.id.clone()),
                    agent: agent.clone(),
                    ack_at: Some(at),
                    read_at: at,
                },
            )
            .map_err(to_io)?;
        }
    }
    let mut agents: Vec<String> = mails
        .iter()
        .flat_map(|m| std::iter::once(&m.from).chain(&m.to).chain(&m.cc))
        .cloned()
        .collect();
    agents.sort();
    agents.dedup();
    let mut beads: Vec<String> = mails
        .iter()
        .map(|m| m.thread.clone())
        .filter(|t| t.starts_with("ol-"))
        .collect();
    beads.sort();
    beads.dedup();
    super::protocols::write_protocol_demo(&mailbox, now)?;
    route_into_store(&mailbox, &store)?;
    Ok(DemoInfo {
        root: dir.to_path_buf(),
        mailbox,
        store,
        messages: mails.len(),
        agents,
        beads,
    })
}

/// Routes the demo's mailbox into the AOF store at `store` (created),
/// through the router, the only writer of a task store: what `amail
/// route MAILBOX --store STORE` routes (its handoff and A2A files with
/// its mail), so routing it again changes nothing.
fn route_into_store(mailbox: &Path, store: &Path) -> io::Result<()> {
    use amail_core::router::{Router, RouterOptions, Store};
    use amail_core::source::inputs::{self, InputOptions};
    let inputs = inputs::collect(
        &[mailbox.to_path_buf()],
        &InputOptions {
            // The demo's own files, all far below the default limit.
            max_bytes: amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES,
        },
    )
    .map_err(|e| io::Error::new(e.error.kind(), format!("{}: {}", e.path.display(), e.error)))?;
    let router_io =
        |e: amail_core::router::StoreError| io::Error::other(format!("{}: {e}", store.display()));
    let router = Router::new(
        Store::open(store).map_err(router_io)?,
        RouterOptions {
            create_missing: true,
        },
    );
    for item in &inputs.items {
        router
            .route(&amail_core::bridge::routable(item))
            .map_err(router_io)?;
    }
    // One flush makes the whole batch durable.
    router.store.checkpoint().map_err(router_io)
}

fn to_io(e: amail_core::stores::Error) -> io::Error {
    match e {
        amail_core::stores::Error::Io { source, path } => {
            io::Error::new(source.kind(), format!("{}: {source}", path.display()))
        }
        other => io::Error::other(other.to_string()),
    }
}

const ORCH: &str = "BlueLake";
const HELPER: &str = "Chiron";

/// The scenario, oldest first, ending about five minutes before `now`.
pub fn demo_mails(now: DateTime<Utc>, waves: usize) -> Vec<DemoMail> {
    let mut out = Vec::new();
    for w in 0..waves.max(1) {
        // Later waves are older: wave 0 is the one on screen.
        let start = now - Duration::minutes(180) - Duration::hours(4 * w as i64);
        out.extend(wave(w, start));
    }
    out.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id)));
    out
}

fn wave(w: usize, start: DateTime<Utc>) -> Vec<DemoMail> {
    let epic = 527 + w;
    let bead = |n: u32| format!("ol-{epic}.{n}");
    let id = |n: u32| {
        if w == 0 {
            format!("demo-{n:02}")
        } else {
            format!("demo-w{w}-{n:02}")
        }
    };
    let mut seq = 0u32;
    let mut mails = Vec::new();
    let mut add =
        |minute: i64, from: &str, to: &[&str], cc: &[&str], b: &str, ty: &str, body: String| {
            seq += 1;
            let ty_token = ty.trim_start_matches("Re: ");
            let ack = matches!(
                ty_token,
                "HELP_REQUEST" | "OFFERING_READY" | "SPAWN_REQUEST"
            );
            mails.push(DemoMail {
                id: id(seq),
                from: from.into(),
                to: to.iter().map(|s| s.to_string()).collect(),
                cc: cc.iter().map(|s| s.to_string()).collect(),
                thread: b.to_string(),
                at: start + Duration::minutes(minute),
                subject: if b.is_empty() {
                    ty.to_string()
                } else {
                    format!("[{b}] {ty}")
                },
                body,
                ack_required: ack,
                importance: if ty_token == "HELP_REQUEST" || ty_token == "FAILED" {
                    "high".into()
                } else {
                    "normal".into()
                },
                acked_by: Vec::new(),
            });
        };
    let (b1, b2, b3, b4, b5, b6) = (bead(1), bead(2), bead(3), bead(4), bead(5), bead(6));
    // ol-x.1: GreenCastle, offered, waiting for the orchestrator's ack.
    add(
        0,
        "GreenCastle",
        &[ORCH],
        &[],
        &b1,
        "BEAD_ACCEPTED",
        format!(
            "Accepted bead: {b1}\nTitle: Add token auth to the API\nStarting implementation at: {}",
            rfc(start)
        ),
    );
    // ol-x.2: PurpleBear, helped (answered and acked), done.
    add(
        2,
        "PurpleBear",
        &[ORCH],
        &[],
        &b2,
        "BEAD_ACCEPTED",
        format!(
            "Accepted bead: {b2}\nTitle: Migrate users schema\nStarting implementation at: {}",
            rfc(start + Duration::minutes(2))
        ),
    );
    add(
        4,
        "RedStone",
        &[ORCH],
        &[],
        &b3,
        "BEAD_ACCEPTED",
        format!(
            "Accepted bead: {b3}\nTitle: Wire payments webhook\nStarting implementation at: {}",
            rfc(start + Duration::minutes(4))
        ),
    );
    add(6, "SilverFox", &[ORCH], &[], &b4, "BEAD_ACCEPTED", format!(
        "Accepted bead: {b4}\nTitle: Localise error messages (Übersetzung, 日本語)\nStarting implementation at: {}", rfc(start + Duration::minutes(6))));
    add(20, "GreenCastle", &[ORCH], &[], &b1, "PROGRESS", format!(
        "Bead: {b1}\nStep: Step 2 - token middleware\nStatus: writing middleware\nContext usage: 22%\nFiles touched: src/auth/mod.rs, src/auth/token.rs"));
    add(24, "PurpleBear", &[ORCH], &[], &b2, "PROGRESS", format!(
        "Bead: {b2}\nStep: Step 2 - writing migration\nStatus: drafting SQL\nContext usage: 30%\nFiles touched: migrations/0042_users.sql"));
    add(31, "PurpleBear", &[HELPER], &[ORCH], &b2, "HELP_REQUEST", format!(
        "Bead: {b2}\nIssue Type: SPEC_UNCLEAR\n\n## Problem\nThe spec does not say whether `users.email` must stay unique after the migration.\n\n## What I Tried\n- Read docs/schema.md\n- Grepped for unique constraints\n\n## Files Touched\n- migrations/0042_users.sql\n- src/db/users.rs\n\n## Question\nKeep the UNIQUE index on users.email, or drop it?"));
    add(38, HELPER, &["PurpleBear"], &[], &b2, "HELP_RESPONSE",
        "Keep the UNIQUE index on users.email and add a backfill step that merges duplicates first (keep the oldest row).".to_string());
    add(45, "SilverFox", &[ORCH], &[], &b4, "PROGRESS", format!(
        "Bead: {b4}\nStep: Step 3 - translating messages\nStatus: 140 of 212 strings done — „Fehler beim Speichern“, 「保存に失敗しました」\nContext usage: 81%\nFiles touched: locales/de.ftl, locales/ja.ftl"));
    add(52, "RedStone", &[ORCH], &[], &b3, "PROGRESS", format!(
        "Bead: {b3}\nStep: Step 1 - webhook endpoint\nStatus: waiting on sandbox credentials\nContext usage: 18%\nFiles touched: src/payments/webhook.rs"));
    add(58, "RedStone", &[HELPER], &[], &b3, "HELP_REQUEST", format!(
        "Bead: {b3}\nIssue Type: BLOCKED\n\n## Problem\nThe payment provider sandbox rejects our test key (HTTP 401).\n\n## What I Tried\n- Regenerated the key in the dashboard\n- Checked the clock skew on the runner\n\n## Files Touched\n- src/payments/webhook.rs\n\n## Question\nWho can issue a sandbox key for the CI account?"));
    add(64, "SilverFox", &[ORCH], &[], &b4, "CHECKPOINT", format!(
        "Bead: {b4}\nReason: CONTEXT_HIGH\n\n## Progress\n- Commit: 5e1a9c0\n- Description: de and ja done; fr, es pending\n- Context usage: 92%\n\n## Next Steps for Successor\n1. Translate locales/fr.ftl and locales/es.ftl\n2. Run `cargo test -p i18n`"));
    add(70, "GreenCastle", &[ORCH], &[], &b1, "PROGRESS", format!(
        "Bead: {b1}\nStep: Step 5 - fixing failing test\nStatus: 1 test failing (token expiry)\nContext usage: 58%\nFiles touched: src/auth/token.rs, tests/auth.rs"));
    add(76, "PurpleBear", &[ORCH], &[], &b2, "DONE", format!(
        "Bead: {b2}\nStatus: DONE\n\n## Changes\n- Commit: 9bd01e4\n- Files: migrations/0042_users.sql, src/db/users.rs\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: PASS\n\n## Summary\nUsers migration with an email backfill that keeps the oldest row."));
    add(
        82,
        ORCH,
        &[HELPER],
        &[],
        &b6,
        "SPAWN_REQUEST",
        format!("Issue: {b6}\nResume: false\nOrchestrator: {ORCH}"),
    );
    add(
        85,
        HELPER,
        &[ORCH],
        &[],
        &b6,
        "SPAWN_ACK",
        format!("Issue: {b6}\nStatus: spawned\nSession: demigod-{b6}"),
    );
    add(88, "GreenCastle", &[ORCH], &[], &b1, "OFFERING_READY", format!(
        "Bead: {b1}\nStatus: DONE\n\n## Changes\n- Commit: 3f2c9ab\n- Files: src/auth/mod.rs, src/auth/token.rs, tests/auth.rs\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: PASS\n\n## Summary\nToken auth middleware with an expiry check."));
    add(95, "PurpleBear", &[ORCH], &[], &b6, "BEAD_ACCEPTED", format!(
        "Accepted bead: {b6}\nTitle: Resume SilverFox's localisation (fr, es)\nStarting implementation at: {}", rfc(start + Duration::minutes(95))));
    add(100, "GreenCastle", &[ORCH], &[], &b5, "BEAD_ACCEPTED", format!(
        "Accepted bead: {b5}\nTitle: Rate-limit the login endpoint\nStarting implementation at: {}", rfc(start + Duration::minutes(100))));
    add(140, "GreenCastle", &[ORCH], &[], &b5, "FAILED", format!(
        "Bead: {b5}\nStatus: FAILED\n\n## Failure\nType: TESTS_FAIL\nReason: the limiter's window test is flaky under load (3 of 10 runs fail)\nInternal Attempts: 3\n\n## Partial Progress\n- Commit: a71c2d3\n- Files: src/auth/limit.rs\n\n## Recommendation\nSplit the window test from the load test and give the limiter an injectable clock."));
    add(150, "PurpleBear", &[ORCH], &[], &b6, "PROGRESS", format!(
        "Bead: {b6}\nStep: Step 1 - French strings\nStatus: « Échec de l’enregistrement » and 60 more\nContext usage: 35%\nFiles touched: locales/fr.ftl"));
    add(172, ORCH, &["GreenCastle", "PurpleBear", "RedStone", "SilverFox"], &[HELPER], "", "Wave status",
        format!("{b2} is done, {b1} is offered for review, {b5} failed (see the recommendation), {b3} is blocked on credentials. Keep going."));
    // Acks: the helper acked the help request it answered and the spawn
    // request; the orchestrator (cc) never acked the help request, and the
    // offering and the blocked help request wait for theirs.
    for m in &mut mails {
        if m.subject.ends_with("HELP_REQUEST") && m.thread == b2 {
            m.acked_by.push(HELPER.into());
        }
        if m.subject.ends_with("SPAWN_REQUEST") {
            m.acked_by.push(HELPER.into());
        }
    }
    mails
}

fn rfc(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
