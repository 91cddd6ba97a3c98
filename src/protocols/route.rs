//! Routing protocol items into the same AOF store as mail.
//!
//! Each item's task is found by its protocol task id (the store's bead
//! index, shared with mail, so an Agent Mail bead and a handoff with the
//! same id are one task) or created `ready`, assigned to the receiver, with
//! the A2A priority and deadline; a handoff.request's parent is created the
//! same way. Then the bridge's envelope goes through the ordinary handlers.
//! The dedupe key is a hash of the item, so routing a directory twice is a
//! no-op.

use std::path::PathBuf;

use serde_json::json;
use sha2::{Digest, Sha256};

use super::{bridge, parse_files, Diag, Item};
use crate::aof::TaskStatus;
use crate::router::store::{task_id_for_bead, Result, Txn};
use crate::router::task::{Routing, Task};
use crate::router::{Extras, RouteOutcome, Router};

fn key_of(item: &Item) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(item).unwrap_or_default());
    let d = h.finalize();
    let hex: String = d.iter().take(12).map(|b| format!("{b:02x}")).collect();
    format!("proto:{hex}")
}

impl Router {
    /// Routes one handoff or A2A item.
    pub fn route_protocol(&self, item: &Item) -> Result<RouteOutcome> {
        let key = key_of(item);
        let mut tx = self.store.begin()?;
        if self.store.was_routed(&key) {
            return Ok(RouteOutcome::Duplicate);
        }
        let before = tx.logged().len();
        let Some(id) = self.ensure_task(&mut tx, &bridge::bead(item), item, false)? else {
            tx.log(
                "protocol.message.rejected",
                "system",
                None,
                json!({ "reason": "task_not_found", "beadId": bridge::bead(item) }),
            );
            tx.commit()?;
            return Ok(RouteOutcome::Rejected("task_not_found".into()));
        };
        let parent = match bridge::parent_bead(item) {
            Some(p) => self.ensure_task(&mut tx, &p, item, true)?,
            None => None,
        };
        let created = tx.logged()[before..]
            .iter()
            .any(|e| e.kind == "task.created" && e.task_id.as_deref() == Some(id.as_str()));
        let env = bridge::to_envelope(item, &id, parent.as_deref());
        let summary = match item {
            Item::Handoff(h) => Some(h.description.clone()),
            Item::A2a(a) => a.text.clone().or_else(|| a.task_type.clone()),
        };
        let extras = Extras {
            key: Some(key.clone()),
            summary,
        };
        let mut out = self.handle(&mut tx, &env, &extras)?;
        if let Some(follow) = follow_up(item, &env) {
            if let RouteOutcome::Routed { transitions, .. } = &mut out {
                if let RouteOutcome::Routed { transitions: n, .. } =
                    self.handle(&mut tx, &follow, &Extras::default())?
                {
                    *transitions += n;
                }
            }
        }
        if let RouteOutcome::Routed { created: c, .. } = &mut out {
            *c = created;
        }
        tx.mark_routed(&key);
        tx.commit()?;
        Ok(out)
    }

    fn ensure_task(
        &self,
        tx: &mut Txn<'_>,
        bead: &str,
        item: &Item,
        umbrella: bool,
    ) -> Result<Option<String>> {
        if let Some(id) = self.store.task_for_bead(bead) {
            if tx.get(&id)?.is_some() {
                return Ok(Some(id));
            }
        }
        if !self.opts.create_missing {
            return Ok(None);
        }
        let day = bridge::at(item);
        let mut salt = 0;
        let id = loop {
            let id = task_id_for_bead(bead, day, salt);
            match tx.get(&id)? {
                None => break id,
                Some((_, t)) if t.bead() == Some(bead) => {
                    tx.index_bead(bead, &id);
                    return Ok(Some(id));
                }
                Some(_) => salt += 1,
            }
        };
        let at = day.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let (title, agent, from) = match (item, umbrella) {
            (Item::Handoff(h), true) => (
                format!("Handoffs offered by {}", h.from_agent),
                Some(h.from_agent.clone()),
                h.from_agent.clone(),
            ),
            (Item::A2a(a), true) => (
                format!("A2A tasks requested by {}", a.agent),
                Some(a.agent.clone()),
                a.agent.clone(),
            ),
            (Item::Handoff(h), false) => (
                h.description.clone(),
                h.to_agent.clone(),
                h.from_agent.clone(),
            ),
            (Item::A2a(a), false) => (
                a2a_title(a),
                if a.message == super::A2aKind::TaskMessage {
                    a.responder.clone()
                } else {
                    Some(a.agent.clone())
                },
                a.agent.clone(),
            ),
        };
        let mut task = Task::new(&id, &title, TaskStatus::Ready.as_str(), &at);
        task.fm.routing = Routing {
            agent,
            ..Routing::default()
        };
        task.fm.metadata.insert("beadId".into(), json!(bead));
        if !umbrella {
            match item {
                Item::Handoff(_) => {
                    task.fm
                        .metadata
                        .insert("protocol".into(), json!("handoff/0.1"));
                }
                Item::A2a(a) => {
                    task.fm.metadata.insert("protocol".into(), json!("a2a"));
                    if let Some(p) = a.priority {
                        task.fm.priority = p.aof().into();
                    }
                    if let Some(d) = a.deadline {
                        task.fm
                            .metadata
                            .insert("deadline".into(), json!(d.to_rfc3339()));
                    }
                }
            }
        }
        tx.index_bead(bead, &id);
        tx.create(TaskStatus::Ready, task);
        tx.log(
            "task.created",
            &from,
            Some(&id),
            json!({ "title": title, "status": "ready", "beadId": bead }),
        );
        Ok(Some(id))
    }
}

/// An A2A task's title on the board: its type, priority and deadline (the
/// board lists titles; AOF's priority field is set too).
fn a2a_title(a: &super::A2aItem) -> String {
    let mut t = a.task_type.clone().unwrap_or_else(|| a.task_id.clone());
    if let Some(p) = a.priority {
        t.push_str(" · ");
        t.push_str(p.effective().as_str());
    }
    if let Some(d) = a.deadline {
        t.push_str(&d.format(" · due %Y-%m-%d %H:%M").to_string());
    }
    t
}

/// The route hook: reads the protocol files among `paths` (and each
/// directory's `.handoffs/`), drops the mail items the mail parser made of
/// them, and returns the protocol items to route (time order) with their
/// diagnostics. Files over `max_bytes` are not read.
pub fn collect(
    paths: &[PathBuf],
    items: &mut Vec<crate::router::inputs::Item>,
    max_bytes: u64,
) -> (Vec<Item>, Vec<Diag>) {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut consider = |p: PathBuf, forced: bool, files: &mut Vec<(String, String)>| {
        if !seen.insert(p.clone()) {
            return;
        }
        let Ok(bytes) = crate::fsio::read_file_limited(&p, max_bytes) else {
            return;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let ours = super::objects(&text)
            .ok()
            .is_some_and(|o| o.iter().any(|o| super::classify(&o.value).is_some()));
        if ours || forced {
            files.push((p.display().to_string(), text));
        }
    };
    for p in paths {
        if p.is_dir() {
            let mut js: Vec<PathBuf> = crate::source::walk::mail_files(p)
                .unwrap_or_default()
                .into_iter()
                .filter(|f| {
                    f.extension()
                        .is_some_and(|e| e == "json" || e == "jsonl" || e == "ndjson")
                })
                .collect();
            let hd = super::handoff::dir_for(p, std::env::var_os("HANDOFF_DIR").as_deref());
            if let Ok(rd) = std::fs::read_dir(&hd) {
                let mut h: Vec<PathBuf> = rd
                    .flatten()
                    .map(|e| e.path())
                    .filter(|f| f.extension().is_some_and(|e| e == "json"))
                    .collect();
                h.sort();
                for f in h {
                    consider(f, true, &mut files);
                }
            }
            js.sort();
            for f in js {
                consider(f, false, &mut files);
            }
        } else if p.is_file() {
            consider(p.clone(), false, &mut files);
        }
    }
    let names: std::collections::HashSet<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    items.retain(|it| {
        let src = match it {
            crate::router::inputs::Item::Mail { source, .. } => source,
            crate::router::inputs::Item::Aof { source, .. } => source,
        };
        !names.contains(src.as_str())
    });
    let parsed = parse_files(&files);
    let mut out = parsed.items;
    out.sort_by_key(|i| (bridge::at(i), i.source().path.clone(), i.source().line));
    (out, parsed.diags)
}

/// The board follows the handoff state machine where AOF's handoff acks
/// alone would not move the task: an accepted handoff starts the task
/// (`in-progress`, as BEAD_ACCEPTED does) and a re-offer after a failure
/// makes it `ready` again. Both are status.updates from the agent that
/// acted; the router skips them when the task is already there.
fn follow_up(item: &Item, env: &crate::aof::Envelope) -> Option<crate::aof::Envelope> {
    let Item::Handoff(h) = item else {
        return None;
    };
    let (status, agent) = match h.status {
        super::HandoffStatus::Accepted => (TaskStatus::InProgress, env.from_agent.clone()),
        super::HandoffStatus::Offered if h.reoffered => (TaskStatus::Ready, h.from_agent.clone()),
        _ => return None,
    };
    let p = crate::aof::StatusUpdate {
        task_id: env.task_id.clone(),
        agent_id: agent.clone(),
        status: Some(status),
        progress: Some(format!("handoff {}", h.state())),
        blockers: None,
        notes: None,
    };
    Some(crate::aof::Envelope::new(
        crate::aof::Payload::StatusUpdate(p),
        env.task_id.clone(),
        agent,
        "system",
        env.sent_at.clone(),
    ))
}

pub use crate::router::tally::Tally;

/// The `amail route` hook: routes the protocol items found under `paths`
/// (removing their files from `items`), printing diagnostics and
/// rejections as `file:line:col: ...` on stderr. Diagnostics count as
/// rejected (the command then exits with the bad-input code).
pub fn run_cli(
    paths: &[PathBuf],
    items: &mut Vec<crate::router::inputs::Item>,
    router: &Router,
    max_bytes: u64,
) -> std::result::Result<Tally, crate::cli::CliError> {
    let (found, diags) = collect(paths, items, max_bytes);
    let mut t = Tally::default();
    for d in &diags {
        eprintln!("{d}: not routed");
        t.rejected += 1;
    }
    for item in &found {
        let loc = format!("{}:{}:1", item.source().path, item.source().line);
        let out = router
            .route_protocol(item)
            .map_err(|e| crate::cli::CliError::bad_input(format!("{loc}: store error: {e}")))?;
        t.record(out, &loc);
    }
    Ok(t)
}
