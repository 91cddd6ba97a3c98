//! The sample mailbox: realistic threads of every message type, and the
//! builder that derives threads, help state and roster the way a store's load does.

use std::borrow::Cow;
use std::path::PathBuf;

use amail_parser::{Diagnostic, Message, MessageType, Names, OwnedMessage, Parsed, Severity};
use chrono::{DateTime, Duration, TimeZone, Utc};

use amail_core::aof::TaskStatus;
use amail_core::inbox::{
    intern, Agent, AgentState, HelpState, Inbox, InboxMessage, Phase, Recipient, RecipientKind,
    SourceKind, Thread,
};
use amail_core::router::TaskSummary;

/// The fixed "now" of the sample inbox and the snapshots.
pub fn fixed_now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 4, 30, 0).unwrap()
}

pub(super) fn cow(s: &str) -> Cow<'static, str> {
    Cow::Owned(s.to_string())
}

/// A message as the parser would produce it, with `parsed` filled by `fill`.
#[allow(clippy::too_many_arguments)] // mirrors the envelope; a builder would only add noise in fixtures
pub fn message(
    kind: MessageType,
    subject: &str,
    from: &str,
    to: &[&str],
    thread: &str,
    at: DateTime<Utc>,
    body: &str,
    fill: impl FnOnce(&mut Parsed<'static>),
) -> OwnedMessage {
    let mut parsed = Parsed::default();
    if !thread.is_empty() {
        parsed.bead_id = Some(cow(thread));
    }
    fill(&mut parsed);
    Message {
        id: None,
        kind,
        // As the parser leaves it: an unknown type's word only where the
        // subject names one (the test sets it).
        raw_type: (kind != MessageType::Unknown).then(|| cow(kind.as_str())),
        is_reply: subject.starts_with("Re:"),
        subject: cow(subject),
        from: Some(cow(from)),
        to: to.iter().map(|s| cow(s)).collect(),
        cc: Names::new(),
        thread_id: Some(cow(thread)),
        timestamp: Some(at),
        ack_required: kind.ack_required_by_spec(),
        importance: cow(if kind == MessageType::HelpRequest {
            "high"
        } else {
            "normal"
        }),
        body: cow(body),
        parsed,
        diagnostics: Vec::new(),
        project: None,
        line: 1,
    }
}

/// Builds an [`Inbox`] from messages: threads by `thread_id`, recipients
/// from to/cc, help state and agent roster derived, newest thread first.
pub struct InboxBuilder {
    pub inbox: Inbox,
}

impl InboxBuilder {
    pub fn new(root: &str) -> Self {
        InboxBuilder {
            inbox: Inbox::empty(SourceKind::Mailbox {
                root: PathBuf::from(root),
            }),
        }
    }

    /// Adds a message; `acked` lists recipients who already acknowledged.
    pub fn add(&mut self, key: &str, msg: OwnedMessage, cc: &[&str], acked: &[&str]) -> &mut Self {
        let at = msg.timestamp;
        let mut recipients: Vec<Recipient> = msg
            .to
            .iter()
            .map(|a| (intern(a), RecipientKind::To))
            .chain(cc.iter().map(|&a| (intern(a), RecipientKind::Cc)))
            .map(|(agent, kind)| Recipient {
                ack_at: acked
                    .contains(&agent.as_str())
                    .then(|| at.unwrap_or_else(fixed_now) + Duration::minutes(2)),
                read_at: acked
                    .contains(&agent.as_str())
                    .then(|| at.unwrap_or_else(fixed_now) + Duration::minutes(1)),
                agent,
                kind,
            })
            .collect();
        recipients.dedup_by(|a, b| a.agent == b.agent);
        let mut msg = msg;
        msg.cc = cc.iter().map(|s| cow(s)).collect();
        push_message(&mut self.inbox, key, msg, recipients);
        self
    }

    /// `n` progress reports from Worker to Lead about ol-9.1, a minute
    /// apart from `oldest` minutes before `now`, each owed an ack by Lead:
    /// a count of owed acks wider than a column's usual few digits.
    pub fn owed_progress(&mut self, n: i64, oldest: i64, now: DateTime<Utc>) -> &mut Self {
        for i in 0..n {
            let mut msg = message(
                MessageType::Progress,
                &format!("[ol-9.1] PROGRESS: step {i}"),
                "Worker",
                &["Lead"],
                "ol-9.1",
                now - Duration::minutes(oldest - i),
                "Progress: 10%",
                |_| {},
            );
            msg.ack_required = true;
            self.add(&format!("p{i}"), msg, &[], &[]);
        }
        self
    }

    pub fn build(&mut self) -> Inbox {
        let mut inbox = self.inbox.clone();
        derive(&mut inbox);
        inbox
    }
}

/// Recomputes what a store's load derives: thread pending/help/last_at and
/// order, message→thread indices, and the agent roster.
/// Appends a message to its thread (thread id, else its own key), creating
/// the thread when it is new; `derive` fills in the rest.
pub(crate) fn push_message(
    inbox: &mut Inbox,
    key: &str,
    msg: OwnedMessage,
    recipients: Vec<Recipient>,
) {
    let thread_id = msg.thread_id.as_deref().unwrap_or(key).to_string();
    let ti = match inbox.threads.iter().position(|t| t.id == thread_id) {
        Some(i) => i,
        None => {
            inbox.threads.push(Thread {
                id: thread_id,
                project: None,
                bead: msg.bead().map(intern),
                subject: msg.subject.as_ref().into(),
                messages: Vec::new(),
                last_at: None,
                pending: 0,
                help: HelpState::None,
                phase: Phase::Active,
            });
            inbox.threads.len() - 1
        }
    };
    inbox.messages.push(InboxMessage {
        key: key.into(),
        message: msg.into(),
        path: Some(PathBuf::from(format!("mail/{key}.md")).into()),
        project: None,
        recipients: recipients.into(),
        // Set by `derive` once the threads are in order.
        thread_from_end: 0,
    });
    let mi = inbox.messages.len() - 1;
    inbox.threads[ti].messages.push(mi);
}

pub fn derive(inbox: &mut Inbox) {
    for t in inbox.threads.iter_mut() {
        let msgs: Vec<&InboxMessage> = t.messages.iter().map(|&i| &inbox.messages[i]).collect();
        t.last_at = msgs.iter().filter_map(|m| m.message.timestamp).max();
        t.pending = msgs
            .iter()
            .filter(|m| m.message.ack_required)
            .map(|m| m.recipients.iter().filter(|r| r.ack_at.is_none()).count())
            .sum();
        let mut help = HelpState::None;
        for m in &msgs {
            match m.message.kind {
                MessageType::HelpRequest if !m.message.is_reply => help = HelpState::Unanswered,
                MessageType::HelpResponse if help == HelpState::Unanswered => {
                    help = HelpState::Answered
                }
                _ if m.message.is_reply && help == HelpState::Unanswered => {
                    help = HelpState::Answered
                }
                _ => {}
            }
        }
        t.help = help;
        t.phase = Phase::of_thread(msgs.iter().rev().copied());
    }
    inbox
        .threads
        .sort_by(|a, b| b.last_at.cmp(&a.last_at).then(a.id.cmp(&b.id)));
    let last = inbox.threads.len().saturating_sub(1);
    for (ti, t) in inbox.threads.iter().enumerate() {
        for &mi in &t.messages {
            inbox.messages[mi].thread_from_end = u32::try_from(last - ti).unwrap_or(u32::MAX);
        }
    }
    let mut agents: Vec<Agent> = Vec::new();
    for (i, m) in inbox.messages.iter().enumerate() {
        let Some(from) = m.message.from else {
            continue;
        };
        let state = match m.message.kind {
            MessageType::HelpRequest => AgentState::WaitingForHelp,
            MessageType::OfferingReady | MessageType::Done => AgentState::Offered,
            MessageType::Failed => AgentState::Failed,
            MessageType::Checkpoint => AgentState::Checkpointed,
            MessageType::Progress | MessageType::BeadAccepted => AgentState::Working,
            _ => AgentState::Idle,
        };
        let entry = Agent {
            name: from.to_string(),
            state,
            bead: m.message.bead().map(|b| b.to_string()),
            last_at: m.message.timestamp,
            last_message: Some(i),
            turn: Default::default(),
            active_beads: Vec::new(),
            multiple_active: false,
        };
        match agents.iter_mut().find(|a| a.name == from) {
            Some(a) if a.last_at <= entry.last_at => *a = entry,
            Some(_) => {}
            None => agents.push(entry),
        }
    }
    // A worker whose help request got answered is working again.
    for a in agents.iter_mut() {
        if a.state == AgentState::WaitingForHelp {
            let answered = a
                .last_message
                .and_then(|i| inbox.thread_of(i))
                .map(|t| t.help == HelpState::Answered)
                .unwrap_or(false);
            if answered {
                a.state = AgentState::Working;
            }
        }
    }
    agents.sort_by(|a, b| a.name.cmp(&b.name));
    inbox.agents = agents;
    amail_core::inbox::turn::apply(inbox);
}

/// A realistic mailbox: an unanswered HELP_REQUEST (pending ack), an
/// OFFERING_READY owed two acks, a FAILED, a PROGRESS with context usage
/// and CJK text, a CHECKPOINT, an answered help thread now DONE, and a
/// note whose subject and body carry terminal escape sequences.
pub fn sample_inbox(now: DateTime<Utc>) -> Inbox {
    let ago = |m: i64| now - Duration::minutes(m);
    let mut b = InboxBuilder::new("/home/dev/demo-repo/.agent-mail");
    use MessageType::*;
    b.add(
        "1",
        message(BeadAccepted, "[ol-527.2] BEAD_ACCEPTED", "PurpleBear", &["BlueLake"], "ol-527.2", ago(95), "Accepted bead: ol-527.2\nTitle: Token refresh endpoint\nStarting implementation at: 2026-11-22T02:55:00Z\n", |p| {
            p.title = Some(cow("Token refresh endpoint"));
            p.started_at = Some(cow("2026-11-22T02:55:00Z"));
        }),
        &[],
        &[],
    );
    b.add(
        "2",
        message(Progress, "[ol-527.2] PROGRESS", "PurpleBear", &["BlueLake"], "ol-527.2", ago(40), "Bead: ol-527.2\nStep: Step 2 - wiring refresh handler\nStatus: handler compiles, expiry test red\nContext usage: 38%\nFiles touched: src/auth/refresh.rs, tests/refresh.rs\n", |p| {
            p.step = Some(cow("Step 2 - wiring refresh handler"));
            p.status = Some(cow("handler compiles, expiry test red"));
            p.context_usage = Some(38);
            p.files_touched = Some(vec![cow("src/auth/refresh.rs"), cow("tests/refresh.rs")]);
        }),
        &[],
        &[],
    );
    b.add(
        "3",
        message(HelpRequest, "[ol-527.2] HELP_REQUEST", "PurpleBear", &["BlueLake"], "ol-527.2", ago(12), "Bead: ol-527.2\nIssue Type: SPEC_UNCLEAR\n\n## Problem\nThe spec says refresh tokens expire after 15 minutes, but src/auth/refresh.rs issues 24 h tokens and two tests depend on that.\n\n## What I Tried\n- Changed the TTL to 15 min: tests/refresh.rs fails in 2 places\n- Searched the ADRs for a decision: none\n\n## Files Touched\n- src/auth/refresh.rs\n\n## Question\nShould I change the endpoint to match the spec, or is the spec out of date?\n", |p| {
            p.issue_type = Some(cow("SPEC_UNCLEAR"));
            p.problem = Some(cow("The spec says refresh tokens expire after 15 minutes, but src/auth/refresh.rs issues 24 h tokens and two tests depend on that."));
            p.what_tried = Some(cow("- Changed the TTL to 15 min: tests/refresh.rs fails in 2 places\n- Searched the ADRs for a decision: none"));
            p.question = Some(cow("Should I change the endpoint to match the spec, or is the spec out of date?"));
            p.files_touched = Some(vec![cow("src/auth/refresh.rs")]);
        }),
        &[],
        &[],
    );
    b.add(
        "4",
        message(OfferingReady, "[ol-527.1] OFFERING_READY", "GreenCastle", &["BlueLake"], "ol-527.1", ago(25), "Bead: ol-527.1\nStatus: DONE\n\n## Changes\n- Commit: 9f3c2ab\n- Files: src/auth/login.rs, src/auth/session.rs\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: PASS\n\n## Summary\nLogin flow with PKCE; sessions stored server-side.\n", |p| {
            p.status = Some(cow("DONE"));
            p.commit_sha = Some(cow("9f3c2ab"));
            p.files = Some(vec![cow("src/auth/login.rs"), cow("src/auth/session.rs")]);
            p.tests_pass = Some(true);
            p.lint_pass = Some(true);
            p.build_pass = Some(true);
            p.summary = Some(cow("Login flow with PKCE; sessions stored server-side."));
        }),
        &["HumanOverseer"],
        &[],
    );
    b.add(
        "5",
        message(Failed, "[ol-530] FAILED", "RedFox", &["BlueLake"], "ol-530", ago(180), "Bead: ol-530\nStatus: FAILED\n\n## Failure\nType: TESTS_FAIL\nReason: migration 0042 deadlocks under the parallel test runner\nInternal Attempts: 3\n\n## Partial Progress\n- Commit: 1b2c3d4\n\n## Recommendation\nRun the migration tests serially, or split 0042 into two migrations.\n", |p| {
            p.status = Some(cow("FAILED"));
            p.failure_type = Some(cow("TESTS_FAIL"));
            p.reason = Some(cow("migration 0042 deadlocks under the parallel test runner"));
            p.internal_attempts = Some(3);
            p.partial_commit_sha = Some(cow("1b2c3d4"));
            p.recommendation = Some(cow("Run the migration tests serially, or split 0042 into two migrations."));
        }),
        &[],
        &[],
    );
    b.add(
        "6",
        message(Progress, "[ol-531] PROGRESS", "OrangeOwl", &["BlueLake"], "ol-531", ago(3), "Bead: ol-531\nStep: Step 4 - 国际化 (i18n) strings\nStatus: 正在翻译错误信息 — 测试通过 ✅\nContext usage: 72%\nFiles touched: locales/zh-CN.ftl, src/i18n.rs\n", |p| {
            p.step = Some(cow("Step 4 - 国际化 (i18n) strings"));
            p.status = Some(cow("正在翻译错误信息 — 测试通过 ✅"));
            p.context_usage = Some(72);
            p.files_touched = Some(vec![cow("locales/zh-CN.ftl"), cow("src/i18n.rs")]);
        }),
        &[],
        &[],
    );
    b.add(
        "7",
        message(Checkpoint, "[ol-528] CHECKPOINT", "SilverWolf", &["BlueLake"], "ol-528", ago(55), "Bead: ol-528\nReason: CONTEXT_HIGH\n\n## Progress\n- Commit: 77aa0e1\n- Description: rate limiter middleware done, metrics not wired\n- Context usage: 91%\n\n## Next Steps for Successor\nWire the limiter counters into /metrics and add the 429 test.\n", |p| {
            p.checkpoint_reason = Some(cow("CONTEXT_HIGH"));
            p.partial_commit_sha = Some(cow("77aa0e1"));
            p.progress = Some(cow("rate limiter middleware done, metrics not wired"));
            p.context_usage = Some(91);
            p.next_steps = Some(cow("Wire the limiter counters into /metrics and add the 429 test."));
        }),
        &[],
        &[],
    );
    b.add(
        "8",
        message(HelpRequest, "[ol-529] HELP_REQUEST", "GreenCastle", &["BlueLake"], "ol-529", ago(300), "Bead: ol-529\nIssue Type: BLOCKED\n\n## Problem\nCI has no Postgres service.\n\n## Question\nMay I add one to the workflow?\n", |p| {
            p.issue_type = Some(cow("BLOCKED"));
            p.problem = Some(cow("CI has no Postgres service."));
            p.question = Some(cow("May I add one to the workflow?"));
        }),
        &[],
        &["BlueLake"],
    );
    b.add(
        "9",
        message(
            HelpResponse,
            "[ol-529] HELP_RESPONSE",
            "BlueLake",
            &["GreenCastle"],
            "ol-529",
            ago(290),
            "Yes: use the postgres:16 service container, as in api/.",
            |p| {
                p.guidance = Some(cow(
                    "Yes: use the postgres:16 service container, as in api/.",
                ));
            },
        ),
        &[],
        &[],
    );
    b.add(
        "10",
        message(Done, "[ol-529] DONE", "GreenCastle", &["BlueLake"], "ol-529", ago(240), "Bead: ol-529\nStatus: DONE\n\n## Self-Validation\n- Tests: PASS\n- Lint: FAIL\n\n## Summary\nCI runs Postgres 16; one clippy lint left for later.\n", |p| {
            p.status = Some(cow("DONE"));
            p.tests_pass = Some(true);
            p.lint_pass = Some(false);
            p.summary = Some(cow("CI runs Postgres 16; one clippy lint left for later."));
        }),
        &[],
        &[],
    );
    let mut hostile = message(
        Unknown,
        "status \x1b]0;pwned\x07update \x1b[31mred\x1b[0m",
        "Mal\x1b[5mlory",
        &["BlueLake"],
        "ol-666",
        ago(8),
        "Café au lait e\u{301} 🚀 done.\n\x1b[2J\x1b[Hscreen wiped?\nclipboard \x1b]52;c;cm0gLXJmIH4=\x07 set?\nlink \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ here\nbidi \u{202E}txt.exe\u{202C} and bell\x07 done\n",
        |_| {},
    );
    hostile.diagnostics.push(Diagnostic {
        severity: Severity::Warning,
        line: 1,
        column: 1,
        code: Cow::Borrowed("unknown-type"),
        message: "no message type in the subject".into(),
    });
    b.add("11", hostile, &[], &[]);
    b.build()
}

/// Tasks the router would hold for the sample inbox, one per status.
pub fn sample_tasks(now: DateTime<Utc>) -> Vec<TaskSummary> {
    let t =
        |id: &str, title: &str, status: TaskStatus, bead: &str, agent: Option<&str>, mins: i64| {
            TaskSummary {
                id: id.into(),
                title: title.into(),
                status,
                bead: Some(bead.into()),
                agent: agent.map(String::from),
                updated_at: Some(now - Duration::minutes(mins)),
            }
        };
    vec![
        t(
            "TASK-527-2",
            "Token refresh endpoint",
            TaskStatus::Blocked,
            "ol-527.2",
            Some("PurpleBear"),
            12,
        ),
        t(
            "TASK-527-1",
            "Login flow with PKCE",
            TaskStatus::Review,
            "ol-527.1",
            Some("GreenCastle"),
            25,
        ),
        t(
            "TASK-530",
            "Migration 0042",
            TaskStatus::Deadletter,
            "ol-530",
            Some("RedFox"),
            180,
        ),
        t(
            "TASK-531",
            "Localise error messages",
            TaskStatus::InProgress,
            "ol-531",
            Some("OrangeOwl"),
            3,
        ),
        t(
            "TASK-528",
            "Rate limiter metrics",
            TaskStatus::Ready,
            "ol-528",
            None,
            55,
        ),
        t(
            "TASK-529",
            "Postgres in CI",
            TaskStatus::Done,
            "ol-529",
            Some("GreenCastle"),
            240,
        ),
        t(
            "TASK-532",
            "Audit log export",
            TaskStatus::Backlog,
            "ol-532",
            None,
            600,
        ),
        t(
            "TASK-534",
            "Legacy SOAP bridge",
            TaskStatus::Cancelled,
            "ol-534",
            None,
            2000,
        ),
    ]
}
