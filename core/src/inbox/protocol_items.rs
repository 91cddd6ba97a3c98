//! Protocol items in the inbox, as synthetic Agent Mail messages.
//!
//! Each item becomes an [`InboxMessage`] whose message has type `UNKNOWN`
//! and a `raw_type` naming the protocol (`HANDOFF`, `A2A_TASK`,
//! `A2A_PROGRESS`, `A2A_RESULT`), the protocol's task id as bead and thread
//! (so a handoff's snapshots, or an A2A task's messages, form one thread),
//! the state as `parsed.status`, and a body listing the structured fields
//! (state machine, priority, deadline, progress). Nothing downstream needs
//! to know about the protocols; the bridge and router work from the typed
//! items instead.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use amail_parser::{Message, MessageType, OwnedMessage, Parsed as Fields};

use crate::formats::{parse_files, A2aItem, A2aKind, Handoff, Item};
use crate::inbox::{InboxMessage, Recipient, RecipientKind};

/// The synthetic `raw_type` of an item.
pub fn raw_type(item: &Item) -> &'static str {
    match item {
        Item::Handoff(_) => "HANDOFF",
        Item::A2a(a) => a.message.raw_type(),
    }
}

/// The state word shown for an item.
pub fn state(item: &Item) -> String {
    match item {
        Item::Handoff(h) => h.state().to_string(),
        Item::A2a(a) => a.status.as_str().to_string(),
    }
}

fn handoff_body(h: &Handoff) -> String {
    let mut b = String::new();
    let _ = writeln!(b, "Protocol: handoff v0.1");
    let _ = writeln!(b, "Task: {}", h.task_id);
    let _ = writeln!(b, "State: {}", h.state());
    let _ = writeln!(
        b,
        "State machine: offered -> accepted -> completed | failed; offered -> rejected; failed -> offered (re-offer)"
    );
    let _ = writeln!(b, "From: {}", h.from_agent);
    let _ = writeln!(b, "To: {}", h.to_agent.as_deref().unwrap_or("anyone"));
    let _ = writeln!(b, "Created: {}", h.created_at.to_rfc3339());
    let _ = writeln!(b, "Updated: {}", h.updated_at.to_rfc3339());
    let _ = writeln!(b, "\n{}", h.description);
    if !h.context.is_empty() {
        let _ = writeln!(b, "\nContext:");
        for (k, v) in &h.context {
            let v = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            let _ = writeln!(b, "- {k}: {v}");
        }
    }
    b
}

fn a2a_body(a: &A2aItem) -> String {
    let mut b = String::new();
    let kind = match a.message {
        A2aKind::TaskMessage => "TaskMessage",
        A2aKind::TaskProgress => "TaskProgress",
        A2aKind::TaskResult => "TaskResult",
    };
    let _ = writeln!(b, "Protocol: A2A {kind}");
    let _ = writeln!(b, "Task: {}", a.task_id);
    if let Some(t) = &a.task_type {
        let _ = writeln!(b, "Task type: {t}");
    }
    let _ = writeln!(b, "Status: {}", a.status.as_str());
    if let Some(p) = a.priority {
        let _ = writeln!(b, "Priority: {}", p.effective().as_str());
    }
    if let Some(d) = a.deadline {
        let _ = writeln!(b, "Deadline: {}", d.to_rfc3339());
    }
    if let Some(p) = a.progress_percentage {
        let filled = (p as usize) / 10;
        let _ = writeln!(
            b,
            "Progress: {p}% [{}{}]",
            "#".repeat(filled),
            ".".repeat(10 - filled)
        );
    }
    let who = if a.message == A2aKind::TaskMessage {
        "Requester"
    } else {
        "Executor"
    };
    let _ = writeln!(b, "{who}: {}", a.agent);
    if let Some(r) = &a.responder {
        let _ = writeln!(b, "Responder: {r}");
    }
    if let Some(t) = &a.text {
        let _ = writeln!(b, "\n{t}");
    }
    if !a.data.is_empty() {
        let _ = writeln!(b, "\nData:");
        for (k, v) in &a.data {
            let _ = writeln!(b, "- {k}: {v}");
        }
    }
    b
}

/// The synthetic message for an item.
pub fn to_message(item: &Item) -> OwnedMessage {
    let (subject, from, to, body, title, ts) = match item {
        Item::Handoff(h) => (
            format!("[{}] HANDOFF {}: {}", h.task_id, h.state(), h.description),
            h.from_agent.clone(),
            h.to_agent.clone(),
            handoff_body(h),
            h.description.clone(),
            h.updated_at,
        ),
        Item::A2a(a) => {
            let mut s = format!(
                "[{}] {} {}",
                a.task_id,
                a.message.raw_type(),
                a.status.as_str()
            );
            if let Some(p) = a.priority {
                let _ = write!(s, " {}", p.effective().as_str());
            }
            if let Some(p) = a.progress_percentage {
                let _ = write!(s, " {p}%");
            }
            if let Some(t) = a.task_type.as_deref().or(a.text.as_deref()) {
                let _ = write!(s, ": {t}");
            }
            (
                s,
                a.agent.clone(),
                a.responder.clone(),
                a2a_body(a),
                a.task_type.clone().unwrap_or_else(|| a.task_id.clone()),
                a.at,
            )
        }
    };
    let fields = Fields {
        bead_id: Some(Cow::Owned(item.task_id().to_string())),
        title: Some(Cow::Owned(title)),
        status: Some(Cow::Owned(state(item))),
        ..Fields::default()
    };
    Message {
        id: None,
        kind: MessageType::Unknown,
        raw_type: Some(Cow::Borrowed(raw_type(item))),
        is_reply: false,
        subject: Cow::Owned(subject),
        from: Some(Cow::Owned(from)),
        to: to.into_iter().map(Cow::Owned).collect(),
        cc: Vec::new(),
        thread_id: Some(Cow::Owned(item.task_id().to_string())),
        timestamp: Some(ts),
        ack_required: false,
        importance: Cow::Borrowed("normal"),
        body: Cow::Owned(body),
        parsed: fields,
        diagnostics: Vec::new(),
        project: None,
        line: item.source().line,
    }
}

/// The inbox entry for an item with a unique key.
pub fn to_inbox(item: &Item, key: String) -> InboxMessage {
    let message = to_message(item);
    let recipients = message
        .to
        .iter()
        .map(|a| Recipient {
            agent: a.to_string(),
            kind: RecipientKind::To,
            read_at: None,
            ack_at: None,
        })
        .collect();
    InboxMessage {
        key,
        message,
        path: Some(PathBuf::from(&item.source().path)),
        project: None,
        recipients,
        thread: 0,
    }
}

fn is_json(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["json", "jsonl", "ndjson"]
            .iter()
            .any(|j| e.eq_ignore_ascii_case(j))
    })
}

fn handoff_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    out
}

/// The loader hook: replaces JSON files of the mailbox that hold handoff or
/// A2A items (the mail parser read them as unknown mail) by their items,
/// adds the handoff directory (`root/.handoffs`, or `HANDOFF_DIR` relative
/// to `root`), and reports protocol diagnostics as problems
/// (`line:col: code: message`). Files over `max_bytes` are not read.
pub fn merge_into(
    root: &Path,
    loaded: &mut Vec<InboxMessage>,
    problems: &mut Vec<(PathBuf, String)>,
    max_bytes: u64,
) {
    let env = std::env::var_os("HANDOFF_DIR");
    merge_with(root, env.as_deref(), loaded, problems, max_bytes)
}

/// The text of a mailbox JSON file when it holds handoff or A2A items: the
/// loader calls this on the bytes it already read, so [`merge_read`] need
/// not read every JSON file of the mailbox a second time.
pub fn protocol_text(path: &Path, bytes: &[u8]) -> Option<String> {
    if !is_json(path) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes).into_owned();
    let ours = crate::formats::objects(&text).ok().is_some_and(|o| {
        o.iter()
            .any(|o| crate::formats::classify(&o.value).is_some())
    });
    ours.then_some(text)
}

/// [`merge_into`] for a loader that classified its JSON files as it read
/// them ([`protocol_text`]): `read` holds the protocol files' text by path;
/// a loaded JSON file not in it is known not to hold protocol items, so
/// only the handoff directory is read here.
pub fn merge_read(
    root: &Path,
    read: HashMap<PathBuf, String>,
    loaded: &mut Vec<InboxMessage>,
    problems: &mut Vec<(PathBuf, String)>,
    max_bytes: u64,
) {
    let env = std::env::var_os("HANDOFF_DIR");
    merge_files(
        root,
        env.as_deref(),
        Some(read),
        loaded,
        problems,
        max_bytes,
    )
}

/// [`merge_into`] with the environment given (for tests).
pub fn merge_with(
    root: &Path,
    handoff_dir: Option<&std::ffi::OsStr>,
    loaded: &mut Vec<InboxMessage>,
    problems: &mut Vec<(PathBuf, String)>,
    max_bytes: u64,
) {
    merge_files(root, handoff_dir, None, loaded, problems, max_bytes)
}

/// `read`: protocol files' text as the loader read it (see [`merge_read`]);
/// None reads and classifies every JSON candidate here.
fn merge_files(
    root: &Path,
    handoff_dir: Option<&std::ffi::OsStr>,
    mut read: Option<HashMap<PathBuf, String>>,
    loaded: &mut Vec<InboxMessage>,
    problems: &mut Vec<(PathBuf, String)>,
    max_bytes: u64,
) {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut taken: HashSet<PathBuf> = HashSet::new();
    // Filtered before cloning: a big mailbox has no JSON at all.
    let mut candidates: Vec<PathBuf> = loaded
        .iter()
        .filter_map(|m| m.path.as_deref())
        .filter(|p| is_json(p))
        .map(Path::to_path_buf)
        .collect();
    candidates.dedup();
    let dir = crate::formats::handoff::dir_for(root, handoff_dir);
    candidates.extend(handoff_files(&dir));
    for p in candidates {
        let in_dir = p.starts_with(&dir);
        let known = read.as_mut().map(|r| r.remove(&p));
        if matches!(known, Some(None)) && !in_dir {
            continue; // read by the loader: not protocol items
        }
        let canon = p.canonicalize().unwrap_or_else(|_| p.clone());
        if taken.contains(&canon) {
            continue;
        }
        let (text, ours) = match known.flatten() {
            Some(text) => (text, true),
            None => {
                let Ok(bytes) = crate::fsio::read_file_limited(&p, max_bytes) else {
                    continue;
                };
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let ours = crate::formats::objects(&text).ok().is_some_and(|o| {
                    o.iter()
                        .any(|o| crate::formats::classify(&o.value).is_some())
                });
                (text, ours)
            }
        };
        if ours || in_dir {
            taken.insert(canon);
            // Keep the path as the loader spelled it so removal matches.
            let path = p.clone();
            loaded.retain(|m| m.path.as_deref() != Some(path.as_path()));
            files.push((path.display().to_string(), text));
        }
    }
    if files.is_empty() {
        return;
    }
    let parsed = parse_files(&files);
    let mut keys: HashSet<String> = loaded.iter().map(|m| m.key.clone()).collect();
    for (n, item) in parsed.items.iter().enumerate() {
        let base = format!(
            "{}:{}@{}",
            raw_type(item).to_ascii_lowercase(),
            item.task_id(),
            item.at().timestamp_millis()
        );
        let mut key = base.clone();
        if keys.contains(&key) {
            key = format!("{base}#{n}");
        }
        keys.insert(key.clone());
        loaded.push(to_inbox(item, key));
    }
    for d in parsed.diags {
        problems.push((
            PathBuf::from(&d.path),
            format!("{}:{}: {}: {}", d.line, d.column, d.code, d.message),
        ));
    }
}
