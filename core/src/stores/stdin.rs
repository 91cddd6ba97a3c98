//! JSON piped on stdin (`amail threads -`): `fetch_inbox` output (a bare
//! list or `{"result": [...]}`), a message object, or JSON Lines. A store
//! that only reads: there is nowhere to write an ack or a reply back to.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use amail_parser::ParseOptions;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;

use super::error::Error;
use super::mcp::timestamps;
use super::read::{key_text, recipients_from, unique_key_in};
use super::store::{check_reply, AckOutcome, MailStore, ReplyOutcome};
use crate::inbox::{
    build, intern, CompactMessage, Inbox, InboxMessage, Recipient, RecipientKind, SourceKind,
};

/// Stdin as a [`MailStore`]: loads once, refuses acks and replies.
#[derive(Debug, Clone, Default)]
pub struct StdinStore {
    /// Whose inbox piped `fetch_inbox` JSON is (see [`load_stdin_as`]).
    pub viewer: Option<String>,
    /// At most this many bytes are read.
    pub max_bytes: u64,
    /// What stdin held, read once ([`StdinStore::read_now`]): a store that
    /// is loaded again (the inbox's `R`, its first load on a worker) gives
    /// the same mail, where a second read of the pipe would find it empty.
    pub(crate) held: Option<Inbox>,
}

impl StdinStore {
    /// Reads stdin now, before anything else takes the process's input
    /// (the inbox reads its keys from the terminal), and holds it.
    pub fn read_now(viewer: Option<&str>, max_bytes: u64) -> Result<StdinStore, Error> {
        Ok(StdinStore {
            viewer: viewer.map(str::to_string),
            max_bytes,
            held: Some(load_stdin_as(viewer, max_bytes)?),
        })
    }
}

impl MailStore for StdinStore {
    fn describe(&self) -> String {
        "stdin".into()
    }

    fn load(&self) -> Result<Inbox, Error> {
        match &self.held {
            Some(inbox) => Ok(inbox.clone()),
            None => load_stdin_as(self.viewer.as_deref(), self.max_bytes),
        }
    }

    fn ack(
        &self,
        _inbox: Option<&Inbox>,
        _keys: &[String],
        _as_agent: &str,
        _now: DateTime<Utc>,
    ) -> Result<Vec<AckOutcome>, Error> {
        Err(Error::Unsupported(
            "JSON read from stdin is read-only: ack in the mailbox or store it came from".into(),
        ))
    }

    fn reply(
        &self,
        _inbox: Option<&Inbox>,
        _key: &str,
        as_agent: &str,
        body: &str,
        _now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        check_reply(as_agent, body)?;
        Err(Error::Unsupported(
            "JSON read from stdin is read-only: reply in the mailbox or store it came from".into(),
        ))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// Who a piped `fetch_inbox` result is addressed to when `--as` does not
/// say: the inbox's owner, whom the result does not name.
pub(crate) const UNNAMED_VIEWER: &str = "(you)";

/// Loads JSON read from stdin, of at most `max_bytes`, for a viewer.
/// Read-only. `fetch_inbox` output is one agent's inbox and names no
/// recipients, so messages without any are taken as addressed to `viewer`,
/// or to `(you)` when none is given, as the object's `kind` says (`to`,
/// `cc`, `bcc`). Read and ack state come from the object's `read_ts` /
/// `ack_ts` (the Rust port reports them); the Python server's
/// `fetch_inbox` reports none, so there every ack-required message is
/// pending.
pub fn load_stdin_as(viewer: Option<&str>, max_bytes: u64) -> Result<Inbox, Error> {
    let buf = crate::fsio::read_stdin(max_bytes).map_err(|e| Error::io("<stdin>", e))?;
    load_json_as(&buf, viewer)
}

/// Loads a JSON document held in memory, for no viewer.
#[cfg(test)]
pub(crate) fn load_json(bytes: &[u8]) -> Result<Inbox, Error> {
    load_json_as(bytes, None)
}

/// Loads a JSON document held in memory, as [`load_stdin_as`] does.
pub fn load_json_as(bytes: &[u8], viewer: Option<&str>) -> Result<Inbox, Error> {
    let mut problems = Vec::new();
    let mut loaded = Vec::new();
    let states = viewer_states(bytes);
    match amail_parser::parse_bytes(bytes, &ParseOptions::default()) {
        Ok(messages) => {
            let mut seen = HashSet::new();
            for (n, m) in messages.into_iter().enumerate() {
                // What the parser could not read as a message at all (JSON
                // that does not parse, or holds no message object) is named
                // where it is, as a bad file of a mailbox is, not listed as
                // a message whose body is the broken text.
                if let Some(d) = m
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == amail_parser::Severity::Error)
                {
                    problems.push((
                        PathBuf::from(format!("<stdin>:{}:{}", d.line, d.column)),
                        format!("{} [{}]", d.message.text(), d.code),
                    ));
                    continue;
                }
                let key = unique_key_in(m.id.as_deref(), || format!("stdin#{}", n + 1), &mut seen);
                let mut recipients = recipients_from(&m.to, &m.cc, &[]);
                if recipients.is_empty() {
                    let state = m.id.as_deref().and_then(|id| states.get(id.trim()));
                    recipients.push(Recipient {
                        agent: intern(viewer.unwrap_or(UNNAMED_VIEWER)),
                        kind: state.map_or(RecipientKind::To, |s| s.kind),
                        read_at: state.and_then(|s| s.read_at),
                        ack_at: state.and_then(|s| s.ack_at),
                    });
                }
                let project = m.project.as_deref().map(intern);
                let message = CompactMessage::from(m);
                loaded.push(InboxMessage {
                    key: key_text(&key, &message),
                    project,
                    message,
                    path: None,
                    recipients,
                    thread_from_end: 0,
                });
            }
        }
        Err(e) => problems.push((PathBuf::from("<stdin>"), e.to_string())),
    }
    Ok(build(SourceKind::Stdin, loaded, problems))
}

/// What a `fetch_inbox` entry says about its viewer: how they were
/// addressed, and when they read and acked it (Rust port only).
struct ViewerState {
    kind: RecipientKind,
    read_at: Option<DateTime<Utc>>,
    ack_at: Option<DateTime<Utc>>,
}

/// The viewer's state per message id, from the same JSON the parser
/// reads (one value, an array, `{"result": [...]}`, or JSON Lines). The
/// parser keeps the message, not these per-recipient fields.
fn viewer_states(bytes: &[u8]) -> HashMap<String, ViewerState> {
    let mut out = HashMap::new();
    let mut add = |v: &Value| {
        let Some(o) = v.as_object() else { return };
        let id = match o.get("id").or_else(|| o.get("message_id")) {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return,
        };
        let time = |k: &str| match o.get(k) {
            Some(Value::String(s)) => timestamps::parse_text(s),
            Some(Value::Number(n)) => n.as_i64().and_then(|us| Utc.timestamp_micros(us).single()),
            _ => None,
        };
        let kind = match o.get("kind").and_then(Value::as_str) {
            Some(k) if k.eq_ignore_ascii_case("cc") => RecipientKind::Cc,
            Some(k) if k.eq_ignore_ascii_case("bcc") => RecipientKind::Bcc,
            _ => RecipientKind::To,
        };
        out.insert(
            id,
            ViewerState {
                kind,
                read_at: time("read_ts"),
                ack_at: time("ack_ts"),
            },
        );
    };
    for v in serde_json::Deserializer::from_slice(bytes)
        .into_iter::<Value>()
        .map_while(Result::ok)
    {
        let list = v.get("result").unwrap_or(&v);
        match list {
            Value::Array(items) => items.iter().for_each(&mut add),
            one => add(one),
        }
    }
    out
}
