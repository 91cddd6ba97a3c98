//! Server payloads into inbox messages.
//!
//! `fetch_inbox` gives one agent's view of each message: the message (the
//! JSON the parser already reads from a pipe, so there is one reading of
//! it) and how that agent was addressed (`kind`). A message in several
//! inboxes is one [`InboxMessage`] with one recipient per inbox.
//!
//! Read and ack state: the Rust port's payloads carry `read_ts` / `ack_ts`
//! and are taken as they are. The Python server's carry none; its
//! `views/ack-required` resource lists, per agent, the ack-required
//! messages not yet acknowledged, so an ack-required message missing from
//! it is acknowledged (and so read). Its time is not reported: the message's
//! own time stands for it.

use std::collections::{HashMap, HashSet};

use amail_core::inbox::{intern, InboxMessage, Name, Recipient, RecipientKind, Recipients};
use amail_core::stores::mcp::timestamps;
use amail_parser::ParseOptions;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;

/// The most a 0.3.x server's `fetch_inbox` returns at once.
pub const V03_CAP: i64 = 1000;

/// One agent's inbox as the server gave it.
#[derive(Debug, Clone)]
pub struct AgentInbox {
    /// The project's slug (messages of different projects never share a
    /// thread).
    pub project: String,
    pub agent: String,
    /// `fetch_inbox` entries.
    pub items: Vec<Value>,
    /// Ids of the ack-required messages this agent has not acknowledged
    /// (`None` when the server's payloads carry `ack_ts` themselves).
    pub unacked: Option<HashSet<i64>>,
    /// The server stopped at its cap (0.3.x: 1,000): older mail of this
    /// inbox was not returned.
    pub capped: bool,
}

/// The message id of a payload.
pub fn id_of(item: &Value) -> Option<i64> {
    match item.get("id").or_else(|| item.get("message_id"))? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A payload's time field (ISO text, or the Rust port's microseconds).
pub fn time_of(item: &Value, key: &str) -> Option<DateTime<Utc>> {
    match item.get(key)? {
        Value::String(s) => timestamps::parse_text(s),
        Value::Number(n) => n.as_i64().and_then(|us| Utc.timestamp_micros(us).single()),
        _ => None,
    }
}

/// This agent's state of `item`.
fn recipient(inbox: &AgentInbox, item: &Value, id: i64) -> Recipient {
    let kind = match item.get("kind").and_then(Value::as_str) {
        Some(k) if k.eq_ignore_ascii_case("cc") => RecipientKind::Cc,
        Some(k) if k.eq_ignore_ascii_case("bcc") => RecipientKind::Bcc,
        _ => RecipientKind::To,
    };
    let mut read_at = time_of(item, "read_ts");
    let mut ack_at = time_of(item, "ack_ts");
    let ack_required = match item.get("ack_required") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64() == Some(1),
        _ => false,
    };
    if let Some(unacked) = &inbox.unacked {
        if ack_required && ack_at.is_none() && !unacked.contains(&id) {
            ack_at = time_of(item, "created_ts");
            read_at = read_at.or(ack_at);
        }
    }
    Recipient {
        agent: intern(&inbox.agent),
        kind,
        read_at,
        ack_at,
    }
}

/// Messages `fetched` (from [`merge`] over a poll's inboxes) merged into
/// `known` (the messages held, keyed by id): a message held already keeps
/// its text and takes the fetched recipients' state; the rest are added.
pub fn fold(known: Vec<InboxMessage>, fetched: Vec<InboxMessage>) -> Vec<InboxMessage> {
    let mut by_id: HashMap<String, InboxMessage> =
        known.into_iter().map(|m| (m.key.to_string(), m)).collect();
    for m in fetched {
        match by_id.get_mut(m.key.as_str()) {
            Some(held) => m
                .recipients
                .iter()
                .for_each(|r| take_state_in(&mut held.recipients, r.clone())),
            None => {
                by_id.insert(m.key.to_string(), m);
            }
        }
    }
    by_id.into_values().collect()
}

/// `r`'s state in a message's `recipients`: replaces what they held for
/// that agent, or adds it.
pub(crate) fn take_state_in(recipients: &mut Recipients, r: Recipient) {
    match recipients.iter_mut().find(|x| x.agent == r.agent) {
        Some(x) => *x = r,
        None => recipients.push(r),
    }
}

/// The messages of `inboxes`, one per id (a message in several inboxes
/// is one message with a recipient per inbox); a poll's are then
/// [`fold`]ed into those held. Entries the parser cannot read are
/// returned as problems naming the agent and id.
pub fn merge(inboxes: &[AgentInbox]) -> (Vec<InboxMessage>, Vec<(std::path::PathBuf, String)>) {
    let mut problems: Vec<(std::path::PathBuf, String)> = inboxes
        .iter()
        .filter(|i| i.capped)
        .map(|i| {
            (
                format!("{}/{}", i.project, i.agent).into(),
                format!(
                    "the server returns at most {V03_CAP} messages of an inbox (0.3.x \
                     fetch_inbox, newest first, with no way to page further back): older \
                     mail of this inbox is not shown"
                ),
            )
        })
        .collect();
    let mut by_id: HashMap<String, InboxMessage> = HashMap::new();
    for inbox in inboxes {
        for item in &inbox.items {
            let Some(id) = id_of(item) else {
                problems.push((
                    format!("{}/{}", inbox.project, inbox.agent).into(),
                    "a fetch_inbox entry without an id".into(),
                ));
                continue;
            };
            let key = id.to_string();
            let r = recipient(inbox, item, id);
            if let Some(m) = by_id.get_mut(&key) {
                take_state_in(&mut m.recipients, r);
                continue;
            }
            let bytes = serde_json::to_vec(item).unwrap_or_default();
            match amail_parser::parse_bytes(&bytes, &ParseOptions::default()) {
                Ok(mut ms) if !ms.is_empty() => {
                    let message = ms.swap_remove(0);
                    by_id.insert(
                        key.clone(),
                        InboxMessage {
                            key: key.into(),
                            project: Some(intern(&inbox.project)),
                            message: message.into(),
                            path: None,
                            recipients: vec![r].into(),
                            thread_from_end: 0,
                        },
                    );
                }
                Ok(_) => problems.push((
                    format!("{}/{}#{id}", inbox.project, inbox.agent).into(),
                    "an empty message".into(),
                )),
                Err(e) => problems.push((
                    format!("{}/{}#{id}", inbox.project, inbox.agent).into(),
                    e.to_string(),
                )),
            }
        }
    }
    (by_id.into_values().collect(), problems)
}

/// Per (project, agent), interned: the ack-required messages not
/// acknowledged, as the server's `ack-required` view lists them.
pub(crate) type Unacked = HashMap<(Name, Name), HashSet<i64>>;

/// Brings the ack state of held messages up to date from fresh
/// `ack-required` views (`unacked` per project and agent): an ack made
/// elsewhere (an agent, another amail) shows on the next poll.
pub fn refresh_acks(messages: &mut [InboxMessage], unacked: &Unacked) {
    for m in messages {
        if !m.message.ack_required {
            continue;
        }
        let (Some(project), Ok(id)) = (m.project, m.key.parse::<i64>()) else {
            continue;
        };
        let created = m.message.timestamp;
        for r in &mut m.recipients {
            if let Some(set) = unacked.get(&(project, r.agent)) {
                view_state(r, created, set.contains(&id));
            }
        }
    }
}

/// A recipient's state of an ack-required message made `created` by the
/// view: `listed` (not acknowledged) clears its ack; not listed, it is
/// acknowledged (and so read) at the message's own time unless a time is
/// held already.
pub(crate) fn view_state(r: &mut Recipient, created: Option<DateTime<Utc>>, listed: bool) {
    if listed {
        r.ack_at = None;
    } else if r.ack_at.is_none() {
        r.ack_at = created;
        r.read_at = r.read_at.or(created);
    }
}

/// What changed between two polls' views: (project, agent, message id,
/// listed now); `None` when a view is new (an agent the earlier poll had
/// no view of: every held message of theirs is to be read again).
pub(crate) fn view_changes(
    before: &Unacked,
    now: &Unacked,
) -> Option<Vec<(Name, Name, i64, bool)>> {
    let mut out = Vec::new();
    for (pair, set) in now {
        let old = before.get(pair)?;
        let (project, agent) = *pair;
        out.extend(set.difference(old).map(|&id| (project, agent, id, true)));
        out.extend(old.difference(set).map(|&id| (project, agent, id, false)));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(id: i64, kind: &str, ack: bool) -> Value {
        json!({"id": id, "project_id": 1, "sender_id": 3, "thread_id": "b1",
               "subject": "[b1] HELP_REQUEST", "importance": "high", "ack_required": ack,
               "created_ts": "2026-11-25T00:26:56.060682+00:00", "attachments": [],
               "body_md": "Bead: b1\nIssue Type: STUCK", "from": "PurpleBear", "kind": kind})
    }

    #[test]
    fn one_message_per_id_with_a_recipient_per_inbox_and_acks_from_the_view() {
        let blue = AgentInbox {
            project: "p".into(),
            agent: "BlueLake".into(),
            items: vec![item(1, "to", true)],
            unacked: Some(HashSet::from([1])),
            capped: false,
        };
        let green = AgentInbox {
            project: "p".into(),
            agent: "GreenCastle".into(),
            items: vec![item(1, "cc", true)],
            unacked: Some(HashSet::new()),
            capped: false,
        };
        let (ms, problems) = merge(&[blue, green]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(ms.len(), 1);
        let m = &ms[0];
        assert_eq!(m.key, "1");
        assert_eq!(m.message.from.as_deref(), Some("PurpleBear"));
        assert!(m.message.ack_required);
        assert_eq!(m.recipients.len(), 2);
        assert!(m.is_pending_for("BlueLake"));
        assert!(!m.is_pending_for("GreenCastle"));
        let green = m
            .recipients
            .iter()
            .find(|r| r.agent == "GreenCastle")
            .unwrap();
        assert_eq!(green.kind, RecipientKind::Cc);

        // BlueLake acks elsewhere: the next view no longer lists it.
        let mut ms = ms;
        let views = HashMap::from([((intern("p"), intern("BlueLake")), HashSet::new())]);
        refresh_acks(&mut ms, &views);
        assert!(!ms[0].is_pending_for("BlueLake"));
    }
}
