//! The mail bridge: one Agent Mail message -> at most one AOF/1 envelope.
//!
//! The mapping is the design's table and nothing more:
//!
//! | Agent Mail | AOF type | payload |
//! |---|---|---|
//! | BEAD_ACCEPTED | status.update | status `in-progress`, progress `accepted: <title>` |
//! | PROGRESS | status.update | progress `<step>: <status>`, notes `context <n>%; files: <list>` |
//! | HELP_REQUEST | status.update | blockers `[<issue type>: <problem first line>]`, notes = question; status `blocked` only for BLOCKED |
//! | HELP_RESPONSE | status.update | notes = the guidance |
//! | OFFERING_READY | completion.report | outcome `needs_review` |
//! | DONE | completion.report | `done`, or `needs_review` if a self-validation check is FAIL |
//! | FAILED | completion.report | `blocked`, blockers `[<failure type>: <reason>]`, notes = recommendation |
//! | CHECKPOINT | completion.report | `partial`, notes = progress + next steps |
//! | SPAWN_REQUEST, SPAWN_ACK | status.update | notes recording the spawn |
//! | anything else | none | stays in the inbox |
//!
//! Completion reports: `deliverables` = the files listed; `tests` counts
//! only the checks the mail reported (`total` present, `passed` PASS,
//! `failed` FAIL); `summaryRef` is `outputs/summary.md`, where the router
//! writes the mail's `## Summary`, and empty when the mail has none (a FAILED
//! or CHECKPOINT usually): a reference to a file nobody writes would only
//! make the router warn `summary_file_not_found` about its own report.
//! `notes` may be empty. A reply that is not a HELP_RESPONSE, a message
//! without a bead, and unknown types yield `None`.
//!
//! Bead ids are not task ids: the router maps beads to tasks. [`routable`]
//! therefore leaves the envelope's task unassigned and says which bead it
//! is about and how to create its task; [`to_envelope_standalone`] derives
//! the id the router would give a bead first seen that day, for
//! `amail parse --format aof` where no store is at hand.

use amail_parser::{Message, MessageType};
use chrono::{DateTime, SecondsFormat, Utc};
use sha2::{Digest, Sha256};

use crate::aof::{
    task_id, CompletionReport, Delivery, Envelope, NewTask, Outcome, Payload, Routable,
    StatusUpdate, TaskRef, TaskStatus, TestReport,
};

/// Where completion summaries are written, relative to the task directory.
pub(crate) const SUMMARY_REF: &str = "outputs/summary.md";

/// Whether this message produces an AOF event at all.
pub(crate) fn is_bridged(msg: &Message<'_>) -> bool {
    match msg.kind {
        MessageType::Unknown => false,
        MessageType::HelpResponse => bead_of(msg).is_some(),
        // A reply in a thread (e.g. `Re: [x] HELP_REQUEST` with no
        // HELP_RESPONSE body) is conversation, not a new report.
        _ if msg.is_reply => false,
        _ => bead_of(msg).is_some(),
    }
}

/// The bead a message is about. A HELP_RESPONSE that names none belongs to
/// its thread, whose id is the bead's in Agent Mail's convention.
pub(crate) fn bead_of(msg: &Message<'_>) -> Option<String> {
    let b = msg.bead().map(str::trim).filter(|b| !b.is_empty());
    match b {
        Some(b) => Some(b.to_string()),
        None if msg.kind == MessageType::HelpResponse => msg
            .thread_id
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string),
        None => None,
    }
}

/// The worker a task for this bead belongs to: the sender, except for a
/// HELP_RESPONSE (sent *to* the worker) and spawn traffic (no worker yet).
pub fn worker_of(msg: &Message<'_>) -> Option<String> {
    match msg.kind {
        MessageType::HelpResponse => msg.to.first().map(|s| s.to_string()),
        MessageType::SpawnRequest | MessageType::SpawnAck => None,
        _ => msg.from.as_deref().map(str::to_string),
    }
}

/// A task title, the best this message knows: BEAD_ACCEPTED's `Title:`,
/// else the subject's own words ([`subject_title`]: "[ol-3] PROGRESS:
/// wiring the login page" is "wiring the login page"), else the bead (a
/// subject that is only bead and type, "[ol-527.6] SPAWN_REQUEST", says
/// nothing a title could).
pub(crate) fn title_of(msg: &Message<'_>) -> String {
    if let Some(t) = stated_title(msg) {
        return t;
    }
    let bead = bead_of(msg);
    let t = subject_title(&msg.subject, bead.as_deref());
    if !t.is_empty() {
        return t;
    }
    bead.unwrap_or_else(|| msg.kind.as_str().to_string())
}

/// The title a message states: a `Title:` field (BEAD_ACCEPTED's).
fn stated_title(msg: &Message<'_>) -> Option<String> {
    nonempty(msg.parsed.title.as_deref())
}

/// Words that only join the subject's parts ("OFFERING READY for ol-9.4"):
/// dropped at either end of what is left.
const JOINERS: [&str; 9] = ["for", "on", "of", "in", "to", "about", "from", "at", "re"];

/// The words of a subject that are neither its reply chain, its bead nor
/// its type, nor decoration (words without a letter or digit: `✅`, `-`),
/// nor joining words at either end. Empty when nothing is left.
pub(crate) fn subject_title(subject: &str, bead: Option<&str>) -> String {
    let mut words: Vec<&str> = subject.split_whitespace().collect();
    // The reply chain, also written without a space (`Re:[x] ...`).
    while let Some(first) = words.first().copied() {
        let lower = first.to_ascii_lowercase();
        let Some(len) = ["re:", "fwd:", "fw:"]
            .iter()
            .find(|p| lower.starts_with(*p))
            .map(|p| p.len())
        else {
            break;
        };
        match &first[len..] {
            "" => {
                words.remove(0);
            }
            rest => words[0] = rest,
        }
    }
    // The bead where the subject grammar reads it: `[bead]` first.
    if words
        .first()
        .is_some_and(|w| w.starts_with('[') && w.ends_with(']'))
    {
        words.remove(0);
    }
    // The type: the first word, or pair of words, that names one; a
    // `bead:` just before it goes with it.
    let punct: &[char] = &[':', '.', ',', ';', '!'];
    let is_type = |s: &str| MessageType::from_token(s.trim_end_matches(punct)).is_some();
    let found = (0..words.len()).find_map(|i| {
        if i + 1 < words.len() && is_type(&format!("{} {}", words[i], words[i + 1])) {
            Some((i, 2))
        } else {
            is_type(words[i]).then_some((i, 1))
        }
    });
    if let Some((i, n)) = found {
        words.drain(i..i + n);
        if i == 1 && words[0].ends_with(':') {
            words.remove(0);
        }
    }
    let trim: &[char] = &['[', ']', '(', ')', ':', '.', ',', ';', '!', '?'];
    words.retain(|w| {
        let core = w.trim_matches(trim);
        Some(core) != bead && w.chars().any(char::is_alphanumeric)
    });
    let joiner = |w: &&str| JOINERS.contains(&w.trim_matches(trim).to_lowercase().as_str());
    while words.first().is_some_and(joiner) {
        words.remove(0);
    }
    while words.last().is_some_and(joiner) {
        words.pop();
    }
    words.join(" ")
}

/// The title an existing task should take from this message, which knows
/// it for certain: BEAD_ACCEPTED's `Title:` (a task created from an earlier
/// message, a SPAWN_REQUEST or a PROGRESS, was titled from its subject).
pub(crate) fn retitle_of(msg: &Message<'_>) -> Option<String> {
    (msg.kind == MessageType::BeadAccepted)
        .then(|| stated_title(msg))
        .flatten()
}

/// The summary text a completion writes to `outputs/summary.md`.
pub(crate) fn summary_of(msg: &Message<'_>) -> Option<String> {
    msg.parsed
        .summary
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The key routing dedupes on: the mcp_agent_mail project and message id
/// (ids are unique per project there); for mail from elsewhere the id plus
/// sender and time (plain mailboxes may reuse small ids); with no id, a
/// hash of sender, time, subject and body.
pub fn dedupe_key(msg: &Message<'_>) -> String {
    let project = msg.project.as_deref().unwrap_or("");
    match msg.id.as_deref() {
        Some(id) if !project.is_empty() => format!("mail:{project}:{id}"),
        Some(id) => format!(
            "mail::{id}:{}:{}",
            msg.from.as_deref().unwrap_or(""),
            msg.timestamp.map(|t| t.to_rfc3339()).unwrap_or_default()
        ),
        None => {
            let mut h = Sha256::new();
            for part in [
                msg.from.as_deref().unwrap_or(""),
                &msg.timestamp.map(|t| t.to_rfc3339()).unwrap_or_default(),
                &msg.subject,
                &msg.body,
            ] {
                h.update(part.as_bytes());
                h.update([0]);
            }
            let hex: String = h
                .finalize()
                .iter()
                .take(16)
                .map(|b| format!("{b:02x}"))
                .collect();
            format!("mail:{project}:sha:{hex}")
        }
    }
}

/// The mail's creation time, as `sentAt` (UTC, milliseconds, `Z`).
pub fn sent_at(msg: &Message<'_>) -> String {
    let t: DateTime<Utc> = msg.timestamp.unwrap_or_else(Utc::now);
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn first_line(s: &str) -> &str {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

fn nonempty(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Builds the envelope for `msg` addressed to task `task_id`, or `None` when
/// the message stays in the inbox only.
pub fn to_envelope(msg: &Message<'_>, task_id: &str) -> Option<Envelope> {
    if !is_bridged(msg) {
        return None;
    }
    let from = nonempty(msg.from.as_deref()).unwrap_or_else(|| "unknown".into());
    let to = msg
        .to
        .first()
        .and_then(|t| nonempty(Some(t)))
        .unwrap_or_else(|| "dispatcher".into());
    let p = &msg.parsed;
    let update = |status: Option<TaskStatus>,
                  progress: Option<String>,
                  blockers: Option<Vec<String>>,
                  notes: Option<String>| {
        if status.is_none() && progress.is_none() && blockers.is_none() && notes.is_none() {
            return None;
        }
        Some(Payload::StatusUpdate(StatusUpdate {
            task_id: task_id.to_string(),
            agent_id: from.clone(),
            status,
            progress,
            blockers,
            notes,
        }))
    };
    let payload = match msg.kind {
        MessageType::BeadAccepted => update(
            Some(TaskStatus::InProgress),
            Some(format!("accepted: {}", title_of(msg))),
            None,
            None,
        ),
        MessageType::Progress => {
            let progress = match (nonempty(p.step.as_deref()), nonempty(p.status.as_deref())) {
                (Some(step), Some(st)) => Some(format!("{step}: {st}")),
                (a, b) => a.or(b),
            };
            let mut notes = Vec::new();
            if let Some(n) = p.context_usage {
                notes.push(format!("context {n}%"));
            }
            if let Some(files) = p.files_touched.as_ref().filter(|f| !f.is_empty()) {
                notes.push(format!("files: {}", files.join(", ")));
            }
            let notes = (!notes.is_empty()).then(|| notes.join("; "));
            update(None, progress, None, notes)
        }
        MessageType::HelpRequest => {
            let issue = nonempty(p.issue_type.as_deref());
            let problem = p
                .problem
                .as_deref()
                .map(first_line)
                .filter(|l| !l.is_empty());
            let blocker = match (&issue, problem) {
                (Some(i), Some(pr)) => Some(format!("{i}: {pr}")),
                (Some(i), None) => Some(i.clone()),
                (None, Some(pr)) => Some(pr.to_string()),
                (None, None) => None,
            };
            let status = issue
                .as_deref()
                .filter(|i| i.eq_ignore_ascii_case("BLOCKED"))
                .map(|_| TaskStatus::Blocked);
            update(
                status,
                None,
                blocker.map(|b| vec![b]),
                nonempty(p.question.as_deref()),
            )
        }
        MessageType::HelpResponse => {
            let guidance = nonempty(p.guidance.as_deref()).or_else(|| {
                // No parsed guidance: the body, less a leading type line.
                let body = msg.body.trim();
                let body = match body.split_once('\n') {
                    Some((first, rest)) if first.trim().eq_ignore_ascii_case("HELP_RESPONSE") => {
                        rest
                    }
                    _ if body.eq_ignore_ascii_case("HELP_RESPONSE") => "",
                    _ => body,
                };
                nonempty(Some(body))
            });
            update(None, None, None, guidance)
        }
        MessageType::OfferingReady => {
            Some(completion(msg, Outcome::NeedsReview, vec![], String::new()))
        }
        MessageType::Done => {
            let any_fail = [p.tests_pass, p.lint_pass, p.build_pass].contains(&Some(false));
            let outcome = if any_fail {
                Outcome::NeedsReview
            } else {
                Outcome::Done
            };
            Some(completion(msg, outcome, vec![], String::new()))
        }
        MessageType::Failed => {
            let ft = nonempty(p.failure_type.as_deref());
            let reason = nonempty(p.reason.as_deref());
            let blocker = match (ft, reason) {
                (Some(f), Some(r)) => Some(format!("{f}: {r}")),
                (a, b) => a.or(b),
            };
            let notes = nonempty(p.recommendation.as_deref()).unwrap_or_default();
            Some(completion(
                msg,
                Outcome::Blocked,
                blocker.into_iter().collect(),
                notes,
            ))
        }
        MessageType::Checkpoint => {
            let notes = match (
                nonempty(p.progress.as_deref()),
                nonempty(p.next_steps.as_deref()),
            ) {
                (Some(pr), Some(ns)) => format!("{pr}\n\nNext steps: {ns}"),
                (Some(pr), None) => pr,
                (None, Some(ns)) => format!("Next steps: {ns}"),
                (None, None) => String::new(),
            };
            Some(completion(msg, Outcome::Partial, vec![], notes))
        }
        MessageType::SpawnRequest | MessageType::SpawnAck => {
            let issue = nonempty(p.issue_id.as_deref())
                .or_else(|| bead_of(msg))
                .unwrap_or_default();
            let mut note = if msg.kind == MessageType::SpawnRequest {
                format!("spawn requested for {issue}")
            } else {
                format!("spawn acknowledged for {issue}")
            };
            if let Some(s) = nonempty(p.session.as_deref()) {
                note.push_str(&format!(" (session {s})"));
            }
            update(None, None, None, Some(note))
        }
        MessageType::Unknown => None,
    }?;
    let mut env = Envelope::new(payload, task_id, from, to, sent_at(msg));
    env.project_id = nonempty(msg.project.as_deref());
    Some(env)
}

fn completion(
    msg: &Message<'_>,
    outcome: Outcome,
    blockers: Vec<String>,
    notes: String,
) -> Payload {
    let p = &msg.parsed;
    let checks = [p.tests_pass, p.lint_pass, p.build_pass];
    let tests = TestReport {
        total: checks.iter().filter(|c| c.is_some()).count() as u64,
        passed: checks.iter().filter(|c| **c == Some(true)).count() as u64,
        failed: checks.iter().filter(|c| **c == Some(false)).count() as u64,
    };
    let deliverables = p
        .files
        .as_ref()
        .map(|f| {
            f.iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    Payload::CompletionReport(CompletionReport {
        outcome,
        summary_ref: if summary_of(msg).is_some() {
            SUMMARY_REF.into()
        } else {
            String::new()
        },
        deliverables,
        tests,
        blockers,
        notes,
    })
}

/// [`to_envelope`] without a store: the task id is the one the router
/// creates for a bead first seen on the message's day
/// (`task_id::for_bead` with salt 0).
pub fn to_envelope_standalone(msg: &Message<'_>) -> Option<Envelope> {
    let bead = bead_of(msg)?;
    let day = msg.timestamp.unwrap_or_else(Utc::now);
    to_envelope(msg, &task_id::for_bead(&bead, day, 0))
}

/// What the router needs to route `msg`: its envelope, the bead's task (and
/// how to create it: titled from the mail, assigned to the worker), the
/// dedupe key and the completion summary. `Ignored` for mail the bridge
/// does not map (unknown types, plain replies, no bead).
pub fn routable(msg: &Message<'_>) -> Routable {
    let Some(bead) = bead_of(msg).filter(|_| is_bridged(msg)) else {
        return Routable::Ignored;
    };
    // The router assigns the task id once it has found the bead's task.
    let Some(envelope) = to_envelope(msg, "") else {
        return Routable::Ignored;
    };
    let new_task = NewTask {
        title: title_of(msg),
        agent: worker_of(msg),
        actor: msg.from.as_deref().unwrap_or("system").to_string(),
        day: msg.timestamp.unwrap_or_else(Utc::now),
        created_at: sent_at(msg),
        project: msg.project.as_deref().map(str::to_string),
        priority: None,
        metadata: Vec::new(),
    };
    Routable::Deliver(Box::new(Delivery {
        key: Some(dedupe_key(msg)),
        task: TaskRef::Bead {
            bead,
            new_task,
            parent: None,
        },
        envelope,
        follow_up: None,
        summary: summary_of(msg),
        unblocks: msg.kind == MessageType::HelpResponse,
        title: retitle_of(msg),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_title_is_what_is_left_of_bead_type_and_decoration() {
        let t = |s: &str, b: &str| subject_title(s, Some(b));
        assert_eq!(t("[ol-527.6] SPAWN_REQUEST", "ol-527.6"), "");
        assert_eq!(t("OFFERING READY for ol-9.4 ✅", "ol-9.4"), "");
        assert_eq!(
            t("[ol-3] PROGRESS: wiring the login page", "ol-3"),
            "wiring the login page"
        );
        assert_eq!(t("bd-1: DONE — token auth", "bd-1"), "token auth");
        assert_eq!(t("Re: Fwd: [ol-2] HELP_REQUEST", "ol-2"), "");
        assert_eq!(
            t("Re:[ol-2] help request about the schema", "ol-2"),
            "the schema"
        );
        assert_eq!(
            t("PROGRESS [ol-4] (WIP) retry loop", "ol-4"),
            "(WIP) retry loop"
        );
        // Only the subject's own type goes: a later type word is text.
        assert_eq!(t("[x] PROGRESS: mark DONE items", "x"), "mark DONE items");
        assert_eq!(subject_title("Wave 1 status", None), "Wave 1 status");
    }

    fn mail(subject: &str, body: &str) -> amail_parser::OwnedMessage {
        let text = format!("Subject: {subject}\nFrom: w\n\nBody:\n{body}\n");
        amail_parser::parse_bytes(text.as_bytes(), &Default::default())
            .unwrap()
            .remove(0)
    }

    #[test]
    fn titles_prefer_the_stated_one_then_the_subject_then_the_bead() {
        let m = mail(
            "[ol-1] BEAD_ACCEPTED",
            "Accepted bead: ol-1\nTitle: Add auth",
        );
        assert_eq!(title_of(&m), "Add auth");
        assert_eq!(retitle_of(&m).as_deref(), Some("Add auth"));
        let m = mail("[ol-1] PROGRESS: half way", "Bead: ol-1");
        assert_eq!(title_of(&m), "half way");
        assert_eq!(retitle_of(&m), None);
        let m = mail("[ol-527.6] SPAWN_REQUEST", "Issue: ol-527.6");
        assert_eq!(title_of(&m), "ol-527.6");
    }
}
