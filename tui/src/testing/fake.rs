//! [`FakeBackend`]: the in-memory mailbox and task store the tests drive.

use std::path::PathBuf;

use amail_parser::{MessageType, OwnedMessage};
use chrono::{DateTime, Utc};

use super::sample::{cow, derive, fixed_now, message, push_message, sample_inbox, sample_tasks};
use crate::backend::Backend;
use amail_core::aof::TaskStatus;
use amail_core::inbox::{intern, Inbox, Recipient, RecipientKind};
use amail_core::router::mailbox::Mailbox;
use amail_core::router::{Board, TaskSummary};
use amail_core::stores::reply_rule::{self, ReplyKind};
use amail_core::stores::Refresh;

/// An in-memory mailbox + task store with the real semantics the TUI
/// relies on: acks set `ack_at`, replies become new messages in the thread
/// (and, as the router would, unblock the thread's task).
#[derive(Debug, Clone)]
pub struct FakeBackend {
    pub inbox: Inbox,
    pub tasks: Vec<TaskSummary>,
    pub now: DateTime<Utc>,
    pub acks: Vec<(String, String)>,
    /// The keys of each `ack` call, in order: one entry per batch.
    pub ack_batches: Vec<Vec<String>>,
    /// Marked read without an ack: (key, agent).
    pub reads: Vec<(String, String)>,
    /// New messages written with `c`.
    pub sent: Vec<amail_core::stores::Draft>,
    pub replies: Vec<(String, String, String)>,
    pub watch: Vec<PathBuf>,
    /// The changed paths of every `refresh` asked for, in order.
    pub reloads: Vec<Vec<PathBuf>>,
    /// Polled like a server every so often (`poll_interval`); `None`:
    /// watched like a mailbox.
    pub poll: Option<std::time::Duration>,
    /// Mail files `read_file` serves (the sample's, written as a plain
    /// mailbox stores them).
    pub files: std::collections::BTreeMap<PathBuf, String>,
    /// Tasks approved (`A`), in order.
    pub approvals: Vec<String>,
    /// Tasks rejected (`X`) with their reasons, in order.
    pub rejections: Vec<(String, String)>,
    /// Agents whose queues were asked for, in order.
    pub mailbox_calls: Vec<String>,
    /// The task files every agent's queues report skipped.
    pub mailbox_skipped: Vec<String>,
    /// Task -> the tasks that wait only for it: approving it promotes
    /// them to ready, as the router's cascade does.
    pub dependents: std::collections::BTreeMap<String, Vec<String>>,
}

impl FakeBackend {
    pub fn new(inbox: Inbox, tasks: Vec<TaskSummary>, now: DateTime<Utc>) -> Self {
        FakeBackend {
            inbox,
            tasks,
            now,
            acks: Vec::new(),
            ack_batches: Vec::new(),
            reads: Vec::new(),
            sent: Vec::new(),
            replies: Vec::new(),
            watch: Vec::new(),
            reloads: Vec::new(),
            poll: None,
            files: Default::default(),
            approvals: Vec::new(),
            rejections: Vec::new(),
            mailbox_calls: Vec::new(),
            mailbox_skipped: Vec::new(),
            dependents: Default::default(),
        }
    }

    /// The task `id` in review, or the router's refusal.
    fn in_review(&mut self, id: &str, verb: &str) -> Result<&mut TaskSummary, String> {
        let t = self
            .tasks
            .iter_mut()
            .find(|t| t.id == id)
            .ok_or_else(|| format!("no task {id}"))?;
        if t.status != TaskStatus::Review {
            return Err(format!(
                "task {id} is in '{}', not in review: only a task in review can be {verb}",
                t.status.as_str()
            ));
        }
        Ok(t)
    }

    pub fn sample() -> Self {
        let now = fixed_now();
        let mut b = FakeBackend::new(sample_inbox(now), sample_tasks(now), now);
        b.files = sample_files(&b.inbox);
        b
    }

    /// Adds a message as if a new file had landed in the mailbox.
    pub fn deliver(&mut self, key: &str, msg: OwnedMessage) {
        let recipients = msg
            .to
            .iter()
            .map(|a| Recipient {
                agent: intern(a),
                kind: RecipientKind::To,
                read_at: None,
                ack_at: None,
            })
            .collect();
        push_message(&mut self.inbox, key, msg, recipients);
        derive(&mut self.inbox);
    }
}

impl Backend for FakeBackend {
    fn describe(&self) -> String {
        crate::model::describe_source(&self.inbox.source)
    }
    fn load(&mut self) -> Result<Inbox, crate::msg::ReadError> {
        Ok(self.inbox.clone())
    }
    /// Records the paths; the in-memory mailbox is then taken whole.
    fn refresh(&mut self, changed: &[PathBuf]) -> Result<Refresh, crate::msg::ReadError> {
        self.reloads.push(changed.to_vec());
        Ok(Refresh::Whole(self.inbox.clone()))
    }
    fn poll_interval(&self) -> Option<std::time::Duration> {
        self.poll
    }
    fn tasks(&mut self) -> Result<Board, String> {
        Ok(self.tasks.clone().into())
    }
    fn ack(&mut self, _inbox: &Inbox, keys: &[String], as_agent: &str) -> Result<usize, String> {
        let now = self.now;
        let mut changed = 0;
        self.ack_batches.push(keys.to_vec());
        for key in keys {
            let m = self
                .inbox
                .messages
                .iter_mut()
                .find(|m| &m.key == key)
                .ok_or_else(|| format!("no message {key}"))?;
            let r = m
                .recipients
                .iter_mut()
                .find(|r| r.agent == as_agent)
                .ok_or_else(|| format!("{as_agent} is not a recipient of {key}"))?;
            r.read_at.get_or_insert(now);
            if r.ack_at.is_none() {
                r.ack_at = Some(now);
                changed += 1;
            }
            self.acks.push((key.clone(), as_agent.into()));
        }
        derive(&mut self.inbox);
        Ok(changed)
    }
    fn reply(
        &mut self,
        _inbox: &Inbox,
        key: &str,
        as_agent: &str,
        body: &str,
    ) -> Result<(), String> {
        let orig = self
            .inbox
            .message_by_key(key)
            .ok_or_else(|| format!("no message {key}"))?;
        // The stores' own rule: who may reply, to whom, with which type.
        let plan =
            reply_rule::plan_for(&self.inbox.source, orig, as_agent).map_err(|e| e.to_string())?;
        let as_agent = plan.from.as_str();
        let thread = orig.message.thread_id.as_deref().unwrap_or(key).to_string();
        let bead = orig.message.bead().map(|b| b.to_string());
        let (kind, subject) = match (plan.kind, &bead) {
            (ReplyKind::HelpResponse, Some(b)) => {
                (MessageType::HelpResponse, format!("[{b}] HELP_RESPONSE"))
            }
            (ReplyKind::HelpResponse, None) => {
                (MessageType::HelpResponse, "HELP_RESPONSE".to_string())
            }
            (ReplyKind::Plain, _) => (orig.message.kind, plan.re_subject.clone()),
        };
        let to: Vec<&str> = plan.to.iter().map(String::as_str).collect();
        let mut reply = message(
            kind,
            &subject,
            as_agent,
            &to,
            &thread,
            self.now,
            body,
            |p| {
                p.guidance = Some(cow(body));
            },
        );
        reply.is_reply = plan.kind == ReplyKind::Plain;
        reply.parsed.bead_id = bead.as_deref().map(cow);
        let n = self.replies.len() + 1;
        self.replies
            .push((key.into(), as_agent.into(), body.into()));
        self.deliver(&format!("reply-{n}"), reply);
        if let Some(b) = bead {
            for t in self.tasks.iter_mut().filter(|t| {
                t.bead.as_deref() == Some(b.as_str()) && t.status == TaskStatus::Blocked
            }) {
                t.status = TaskStatus::InProgress;
                t.updated_at = Some(self.now);
            }
        }
        Ok(())
    }
    fn mark_read(
        &mut self,
        _inbox: &Inbox,
        keys: &[String],
        as_agent: &str,
    ) -> Result<usize, String> {
        let now = self.now;
        let mut changed = 0;
        for key in keys {
            let m = self
                .inbox
                .messages
                .iter_mut()
                .find(|m| &m.key == key)
                .ok_or_else(|| format!("no message {key}"))?;
            let r = m
                .recipients
                .iter_mut()
                .find(|r| r.agent == as_agent)
                .ok_or_else(|| format!("{as_agent} is not a recipient of {key}"))?;
            if r.read_at.is_none() {
                r.read_at = Some(now);
                changed += 1;
            }
            self.reads.push((key.clone(), as_agent.into()));
        }
        derive(&mut self.inbox);
        Ok(changed)
    }
    fn send(&mut self, _inbox: &Inbox, draft: &amail_core::stores::Draft) -> Result<(), String> {
        let kind = draft
            .kind
            .as_deref()
            .and_then(MessageType::from_token)
            .unwrap_or(MessageType::Unknown);
        let subject = match (&draft.bead, &draft.kind) {
            (Some(b), Some(k)) => format!("[{b}] {k}: {}", draft.subject),
            (None, Some(k)) => format!("{k}: {}", draft.subject),
            _ => draft.subject.clone(),
        };
        let n = self.sent.len() + 1;
        let key = format!("sent-{n}");
        let thread = draft.thread.clone().unwrap_or_else(|| key.clone());
        let to: Vec<&str> = draft.to.iter().map(String::as_str).collect();
        let mut msg = message(
            kind,
            &subject,
            &draft.from,
            &to,
            &thread,
            self.now,
            &draft.body,
            |p| p.guidance = Some(cow(&draft.body)),
        );
        msg.parsed.bead_id = draft.bead.as_deref().map(cow);
        msg.ack_required = draft.ack_required;
        self.sent.push(draft.clone());
        self.deliver(&key, msg);
        Ok(())
    }
    fn read_file(&mut self, path: &std::path::Path) -> Result<String, String> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| format!("{}: no such file", path.display()))
    }
    fn watch_paths(&self) -> Vec<PathBuf> {
        self.watch.clone()
    }
    /// Review -> done, then the dependents in backlog become ready; the
    /// sentence is the real backend's.
    fn approve(&mut self, id: &str) -> Result<String, String> {
        let now = self.now;
        let t = self.in_review(id, "approved")?;
        t.status = TaskStatus::Done;
        t.updated_at = Some(now);
        self.approvals.push(id.to_string());
        let mut promoted = Vec::new();
        for dep in self.dependents.get(id).cloned().unwrap_or_default() {
            if let Some(d) = self
                .tasks
                .iter_mut()
                .find(|t| t.id == dep && t.status == TaskStatus::Backlog)
            {
                d.status = TaskStatus::Ready;
                d.updated_at = Some(now);
                promoted.push(dep);
            }
        }
        Ok(crate::backend::approved_sentence(id, &promoted))
    }
    fn reject(&mut self, id: &str, reason: &str) -> Result<String, String> {
        let now = self.now;
        let t = self.in_review(id, "rejected")?;
        t.status = TaskStatus::InProgress;
        t.updated_at = Some(now);
        self.rejections.push((id.to_string(), reason.to_string()));
        Ok(format!("{id} rejected: back in progress"))
    }
    /// The queues by each task's agent, as the router files them.
    fn mailbox(&mut self, agent: &str) -> Result<Mailbox, String> {
        self.mailbox_calls.push(agent.to_string());
        let mut m = Mailbox {
            agent: agent.to_string(),
            skipped: self.mailbox_skipped.clone(),
            ..Mailbox::default()
        };
        let mut mine: Vec<&TaskSummary> = self
            .tasks
            .iter()
            .filter(|t| t.agent.as_deref() == Some(agent))
            .collect();
        mine.sort_by(|a, b| a.id.cmp(&b.id));
        for t in mine {
            let queue = match t.status {
                TaskStatus::Ready => &mut m.inbox,
                TaskStatus::InProgress | TaskStatus::Blocked => &mut m.processing,
                TaskStatus::Review => &mut m.outbox,
                _ => continue,
            };
            queue.push(t.clone());
        }
        Ok(m)
    }
}

/// Each sample message's file, as a plain mailbox keeps it (spec text).
fn sample_files(inbox: &Inbox) -> std::collections::BTreeMap<PathBuf, String> {
    use amail_core::stores::mailbox::{render_spec_text, SpecMail};
    inbox
        .messages
        .iter()
        .filter_map(|x| {
            let m = &x.message;
            let to: Vec<String> = m.to.iter().map(|s| s.to_string()).collect();
            let text = render_spec_text(&SpecMail {
                id: &x.key,
                from: m.from.as_deref().unwrap_or(""),
                to: &to,
                thread: m.thread_id.as_deref().unwrap_or(""),
                date: m.timestamp?,
                subject: &m.subject,
                body: &m.body,
                ack_required: m.ack_required,
                importance: &m.importance,
            });
            Some((x.path.as_deref()?.to_path_buf(), text))
        })
        .collect()
}
