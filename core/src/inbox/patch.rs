//! Applies an incremental [`Change`] to a built [`Inbox`] in place, doing
//! the work of `build` only for what the change touched. Pure: the store
//! reads the changed files into a `Change` (a plain mailbox's
//! `stores::mailbox::incremental`), this applies it:
//!
//! 1. removed messages leave and new ones are inserted at their place in
//!    time order; new mail usually comes after everything and is pushed
//!    (nothing moves, the index takes the new keys and paths in);
//! 2. the acks the journal changed since the last load or patch (the
//!    index keeps the ones applied) reach their messages by key, and the
//!    new messages take theirs;
//! 3. when something moved, every thread's and agent's message indices
//!    are shifted to match (a pass over integers, and the index's
//!    positions renumbered without hashing again);
//! 4. the threads that lost or gained a message get their subject, bead,
//!    last time, pending count and help state again; emptied threads go;
//! 5. the touched threads go where the order wants them: when they all
//!    belong above the first untouched thread below them (new mail lifts
//!    its thread), only the threads down to there are sorted and their
//!    messages re-pointed, and only where a thread moved;
//! 6. only the agents named by a changed message or by any message of a
//!    touched thread (a reply there may answer their help request) are
//!    derived again, with the same code `build` uses, from each agent's
//!    evidence kept in the index (updated in place by mail that comes
//!    after everything, read again otherwise).
//!
//! So one new dated file costs in proportion to its thread and agents,
//! except one step: a new thread goes to the top of `Inbox::threads`, a
//! memory move of the thread list (messages name their thread counted
//! from the end, so none is re-pointed; the threads are found by id in
//! the index's thread table). An undated file sorts before every message:
//! the records move once, the index's tables move their origin, and the
//! threads' lists and the roster's positions are added to (a pass of
//! integer writes); its agents' evidence is still updated in place
//! (`turn::Open::see_before`). A removal renumbers those integers.
//!
//! 7. What it did to the threads is kept for a view ([`Patched`],
//!    [`Inbox::take_patched`]): each touched thread's tally before and
//!    its place now, the acks owed more or less in it by agent, and where
//!    every thread went, so the TUI moves its counts and selection by the
//!    change instead of counting every thread again.
//!
//! [`Inbox::patch`] is the same patch for a store that fetches changes
//! (a server's poll): new messages, and held messages' recipients as they
//! are now.
//!
//! It gives up (and the caller loads everything) where a thread's identity
//! would change for messages the change did not touch: a removed or new
//! message without a thread id that other messages use as their thread id
//! (see the seeds in `build`).

use std::collections::{HashMap, HashSet};

use super::build::{
    agent, apply_acks, derive_state, explicit_thread, message_order, thread_key, thread_order,
    Latest,
};
use super::compact::{Name, Text};
use super::model::{
    AckTimes, Acks, HelpState, Inbox, InboxMessage, Patched, Phase, Recipient, Thread, ThreadTally,
    TouchedThread,
};
use super::turn::{self, Open};

/// What a change does to the inbox, read from disk but not yet applied.
pub(crate) struct Change {
    /// Indices into `Inbox::messages` of what the changed files held
    /// (ascending).
    pub removed: Vec<usize>,
    /// What they hold now (threads not assigned; `acks` applied here).
    pub added: Vec<InboxMessage>,
    /// Every ack the store records now (the journal may have grown);
    /// `None` for a store that records none apart from its messages.
    pub acks: Option<Acks>,
    /// Kept messages (indices into `Inbox::messages`) whose recipients'
    /// state the store read again: their recipients as they are now.
    pub restated: Vec<(usize, Vec<Recipient>)>,
}

/// Applies `change`; false (with `inbox` untouched) when it cannot be done
/// exactly.
pub(crate) fn apply(inbox: &mut Inbox, change: Change) -> bool {
    let Change {
        removed,
        mut added,
        acks,
        restated,
    } = change;
    // The change's positions were found in the index its reader fitted
    // (`Index::fit`); an inbox changed since is not patched.
    if inbox.index.lookups(&inbox.messages).is_none() {
        return false;
    }
    inbox.index.fit_threads(&inbox.threads);
    if !seeds_stay(inbox, &removed, &added) {
        return false;
    }
    // Agents whose roster entry may change, captured before the removed
    // go: senders, the agent a handoff or A2A message dispatches (turns
    // read `to`), every recipient of a removed message (it may have been
    // their last), and recipients of new mail not in the roster yet. A
    // known agent that only receives new mail keeps its entry.
    // Interned names: a set of 4-byte numbers, nothing copied.
    let mut touched_agents: HashSet<Name> = HashSet::new();
    for m in removed.iter().map(|&i| &inbox.messages[i]) {
        senders_of(m, &mut touched_agents);
        touched_agents.extend(m.recipients.iter().map(|r| r.agent));
    }
    for m in &added {
        senders_of(m, &mut touched_agents);
        for r in &m.recipients {
            if inbox.agent_index(&r.agent).is_none() {
                touched_agents.insert(r.agent);
            }
        }
    }
    let mut touched_threads: HashSet<usize> = removed
        .iter()
        .map(|&i| inbox.thread_index(&inbox.messages[i]))
        .collect();
    // What the pending acks gain and lose, by thread (positions as they
    // are until the re-sort) and agent: the record a view keeps its totals
    // by (see [`Patched`]).
    let mut owed = Owed::default();
    for &i in &removed {
        let m = &inbox.messages[i];
        owed.message(inbox.thread_index(m), m, -1);
    }
    // Restated recipients, while positions are as the change found them:
    // their thread's pending count changes; an agent new to the roster
    // as a recipient of a kept message is found only by a read of the
    // inbox (see `patch_roster`).
    let mut new_recipient = false;
    for (i, recipients) in restated {
        for r in &recipients {
            if inbox.agent_index(&r.agent).is_none() {
                new_recipient = true;
                touched_agents.insert(r.agent);
            }
        }
        let t = inbox.thread_index(&inbox.messages[i]);
        touched_threads.insert(t);
        owed.message(t, &inbox.messages[i], -1);
        inbox.messages[i].recipients = recipients.into();
        owed.message(t, &inbox.messages[i], 1);
    }
    let threads_before = inbox.threads.len();

    // 1. Remove, then insert in time order. New mail usually comes after
    // everything (the common case: nothing moves, no pass over the inbox).
    added.sort_by(message_order);
    let appended = removed.is_empty()
        && match (inbox.messages.last(), added.first()) {
            (Some(last), Some(first)) => message_order(last, first).is_lt(),
            _ => true,
        };
    // When out of room, a 64th more ([`room_for_new_mail`]): the default
    // growth would double a 100,000-message vector for one new file.
    if inbox.messages.capacity() - inbox.messages.len() < added.len() {
        let room = added.len().max(room_for_new_mail(inbox.messages.len()));
        inbox.messages.reserve_exact(room);
    }
    // Undated mail sorts before every message: all of it goes first, and
    // every kept message moves up by its count (no map of old positions
    // to new; the index moves its origin instead of renumbering).
    let first = removed.is_empty()
        && !appended
        && match (added.last(), inbox.messages.first()) {
            (Some(last), Some(first)) => message_order(last, first).is_lt(),
            _ => false,
        };
    let (inserted, old_to_new) = if appended {
        let mut inserted = Vec::with_capacity(added.len());
        for m in added {
            inbox.messages.push(m);
            let at = inbox.messages.len() - 1;
            inbox.index.take(&inbox.messages, at);
            inserted.push(at);
        }
        (inserted, None)
    } else if first {
        let k = added.len();
        // One move of the records for them all.
        inbox.messages.splice(0..0, added);
        inbox.index.shift(k, inbox.messages.len() - k);
        for at in 0..k {
            inbox.index.take(&inbox.messages, at);
        }
        ((0..k).collect(), Some(Moved::Up(k)))
    } else {
        for &i in &removed {
            inbox.index.forget(&inbox.messages[i]);
        }
        let (inserted, old_to_new) = remove_and_insert(&mut inbox.messages, &removed, added);
        inbox
            .index
            .renumber(&old_to_new, inbox.messages.len() - inserted.len());
        for &at in &inserted {
            inbox.index.take(&inbox.messages, at);
        }
        (inserted, Some(Moved::To(old_to_new)))
    };
    let is_new = |i: usize| inserted.binary_search(&i).is_ok();

    // The journal may have grown without being reported: a kept message
    // whose ack state changed touches its thread's pending count.
    let changed = match (acks, inbox.index.acks.take()) {
        (Some(acks), Some(before)) => {
            let changed = apply_ack_changes(inbox, &before, &acks, &inserted);
            inbox.index.acks = Some(acks);
            changed
        }
        (Some(acks), None) => {
            // Every message's acks set again: what each changed is not
            // told apart, so no record (a view counts again).
            owed.lost = true;
            let changed = apply_acks(&mut inbox.messages, &acks);
            inbox.index.acks = Some(acks);
            changed
                .into_iter()
                .map(|i| (i, Name::default(), 0))
                .collect()
        }
        (None, before) => {
            inbox.index.acks = before;
            Vec::new()
        }
    };
    for (i, agent, delta) in changed {
        if !is_new(i) {
            let t = inbox.thread_index(&inbox.messages[i]);
            touched_threads.insert(t);
            owed.add(t, agent, delta);
        }
    }

    // 2. Shift indices, when something moved.
    match &old_to_new {
        None => {}
        Some(Moved::Up(k)) => {
            for thread in &mut inbox.threads {
                for i in &mut thread.messages {
                    *i += k;
                }
            }
        }
        Some(Moved::To(old_to_new)) => {
            for thread in &mut inbox.threads {
                thread.messages.retain_mut(|i| {
                    *i = old_to_new[*i];
                    *i != usize::MAX
                });
            }
        }
    }
    if let Some(moved) = &old_to_new {
        let at = |i| moved.at(i);
        for a in &mut inbox.agents {
            a.last_message = a.last_message.map(at);
        }
        for open in inbox.index.roster.iter_mut().flat_map(|r| r.values_mut()) {
            open.renumber(at);
        }
    }

    // New messages join their thread (or start one).
    let mut new_threads: Vec<Thread> = Vec::new();
    for &at in &inserted {
        let m = &inbox.messages[at];
        let tid = thread_id(inbox, m);
        let same = |t: &Thread| t.id == tid && t.project == m.project;
        let t = match inbox.index.thread_position(&inbox.threads, m.project, &tid) {
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
                            project: m.project,
                            bead: None,
                            subject: Text::default(),
                            messages: Vec::new(),
                            last_at: None,
                            pending: 0,
                            help: HelpState::None,
                            phase: Phase::Active,
                        });
                        new_threads.len() - 1
                    }
                };
                new_threads[n].messages.push(at);
                inbox.threads.len() + n
            }
        };
        touched_threads.insert(t);
        owed.message(t, m, 1);
    }
    inbox.threads.extend(new_threads);

    // 3. Touched threads again, as `build` derives them; what each was
    // before kept for the record (a new one was nothing).
    let mut tallies: Vec<(usize, Option<ThreadTally>)> = Vec::with_capacity(touched_threads.len());
    for &t in &touched_threads {
        let thread = &mut inbox.threads[t];
        tallies.push((t, (t < threads_before).then(|| ThreadTally::of(thread))));
        let Some(&first) = thread.messages.first() else {
            continue;
        };
        let msgs = &inbox.messages;
        thread.subject = msgs[first].message.subject.clone();
        thread.bead = thread.messages.iter().find_map(|&i| msgs[i].message.bead());
        thread.last_at = thread
            .messages
            .iter()
            .map(|&i| msgs[i].message.timestamp)
            .fold(None, |a, b| if b > a { b } else { a });
        derive_state(thread, msgs);
        // A reply here may answer a help request: its asker's state and
        // turn change.
        for &i in &thread.messages {
            if let Some(f) = msgs[i].message.from {
                touched_agents.insert(f);
            }
        }
    }

    // 4. Re-sort, and point messages at their thread.
    let moves = resort(inbox, &touched_threads, threads_before);
    record(inbox, owed, tallies, moves, threads_before);

    // 5. The touched agents.
    let placed = if new_recipient {
        Placed::Between
    } else if old_to_new.is_none() {
        Placed::After(&inserted)
    } else if removed.is_empty() && inserted.iter().enumerate().all(|(k, &at)| k == at) {
        Placed::Before(&inserted)
    } else {
        Placed::Between
    };
    patch_roster(inbox, &touched_agents, placed);
    true
}

/// How the kept messages moved when new mail did not just go after them.
enum Moved {
    /// Each up by this many (undated mail, all of it first).
    Up(usize),
    /// Each from its old position to this one (`usize::MAX`: removed).
    To(Vec<usize>),
}

impl Moved {
    /// Where the message that was at `i` is now (`usize::MAX`: gone).
    fn at(&self, i: usize) -> usize {
        match self {
            Moved::Up(k) => i + k,
            Moved::To(map) => map.get(i).copied().unwrap_or(usize::MAX),
        }
    }
}

/// Where the change put new mail, for the roster: all of it after every
/// kept message (dated mail, the usual), all before (undated mail sorts
/// first), or anything else (removals, mail in between).
#[derive(Clone, Copy)]
enum Placed<'a> {
    After(&'a [usize]),
    Before(&'a [usize]),
    Between,
}

impl Inbox {
    /// What the last patch did to the threads (see [`Patched`]), once:
    /// `None` when no patch came since the last take, when its record
    /// could not be told, or when two came without a take between them.
    /// A view that keeps totals over the threads takes it right after
    /// applying a store's change (`stores::Refresh::apply`) and counts
    /// everything again on `None`.
    pub fn take_patched(&mut self) -> Option<Patched> {
        match std::mem::take(&mut self.index.patched) {
            super::index::Record::Kept(p) => Some(*p),
            _ => None,
        }
    }

    /// Brings the inbox up to date with what a store read since it was
    /// loaded: `added` messages (keys not held here) and held messages'
    /// recipients as they are now (`restated`, by key), at the cost of
    /// the change, as a mailbox's reload does (a server's poll). The
    /// result equals [`assemble`](super::assemble) over the held messages
    /// so changed. False, with the inbox untouched, when only that is
    /// exact: an added key is held already, a restated one is not, or an
    /// added message without a thread id is the seed of held messages'
    /// thread.
    pub fn patch(
        &mut self,
        added: Vec<InboxMessage>,
        restated: Vec<(String, Vec<Recipient>)>,
    ) -> bool {
        if !self.index.fit(&self.messages) {
            return false;
        }
        let by_key = |key: &str| self.index.by_key(&self.messages, key);
        if added.iter().any(|m| by_key(&m.key).is_some()) {
            return false;
        }
        let mut at = Vec::with_capacity(restated.len());
        for (key, recipients) in restated {
            let Some(i) = by_key(&key) else {
                return false;
            };
            at.push((i, recipients));
        }
        apply(
            self,
            Change {
                removed: Vec::new(),
                added,
                acks: None,
                restated: at,
            },
        )
    }
}

/// Removes the messages at `removed` (ascending) and inserts `added`
/// (sorted) at their place in time order; returns where they went
/// (ascending) and each old position's new one (`usize::MAX`: removed).
fn remove_and_insert(
    messages: &mut Vec<InboxMessage>,
    removed: &[usize],
    added: Vec<InboxMessage>,
) -> (Vec<usize>, Vec<usize>) {
    // `removed` ascends, so membership is a flag per position, not a hash.
    let old_len = messages.len();
    let mut old_to_new = vec![usize::MAX; old_len];
    let mut is_removed = vec![false; old_len];
    for &i in removed {
        is_removed[i] = true;
    }
    if !removed.is_empty() {
        let mut n = 0;
        messages.retain(|_| {
            let keep = !is_removed[n];
            n += 1;
            keep
        });
    }
    let mut inserted = Vec::with_capacity(added.len());
    for m in added {
        let at = messages.partition_point(|k| message_order(k, &m).is_lt());
        messages.insert(at, m);
        inserted.push(at);
    }
    // Sorted input, each inserted after the previous: `inserted` ascends
    // and every position is final.
    let mut is_new = vec![false; messages.len()];
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
    (inserted, old_to_new)
}

/// Brings recipients' read and ack times from the acks applied before
/// (`before`) to those recorded now: the new messages take every ack
/// recorded for them, the kept ones only the pairs whose record changed,
/// found by key. One pass over the acks recorded (a journal's worth), no
/// pass over the inbox and no name copied per recipient. Returns the
/// positions of the kept messages whose state changed, each with the
/// recipient and how many more acks it owes there (-1, 0 or 1).
fn apply_ack_changes(
    inbox: &mut Inbox,
    before: &Acks,
    now: &Acks,
    new: &[usize],
) -> Vec<(usize, Name, isize)> {
    let mut changed = Vec::new();
    if now.is_empty() && before.is_empty() {
        return changed;
    }
    // The new messages' keys, one copy each (usually one message).
    let new_keys: HashMap<String, usize> = new
        .iter()
        .map(|&at| (inbox.messages[at].key.to_string(), at))
        .collect();
    for (pair, t) in now {
        let (key, agent) = pair;
        if let Some(&at) = new_keys.get(key) {
            set_agent_times(&mut inbox.messages[at], agent, Some(t));
        } else if before.get(pair) != Some(t) {
            let Some(i) = inbox.index.by_key(&inbox.messages, key) else {
                continue;
            };
            if let Some((agent, owed)) = set_agent_times(&mut inbox.messages[i], agent, Some(t)) {
                changed.push((i, agent, owed));
            }
        }
    }
    // Pairs no longer recorded; a new message has none applied yet (as a
    // full load leaves it).
    for (key, agent) in before.keys().filter(|pair| !now.contains_key(*pair)) {
        if new_keys.contains_key(key) {
            continue;
        }
        let Some(i) = inbox.index.by_key(&inbox.messages, key) else {
            continue;
        };
        if let Some((agent, owed)) = set_agent_times(&mut inbox.messages[i], agent, None) {
            changed.push((i, agent, owed));
        }
    }
    changed
}

/// [`set_times`] for `agent`'s recipient entry of `m`, if it has one;
/// when that changed, the recipient and how many more acks it owes on
/// `m` now (-1, 0 or 1).
fn set_agent_times(
    m: &mut InboxMessage,
    agent: &str,
    t: Option<&AckTimes>,
) -> Option<(Name, isize)> {
    let ack_required = m.message.ack_required;
    let r = m.recipients.iter_mut().find(|r| r.agent == agent)?;
    let owed = |r: &Recipient| isize::from(ack_required && r.ack_at.is_none());
    let was = owed(r);
    set_times(r, t).then(|| (r.agent, owed(r) - was))
}

/// Sets a recipient's times from its recorded ack (`None`: none recorded,
/// as a full load leaves it); true when they changed.
fn set_times(r: &mut super::model::Recipient, t: Option<&AckTimes>) -> bool {
    let (ack, read) = match t {
        Some(t) => (t.ack_at, Some(t.read_at)),
        None => (None, None),
    };
    let changed = r.ack_at != ack || r.read_at != read;
    r.ack_at = ack;
    r.read_at = read;
    changed
}

/// Drops emptied threads, puts the `touched` ones (positions; those from
/// `before` on are new) where the order wants them, and re-points the
/// messages of the threads whose count from the end changed
/// (`InboxMessage::thread_from_end`). The untouched threads were in order
/// and stay so among themselves: the touched ones are merged in. When
/// they all belong above the first untouched thread below them (new mail
/// lifts its thread), only the threads down to there are visited; a new
/// thread at the top changes no other thread's count.
fn resort(inbox: &mut Inbox, touched: &HashSet<usize>, before: usize) -> Moves {
    let threads = &mut inbox.threads;
    let Some(&lowest) = touched.iter().max() else {
        return Moves::default();
    };
    let emptied = touched.iter().any(|&t| threads[t].messages.is_empty());
    let prefix_only = !emptied
        && threads.get(lowest + 1).is_none_or(|next| {
            touched
                .iter()
                .all(|&t| thread_order(&threads[t], next).is_lt())
        });
    let end = if prefix_only {
        lowest + 1
    } else {
        threads.len()
    };
    // The new order of the first `end` threads, as old positions: the
    // touched ones in order, merged into the untouched; emptied ones last,
    // to go.
    let mut lifted: Vec<usize> = touched
        .iter()
        .copied()
        .filter(|&t| !threads[t].messages.is_empty())
        .collect();
    lifted.sort_by(|&a, &b| thread_order(&threads[a], &threads[b]));
    // Sorted, searched: one lookup per thread below.
    let mut touched: Vec<usize> = touched.iter().copied().collect();
    touched.sort_unstable();
    let is_touched = |p: &usize| touched.binary_search(p).is_ok();
    let mut order = Vec::with_capacity(end);
    let mut next = lifted.iter().peekable();
    for p in (0..end).filter(|p| !is_touched(p)) {
        while let Some(&&t) = next.peek() {
            if thread_order(&threads[t], &threads[p]).is_gt() {
                break;
            }
            order.push(t);
            next.next();
        }
        order.push(p);
    }
    order.extend(next);
    let kept = order.len();
    order.extend(touched.iter().filter(|&&t| threads[t].messages.is_empty()));
    // New mail lifts threads: each is rotated up to its place (the threads
    // it passes move down one), in proportion to the distance; otherwise
    // the order is applied whole.
    let targets: Vec<(usize, usize)> = order
        .iter()
        .enumerate()
        .filter(|&(_, p)| is_touched(p))
        .map(|(q, &p)| (q, p))
        .collect();
    if targets.iter().all(|&(q, p)| q <= p) && kept == end {
        let mut at: Vec<usize> = targets.iter().map(|&(_, p)| p).collect();
        for (k, &(q, _)) in targets.iter().enumerate() {
            let c = at[k];
            threads[q..=c].rotate_right(1);
            for later in &mut at[k + 1..] {
                if (q..c).contains(later) {
                    *later += 1;
                }
            }
        }
    } else {
        permute(&mut threads[..end], &order);
    }
    // The thread table follows the threads whose count from the end
    // changed: all let go first (by the count before, each one thread's),
    // then taken in again by the count now.
    let after = threads.len() - (end - kept);
    if let Some(table) = inbox.index.thread_table_mut() {
        let now = |q: usize| (q < kept).then(|| after - 1 - q);
        for (q, &p) in order.iter().enumerate() {
            if p < before && now(q) != Some(before - 1 - p) {
                table.remove(&threads[q].id, before - 1 - p);
            }
        }
        for (q, &p) in order[..kept].iter().enumerate() {
            if p >= before || now(q) != Some(before - 1 - p) {
                table.add(&threads[q].id, after - 1 - q);
            }
        }
        table.set_len(after);
    }
    threads.drain(kept..end);
    if let Some(last) = threads.len().checked_sub(1) {
        for (q, &p) in order[..kept].iter().enumerate() {
            let from_end = last - q;
            let moved = p >= before || is_touched(&p) || before - 1 - p != from_end;
            if moved {
                for &i in &threads[q].messages {
                    inbox.messages[i].thread_from_end = super::model::from_end(from_end);
                }
            }
        }
    }
    order.truncate(kept);
    // Where the touched threads went (those at `kept` on were emptied).
    let placed = targets
        .into_iter()
        .map(|(q, p)| (p, q))
        .filter(|&(_, q)| q < kept)
        .collect();
    Moves { end, order, placed }
}

/// Puts `items[order[q]]` at `q` for every `q`, in place (one swap per
/// item moved: a thread is a few hundred bytes, not copied twice).
fn permute<T>(items: &mut [T], order: &[usize]) {
    let mut done = vec![false; order.len()];
    for start in 0..order.len() {
        let mut q = start;
        while !done[q] {
            done[q] = true;
            let p = order[q];
            if p == start {
                break;
            }
            items.swap(q, p);
            q = p;
        }
    }
}

/// The thread id `build` gives `m` (see its seeds): an explicit thread id
/// that names a message without one joins that message's thread.
fn thread_id(inbox: &Inbox, m: &InboxMessage) -> String {
    match explicit_thread(m) {
        Some(t) => inbox
            .position_of_key(t)
            .map(|i| &inbox.messages[i])
            .filter(|s| s.project == m.project && explicit_thread(s).is_none())
            .map(thread_key)
            .unwrap_or_else(|| t.to_string()),
        None => thread_key(m),
    }
}

/// False when a removed or new message without a thread id is (or would
/// be) the seed of other messages' thread: their thread would change.
fn seeds_stay(inbox: &Inbox, removed: &[usize], added: &[InboxMessage]) -> bool {
    let seeds: Vec<(&Option<Name>, &str)> = removed
        .iter()
        .map(|&i| &inbox.messages[i])
        .chain(added)
        .filter(|m| explicit_thread(m).is_none())
        .map(|m| (&m.project, m.key.as_str()))
        .collect();
    if seeds.is_empty() {
        return true;
    }
    let names_a_seed = |m: &InboxMessage| {
        explicit_thread(m).is_some_and(|t| seeds.iter().any(|(p, k)| *k == t && **p == m.project))
    };
    // A kept message naming a removed seed is in that seed's thread; one
    // naming a new seed's key (keys are unique: no kept message has it)
    // is in the thread of that id. Only those threads are read.
    let mut threads: Vec<usize> = removed
        .iter()
        .map(|&i| inbox.thread_index(&inbox.messages[i]))
        .collect();
    for (p, k) in &seeds {
        threads.extend(inbox.index.thread_position(&inbox.threads, **p, k));
    }
    let in_threads = threads.iter().filter_map(|&t| inbox.threads.get(t));
    !added.iter().any(names_a_seed)
        && !in_threads
            .flat_map(|t| &t.messages)
            .any(|&i| names_a_seed(&inbox.messages[i]))
}

/// The agents whose own state `m` is evidence of: its sender, and for a
/// handoff or A2A message the first `to` (untrimmed, as `turn` reads it).
fn senders_of(m: &InboxMessage, out: &mut HashSet<Name>) {
    if let Some(f) = m.message.from {
        out.insert(f);
    }
    if m.message.kind == amail_parser::MessageType::Unknown {
        if let Some(&t) = m.message.to.first() {
            out.insert(t);
        }
    }
}

/// Derives the `touched` agents again (adding, updating or removing their
/// roster entries); the others keep theirs (their indices already shifted).
///
/// Each agent's evidence is kept in the index (`turn::Open`). When the
/// change only added messages after all the others, or only before them
/// all, those update it in place and nothing else is read (unless an
/// older message would set a bead a later one may have ended); otherwise
/// the touched agents' evidence is read again in one pass over the inbox.
fn patch_roster(inbox: &mut Inbox, touched: &HashSet<Name>, placed: Placed<'_>) {
    let mut only: Vec<&str> = touched.iter().map(|n| n.as_str()).collect();
    only.sort_unstable();
    let kept = inbox.index.roster.is_some();
    let in_place = match (placed, inbox.index.roster.take()) {
        (Placed::After(new), Some(mut evidence)) => {
            for &i in new {
                Open::see(&mut evidence, i, &inbox.messages[i]);
            }
            Ok((new, evidence))
        }
        (Placed::Before(new), Some(mut evidence)) => {
            // Newest first; every message is seen even after one that
            // needs the read (the touched agents' evidence is read again
            // whole then, the rest kept).
            let mut decided = true;
            for &i in new.iter().rev() {
                decided &= Open::see_before(&mut evidence, i, &inbox.messages[i]);
            }
            if decided {
                Ok((new, evidence))
            } else {
                Err(Some(evidence))
            }
        }
        (_, kept) => Err(kept),
    };
    let (evidence, present) = match in_place {
        Ok((new, evidence)) => {
            // Every message but these was read: an agent is in the
            // roster already, or named by the new mail.
            let named = |name: &str| {
                new.iter().any(|&i| {
                    let m = &inbox.messages[i];
                    m.message.from.is_some_and(|f| f == name) && !name.is_empty()
                        || m.recipients.iter().any(|r| r.agent == name)
                })
            };
            let present = only
                .iter()
                .map(|&name| inbox.agent_index(name).is_some() || named(name))
                .collect();
            (evidence, present)
        }
        Err(kept) => read_again(inbox, &only, kept),
    };
    let appended = match placed {
        Placed::After(new) => Some(new),
        _ => None,
    };
    let mut fresh = Vec::new();
    for (k, &name) in only.iter().enumerate() {
        if !present[k] {
            continue;
        }
        // The turn before, when known and only new mail came: updated in
        // proportion to it.
        let known = appended.filter(|_| kept).zip(inbox.agent_index(name));
        let before = known.map(|(new, j)| {
            let a = &mut inbox.agents[j];
            let turn = turn::Turn {
                state: a.turn,
                active_beads: std::mem::take(&mut a.active_beads),
            };
            let beads: Vec<&str> = new
                .iter()
                .filter_map(|&i| turn::evidence(&inbox.messages[i]))
                .filter(|&(agent, _, _)| agent == name)
                .map(|(_, bead, _)| bead)
                .collect();
            (turn, beads)
        });
        let (latest, turn) = match (evidence.get(name), before) {
            (Some(open), Some((before, beads))) => (
                open.latest,
                open.turn_after(before, &beads, &inbox.messages, &inbox.threads),
            ),
            (Some(open), None) => (open.latest, open.turn(&inbox.messages, &inbox.threads)),
            (None, _) => (Latest::default(), turn::Turn::default()),
        };
        fresh.push(agent(
            name.to_string(),
            latest,
            turn,
            &inbox.messages,
            &inbox.threads,
        ));
    }
    inbox.index.roster = Some(evidence);
    inbox
        .agents
        .retain(|a| !touched.iter().any(|n| *n == a.name.as_str()));
    for a in fresh {
        let at = inbox.agents.partition_point(|b| b.name < a.name);
        inbox.agents.insert(at, a);
    }
}

/// The evidence of the agents `only` (sorted) read again over the inbox,
/// put into what was `kept` (or, with nothing kept, everyone's read), and
/// whether each of them is still anywhere in the inbox.
fn read_again(
    inbox: &Inbox,
    only: &[&str],
    kept: Option<HashMap<String, Open>>,
) -> (HashMap<String, Open>, Vec<bool>) {
    // Matched by binary search: usually a handful, and this runs once per
    // message of the inbox.
    let find = |name: &str| only.binary_search(&name).ok();
    let mut present = vec![false; only.len()];
    // One pass: the messages naming the touched agents as sender or first
    // `to` (all their evidence), so their turns do not walk the whole
    // inbox again.
    let mut at = Vec::new();
    for (i, m) in inbox.messages.iter().enumerate() {
        let mut named = false;
        if let Some(from) = m.message.from {
            if let Some(k) = find(&from) {
                present[k] |= !from.is_empty();
                named = true;
            }
        }
        if named || m.message.to.first().is_some_and(|t| find(t).is_some()) {
            at.push(i);
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
    let mut evidence = match kept {
        Some(kept) => kept,
        None => turn::evidence_of(&inbox.messages, 0..inbox.messages.len(), |_| true)
            .into_iter()
            .map(|(name, open)| (name.to_string(), open.owned()))
            .collect(),
    };
    for name in only {
        evidence.remove(*name);
    }
    let read = turn::evidence_of(&inbox.messages, at.into_iter(), |a| find(a).is_some());
    evidence.extend(
        read.into_iter()
            .map(|(name, open)| (name.to_string(), open.owned())),
    );
    (evidence, present)
}

/// How [`resort`] reordered the threads: the first `end` positions
/// became `order` (`order[q]`: the position before of the thread now at
/// `q`, a new thread counting from the count before; emptied threads are
/// left out); the threads from `end` on stayed where they were (an
/// emptied thread makes `end` the whole list).
#[derive(Debug, Clone, Default)]
struct Moves {
    end: usize,
    order: Vec<usize>,
    /// The touched threads that stayed: (position before the re-sort, now).
    placed: Vec<(usize, usize)>,
}

/// The pending acks a patch adds or removes, by thread (as positioned
/// before the re-sort) and agent; `lost` when it cannot tell.
#[derive(Default)]
struct Owed {
    deltas: Vec<(usize, Name, isize)>,
    lost: bool,
}

impl Owed {
    /// `m`'s pending (message, recipient) pairs, `sign` each, in thread `t`.
    fn message(&mut self, t: usize, m: &InboxMessage, sign: isize) {
        if m.message.ack_required {
            for r in m.recipients.iter().filter(|r| r.ack_at.is_none()) {
                self.add(t, r.agent, sign);
            }
        }
    }

    fn add(&mut self, t: usize, agent: Name, delta: isize) {
        self.deltas.push((t, agent, delta));
    }
}

/// Keeps what the patch did for a view ([`Inbox::take_patched`]); none
/// when it cannot be told, or when the record of an earlier patch was
/// never taken (a view counting from it would miss that patch).
fn record(
    inbox: &mut Inbox,
    owed: Owed,
    tallies: Vec<(usize, Option<ThreadTally>)>,
    moves: Moves,
    threads_before: usize,
) {
    use super::index::Record;
    if owed.lost || !matches!(inbox.index.patched, Record::Empty) {
        inbox.index.patched = Record::Lost;
        return;
    }
    let Moves { end, order, placed } = moves;
    let now: HashMap<usize, usize> = placed.into_iter().collect();
    let touched = tallies
        .into_iter()
        .map(|(t, before)| {
            // Summed by agent: a handful of deltas per touched thread.
            let mut by_agent: Vec<(Name, isize)> = Vec::new();
            for &(_, agent, d) in owed.deltas.iter().filter(|&&(u, _, _)| u == t) {
                match by_agent.iter_mut().find(|(a, _)| *a == agent) {
                    Some((_, n)) => *n += d,
                    None => by_agent.push((agent, d)),
                }
            }
            by_agent.retain(|&(_, n)| n != 0);
            TouchedThread {
                before,
                now: now.get(&t).copied(),
                owed: by_agent,
            }
        })
        .collect();
    inbox.index.patched = Record::Kept(Box::new(Patched {
        threads_before,
        end,
        order,
        touched,
    }));
}

/// Spare room for new mail beside `len` messages: a 64th of them. A
/// load leaves it, and the patch grows by it when it runs out. Growing by
/// exactly the new mail moved every record for each new file once the
/// records' vector is in the heap rather than in a mapping of its own
/// (glibc maps a block only above a threshold that rises with the blocks
/// freed, up to 32 MB: 100,000 records of 272 bytes were under it, and one
/// new file then cost 15 ms more); a 64th is one such move per that many
/// new messages, and the room is not touched, so not resident, until used.
/// The `amail` binary now holds that threshold at 128 KiB
/// (`src/allocator.rs`), which keeps the vector in a mapping of its own;
/// the library does not count on its caller doing so.
pub(crate) fn room_for_new_mail(len: usize) -> usize {
    len / 64
}

#[cfg(test)]
mod tests {
    use super::permute;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn permute_puts_each_item_where_the_order_says(
            order in (0usize..40).prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        ) {
            let before: Vec<usize> = (100..100 + order.len()).collect();
            let mut items = before.clone();
            permute(&mut items, &order);
            let want: Vec<usize> = order.iter().map(|&p| before[p]).collect();
            prop_assert_eq!(items, want);
        }
    }
}
