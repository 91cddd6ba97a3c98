//! Rendering a message back to canonical protocol text: spec framing
//! (`Subject:` and header lines, `Body:`, body), with the body either as
//! received or, when there is none, built from the parsed fields.
//!
//! `parse(render(m))` gives `m` back for every message `parse` produced from
//! rendered text (a property test holds the parser to that).

use std::fmt::Write as _;

use crate::model::{Message, MessageType, Parsed};

/// The message as canonical spec text.
pub fn render(m: &Message<'_>) -> String {
    let mut out = String::with_capacity(m.body.len() + 256);
    let subject = if m.subject.is_empty() && m.kind != MessageType::Unknown {
        match m.bead() {
            Some(b) => format!("[{b}] {}", m.kind),
            None => m.kind.to_string(),
        }
    } else {
        m.subject.replace(['\r', '\n'], " ")
    };
    let _ = writeln!(out, "Subject: {subject}");
    if let Some(f) = &m.from {
        let _ = writeln!(out, "From: {f}");
    }
    if !m.to.is_empty() {
        let _ = writeln!(out, "To: {}", m.to.join(", "));
    }
    if !m.cc.is_empty() {
        let _ = writeln!(out, "Cc: {}", m.cc.join(", "));
    }
    if let Some(t) = &m.thread_id {
        let _ = writeln!(out, "Thread: {t}");
    }
    if let Some(id) = &m.id {
        let _ = writeln!(out, "Id: {id}");
    }
    if let Some(ts) = &m.timestamp {
        let _ = writeln!(
            out,
            "Date: {}",
            ts.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
        );
    }
    let _ = writeln!(out, "Ack-Required: {}", m.ack_required);
    let _ = writeln!(out, "Importance: {}", m.importance);
    if let Some(p) = &m.project {
        let _ = writeln!(out, "Project: {p}");
    }
    out.push_str("\nBody:\n");
    if m.body.is_empty() {
        out.push_str(&canonical_body(m.kind, &m.parsed));
    } else {
        out.push_str(&m.body);
        out.push('\n');
    }
    out
}

fn pass_fail(v: bool) -> &'static str {
    if v {
        "PASS"
    } else {
        "FAIL"
    }
}

/// The body the protocol document prescribes for `kind`, with the fields
/// that are present (absent ones are left out, never written empty).
pub fn canonical_body(kind: MessageType, p: &Parsed<'_>) -> String {
    let mut b = Body(String::new());
    match kind {
        MessageType::BeadAccepted => {
            b.field("Accepted bead", p.bead_id.as_deref());
            b.field("Title", p.title.as_deref());
            b.field("Starting implementation at", p.started_at.as_deref());
        }
        MessageType::Progress => {
            b.field("Bead", p.bead_id.as_deref());
            b.field("Step", p.step.as_deref());
            b.field("Status", p.status.as_deref());
            b.field(
                "Context usage",
                p.context_usage.map(|c| format!("{c}%")).as_deref(),
            );
            b.field(
                "Files touched",
                p.files_touched.as_ref().map(|f| f.join(", ")).as_deref(),
            );
        }
        MessageType::HelpRequest => {
            b.field("Bead", p.bead_id.as_deref());
            b.field("Issue Type", p.issue_type.as_deref());
            b.section("Problem", p.problem.as_deref());
            b.section("What I Tried", p.what_tried.as_deref());
            if let Some(files) = &p.files_touched {
                b.heading("Files Touched");
                for f in files {
                    b.line(&format!("- {f}"));
                }
            }
            b.section("Question", p.question.as_deref());
        }
        MessageType::HelpResponse => {
            if let Some(bead) = &p.bead_id {
                b.field("Bead", Some(bead));
                b.line("");
            }
            if let Some(g) = &p.guidance {
                b.line(g);
            }
        }
        MessageType::OfferingReady | MessageType::Done => {
            b.field("Bead", p.bead_id.as_deref());
            b.field("Status", p.status.as_deref());
            if p.commit_sha.is_some() || p.files.is_some() {
                b.heading("Changes");
                b.field("- Commit", p.commit_sha.as_deref());
                b.field("- Files", p.files.as_ref().map(|f| f.join(", ")).as_deref());
            }
            if p.tests_pass.is_some() || p.lint_pass.is_some() || p.build_pass.is_some() {
                b.heading("Self-Validation");
                b.field("- Tests", p.tests_pass.map(pass_fail));
                b.field("- Lint", p.lint_pass.map(pass_fail));
                b.field("- Build", p.build_pass.map(pass_fail));
            }
            b.section("Summary", p.summary.as_deref());
        }
        MessageType::Failed => {
            b.field("Bead", p.bead_id.as_deref());
            b.field("Status", p.status.as_deref());
            if p.failure_type.is_some() || p.reason.is_some() || p.internal_attempts.is_some() {
                b.heading("Failure");
                b.field("Type", p.failure_type.as_deref());
                b.field("Reason", p.reason.as_deref());
                b.field(
                    "Internal Attempts",
                    p.internal_attempts.map(|n| n.to_string()).as_deref(),
                );
            }
            if p.partial_commit_sha.is_some() || p.files.is_some() {
                b.heading("Partial Progress");
                b.field("- Commit", p.partial_commit_sha.as_deref());
                b.field("- Files", p.files.as_ref().map(|f| f.join(", ")).as_deref());
            }
            b.section("Recommendation", p.recommendation.as_deref());
        }
        MessageType::Checkpoint => {
            b.field("Bead", p.bead_id.as_deref());
            b.field("Reason", p.checkpoint_reason.as_deref());
            if p.partial_commit_sha.is_some() || p.progress.is_some() || p.context_usage.is_some() {
                b.heading("Progress");
                b.field("- Commit", p.partial_commit_sha.as_deref());
                b.field("- Description", p.progress.as_deref());
                b.field(
                    "- Context usage",
                    p.context_usage.map(|c| format!("{c}%")).as_deref(),
                );
            }
            b.section("Next Steps for Successor", p.next_steps.as_deref());
        }
        MessageType::SpawnRequest => {
            b.field("Issue", p.issue_id.as_deref());
            b.field("Resume", p.resume.map(|r| if r { "true" } else { "false" }));
            b.field("Checkpoint", p.partial_commit_sha.as_deref());
            b.field("Orchestrator", p.orchestrator.as_deref());
        }
        MessageType::SpawnAck => {
            b.field("Issue", p.issue_id.as_deref());
            b.field("Status", p.status.as_deref());
            b.field("Session", p.session.as_deref());
        }
        MessageType::Unknown => {
            b.field("Bead", p.bead_id.as_deref());
        }
    }
    b.0
}

struct Body(String);

impl Body {
    fn line(&mut self, s: &str) {
        self.0.push_str(s);
        self.0.push('\n');
    }

    fn field(&mut self, label: &str, value: Option<&str>) {
        if let Some(v) = value {
            let _ = writeln!(self.0, "{label}: {v}");
        }
    }

    fn heading(&mut self, title: &str) {
        if !self.0.is_empty() {
            self.0.push('\n');
        }
        let _ = writeln!(self.0, "## {title}");
    }

    fn section(&mut self, title: &str, text: Option<&str>) {
        if let Some(t) = text {
            self.heading(title);
            self.line(t);
        }
    }
}
