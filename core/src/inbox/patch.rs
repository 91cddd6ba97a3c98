//! Applies an incremental [`Change`] to a built [`Inbox`] in place, doing
//! the work of `build` only for what the change touched. Pure: the store
//! reads the changed files into a `Change` (a plain mailbox's
//! `stores::mailbox::incremental`), this applies it:
//!
//! 1. removed messages leave and new ones are inserted at their place in
//!    time order (new mail usually goes at the end: nothing moves);
//! 2. every thread's and agent's message indices are shifted to match (a
//!    pass over integers);
//! 3. the threads that lost or gained a message get their subject, bead,
//!    last time, pending count and help state again; emptied threads go;
//! 4. the threads are re-sorted (already nearly in order, so this is
//!    about one comparison per thread);
//! 5. only the agents named by a changed message or by any message of a
//!    touched thread (a reply there may answer their help request) are
//!    derived again, with the same code `build` uses.
//!
//! It gives up (and the caller loads everything) where a thread's identity
//! would change for messages the change did not touch: a removed or new
//! message without a thread id that other messages use as their thread id
//! (see the seeds in `build`).

use std::collections::HashSet;

use super::build::{
    agent, apply_acks, explicit_thread, help_state, message_order, thread_key, Latest,
};
use super::model::{Acks, HelpState, Inbox, InboxMessage, Thread};
use super::turn;

/// What a change does to the inbox, read from disk but not yet applied.
pub(crate) struct Change {
    /// Indices into `Inbox::messages` of what the changed files held.
    pub removed: Vec<usize>,
    /// What they hold now (threads not assigned; `acks` applied here).
    pub added: Vec<InboxMessage>,
    /// Every ack the store records now (the journal may have grown).
    pub acks: Acks,
}

/// Applies `change`; false (with `inbox` untouched) when it cannot be done
/// exactly.
pub(crate) fn apply(inbox: &mut Inbox, change: Change) -> bool {
    let Change {
        removed,
        mut added,
        acks,
    } = change;
    if !seeds_stay(inbox, &removed, &added) {
        return false;
    }
    // Agents whose roster entry may change, captured before the removed
    // go: senders, the agent a handoff or A2A message dispatches (turns
    // read `to`), every recipient of a removed message (it may have been
    // their last), and recipients of new mail not in the roster yet. A
    // known agent that only receives new mail keeps its entry.
    let mut touched_agents: HashSet<String> = HashSet::new();
    for m in removed.iter().map(|&i| &inbox.messages[i]) {
        senders_of(m, &mut touched_agents);
        touched_agents.extend(m.recipients.iter().map(|r| r.agent.clone()));
    }
    for m in &added {
        senders_of(m, &mut touched_agents);
        for r in &m.recipients {
            if inbox.agent_index(&r.agent).is_none() {
                touched_agents.insert(r.agent.clone());
            }
        }
    }
    let mut touched_threads: HashSet<usize> =
        removed.iter().map(|&i| inbox.messages[i].thread).collect();

    // 1. Remove, then insert in time order.
    // `removed` ascends (it was collected in index order), so membership
    // is a moving cursor, not a hash per message.
    let old_len = inbox.messages.len();
    let mut old_to_new = vec![usize::MAX; old_len];
    let mut is_removed = vec![false; old_len];
    for &i in &removed {
        is_removed[i] = true;
    }
    if !removed.is_empty() {
        let mut n = 0;
        inbox.messages.retain(|_| {
            let keep = !is_removed[n];
            n += 1;
            keep
        });
    }
    added.sort_by(message_order);
    // Exactly: a loaded inbox has no spare room, and the default growth
    // would double a 100,000-message vector for one new file.
    inbox.messages.reserve_exact(added.len());
    let mut inserted = Vec::with_capacity(added.len());
    for m in added {
        let at = inbox
            .messages
            .partition_point(|k| message_order(k, &m).is_lt());
        inbox.messages.insert(at, m);
        inserted.push(at);
    }
    // Sorted input, each inserted after the previous: `inserted` ascends
    // and every position is final.
    let mut is_new = vec![false; inbox.messages.len()];
    for &at in &inserted {
        is_new[at] = true;
    }
    let mut old = (0..old_len).filter(|&i| !is_removed[i]);
    for (new, fresh) in is_new.iter().enumerate() {
        if !fresh {
            if let Some(o) = old.next() {
                old_to_new[o] = new;
            }
        }
    }
    // The journal may have grown without being reported: a kept message
    // whose ack state changed touches its thread's pending count.
    for i in apply_acks(&mut inbox.messages, &acks) {
        if !is_new[i] {
            touched_threads.insert(inbox.messages[i].thread);
        }
    }

    // 2. Shift indices, unless nothing moved (new mail at the end, the
    // usual case: no pass over every thread's messages).
    let moved = !removed.is_empty() || inserted.first().is_some_and(|&at| at < old_len);
    if moved {
        for thread in &mut inbox.threads {
            thread.messages.retain_mut(|i| {
                *i = old_to_new[*i];
                *i != usize::MAX
            });
        }
        for a in &mut inbox.agents {
            a.last_message = a.last_message.map(|i| old_to_new[i]);
        }
    }

    // New messages join their thread (or start one).
    let mut new_threads: Vec<Thread> = Vec::new();
    for &at in &inserted {
        let m = &inbox.messages[at];
        let tid = thread_id(&inbox.messages, m);
        let same = |t: &Thread| t.project == m.project && t.id == tid;
        let t = match inbox.threads.iter().position(same) {
            Some(t) => {
                let list = &mut inbox.threads[t].messages;
                let pos = list.partition_point(|&i| i < at);
                list.insert(pos, at);
                t
            }
            None => {
                // `inserted` ascends, so pushing keeps the list in order.
                let n = match new_threads.iter().position(same) {
                    Some(n) => n,
                    None => {
                        new_threads.push(Thread {
                            id: tid.clone(),
                            project: m.project.clone(),
                            bead: None,
                            subject: String::new(),
                            messages: Vec::new(),
                            last_at: None,
                            pending: 0,
                            help: HelpState::None,
                        });
                        new_threads.len() - 1
                    }
                };
                new_threads[n].messages.push(at);
                inbox.threads.len() + n
            }
        };
        touched_threads.insert(t);
    }
    inbox.threads.extend(new_threads);

    // 3. Touched threads again, as `build` derives them.
    for &t in &touched_threads {
        let thread = &mut inbox.threads[t];
        let Some(&first) = thread.messages.first() else {
            continue;
        };
        let msgs = &inbox.messages;
        thread.subject = msgs[first].message.subject.to_string();
        thread.bead = thread
            .messages
            .iter()
            .find_map(|&i| msgs[i].message.bead())
            .map(str::to_owned);
        thread.last_at = thread
            .messages
            .iter()
            .map(|&i| msgs[i].message.timestamp)
            .fold(None, |a, b| if b > a { b } else { a });
        thread.pending = thread
            .messages
            .iter()
            .map(|&i| {
                let m = &msgs[i];
                if m.message.ack_required {
                    m.recipients.iter().filter(|r| r.ack_at.is_none()).count()
                } else {
                    0
                }
            })
            .sum();
        thread.help = help_state(thread.messages.iter().map(|&i| &msgs[i]));
        // A reply here may answer a help request: its asker's state and
        // turn change.
        for &i in &thread.messages {
            if let Some(f) = msgs[i].message.from.as_deref() {
                touched_agents.insert(f.to_string());
            }
        }
    }

    // 4. Drop emptied threads, re-sort, and point messages at their thread.
    inbox.threads.retain(|t| !t.messages.is_empty());
    inbox.threads.sort_by(|ta, tb| {
        tb.last_at
            .cmp(&ta.last_at)
            .then_with(|| tb.messages.last().cmp(&ta.messages.last()))
    });
    for (t, thread) in inbox.threads.iter().enumerate() {
        for &i in &thread.messages {
            inbox.messages[i].thread = t;
        }
    }

    // 5. The touched agents.
    patch_roster(inbox, &touched_agents);
    true
}

/// The thread id `build` gives `m` (see its seeds): an explicit thread id
/// that names a message without one joins that message's thread.
fn thread_id(messages: &[InboxMessage], m: &InboxMessage) -> String {
    match explicit_thread(m) {
        Some(t) => messages
            .iter()
            .find(|s| s.key == t && s.project == m.project && explicit_thread(s).is_none())
            .map(thread_key)
            .unwrap_or_else(|| t.to_string()),
        None => thread_key(m),
    }
}

/// False when a removed or new message without a thread id is (or would
/// be) the seed of other messages' thread: their thread would change.
fn seeds_stay(inbox: &Inbox, removed: &[usize], added: &[InboxMessage]) -> bool {
    let seeds: Vec<(&Option<String>, &str)> = removed
        .iter()
        .map(|&i| &inbox.messages[i])
        .chain(added)
        .filter(|m| explicit_thread(m).is_none())
        .map(|m| (&m.project, m.key.as_str()))
        .collect();
    if seeds.is_empty() {
        return true;
    }
    !inbox.messages.iter().chain(added).any(|m| {
        explicit_thread(m).is_some_and(|t| seeds.iter().any(|(p, k)| *k == t && **p == m.project))
    })
}

/// The agents whose own state `m` is evidence of: its sender, and for a
/// handoff or A2A message the first `to` (untrimmed, as `turn` reads it).
fn senders_of(m: &InboxMessage, out: &mut HashSet<String>) {
    if let Some(f) = m.message.from.as_deref() {
        out.insert(f.to_string());
    }
    if m.message.kind == amail_parser::MessageType::Unknown {
        if let Some(t) = m.message.to.first() {
            out.insert(t.to_string());
        }
    }
}

/// Derives the `touched` agents again (adding, updating or removing their
/// roster entries); the others keep theirs (their indices already shifted).
fn patch_roster(inbox: &mut Inbox, touched: &HashSet<String>) {
    // Sorted names, matched by binary search: usually a handful, and this
    // runs once per message of the inbox.
    let mut only: Vec<&str> = touched.iter().map(String::as_str).collect();
    only.sort_unstable();
    let find = |name: &str| only.binary_search(&name).ok();
    let mut latest = vec![Latest::default(); only.len()];
    let mut present = vec![false; only.len()];
    // One pass: the touched agents' latest messages, and the messages
    // their turns read (sender or first `to` among them), so the turns
    // do not walk the whole inbox again.
    let mut evidence = Vec::new();
    for (i, m) in inbox.messages.iter().enumerate() {
        let mut named = false;
        if let Some(from) = m.message.from.as_deref() {
            if let Some(k) = find(from) {
                latest[k].see(i, m);
                present[k] |= !from.is_empty();
                named = true;
            }
        }
        if named || m.message.to.first().is_some_and(|t| find(t).is_some()) {
            evidence.push(i);
        }
    }
    // Agents that sent nothing may still be recipients somewhere; newest
    // first, since a new recipient is usually in the new mail at the end.
    let mut unknown = present.iter().filter(|p| !**p).count();
    for m in inbox.messages.iter().rev() {
        if unknown == 0 {
            break;
        }
        for r in &m.recipients {
            if let Some(k) = find(&r.agent) {
                if !present[k] {
                    present[k] = true;
                    unknown -= 1;
                }
            }
        }
    }
    let mut turns = turn::derive_for(&inbox.messages, &inbox.threads, &evidence, &only);
    let mut fresh = Vec::new();
    for (k, &name) in only.iter().enumerate() {
        if !present[k] {
            continue;
        }
        let turn = turns.remove(name).unwrap_or_default();
        fresh.push(agent(
            name.to_string(),
            latest[k],
            turn,
            &inbox.messages,
            &inbox.threads,
        ));
    }
    inbox.agents.retain(|a| !touched.contains(&a.name));
    for a in fresh {
        let at = inbox.agents.partition_point(|b| b.name < a.name);
        inbox.agents.insert(at, a);
    }
}
