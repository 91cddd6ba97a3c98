//! Which mailbox a message's acks and replies belong to: the nearest
//! folder at or above the message's that has an ack journal, up to the
//! folder named as the source; with none below it, the named folder.
//!
//! Why: a folder above a mailbox can be named as the source (`amail
//! pending DIR` after `amail demo DIR`, whose mailbox is `DIR/mail`; a
//! folder holding one mailbox a project). Read with the named folder's
//! journal alone, the acks recorded in the mailbox were not seen, and an
//! ack made from above went into a journal the mailbox never reads (a
//! reply into `replies/` of the folder above, which its agents never
//! read): the two views of one message disagreed for good. Now a message
//! is acked in its own mailbox's journal and answered under its
//! mailbox's `replies/`, and its acks are read from there (and from the
//! named folder's, where acks made from above went before), whichever
//! folder above it is named.
//!
//! What it costs: a load looks for a journal in each folder of its
//! listing (and the folders between it and the root), one `stat` each,
//! and matches messages to journals only when one below the root exists.
//! A reload of such an inbox is a whole load (`incremental` patches from
//! one journal); the steps a load hands out while it runs read the
//! journals below as the whole inbox does ([`Below`]).
//!
//! Keys: a journal holds its own mailbox's keys. A message with no `Id:`
//! is keyed by its path from the folder named (`mail/help.md` from above,
//! `help.md` from the mailbox), so its acks are written and read with
//! the path from its mailbox ([`key_in`]); before, an ack made from above
//! was recorded under the key from above, which the mailbox's own view
//! never matched, and an ack made in the mailbox was not seen from above.
//! A thread named by such a key follows it: a reply made from above to
//! a message with no id, thread or bead is written with the thread as
//! the mailbox keys the message (`Thread: ask.md`), and a load from above
//! reads a mailbox's message naming another of it so by that message's
//! key from above ([`Below::apply`]), so each reply is in the thread of
//! the message it answers in both views.
//!
//! A message keyed by its path from above because a message of another
//! mailbox has its id (each project numbering its own: `Id: 1` in both)
//! has that id in its own mailbox, and its acks are recorded under it.
//! The acks of a journal below are matched only to the messages of its
//! own mailbox, never read onto another mailbox's message. One case is
//! left: two messages of one mailbox with an id a third, in another
//! mailbox, holds from above; which of the two keeps the id in their
//! mailbox's own view is that load's order, so both are matched by
//! their paths (the one keyed by its id there does not see acks made
//! from above, nor they its own; never one message's ack on another).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::journal::{self, JOURNAL_FILE};
use crate::inbox::{explicit_thread, intern, Acks, Inbox, InboxMessage, Name};

/// The folders below `root` (not `root` itself) that hold a journal,
/// among `folders` (a listing's, inside `root`) and the folders between
/// them and `root`.
fn homes_below<'a>(root: &Path, folders: impl Iterator<Item = &'a Path>) -> Vec<PathBuf> {
    let mut seen: HashSet<&Path> = HashSet::new();
    let mut homes = Vec::new();
    for folder in folders {
        for dir in folder.ancestors() {
            if dir == root || !dir.starts_with(root) || !seen.insert(dir) {
                break;
            }
            if dir.join(JOURNAL_FILE).is_file() {
                homes.push(dir.to_path_buf());
            }
        }
    }
    homes
}

/// The folder whose journal records the acks of the message in `file`:
/// the nearest one from `file`'s folder up to `root` (not included) that
/// holds a journal, else `root`.
pub(crate) fn home_of(root: &Path, file: &Path) -> PathBuf {
    file.ancestors()
        .skip(1)
        .take_while(|dir| *dir != root && dir.starts_with(root))
        .find(|dir| dir.join(JOURNAL_FILE).is_file())
        .unwrap_or(root)
        .to_path_buf()
}

/// [`home_of`] a message's file; `root` for a message with none.
pub(crate) fn mailbox_of(root: &Path, m: &InboxMessage) -> PathBuf {
    m.path
        .as_ref()
        .map_or_else(|| root.to_path_buf(), |p| home_of(root, p))
}

/// The mailbox a new message from `from` to `to` goes into, as `inbox`
/// (loaded from `root`) shows where their mail is: the one mailbox of
/// the sender's mail; else the one mailbox of the mail its recipients
/// sent or were sent; else `root`. A message sent from a folder above a
/// mailbox had gone into that folder, where the agents reading the
/// mailbox never see it.
pub(crate) fn home_for_new(root: &Path, inbox: &Inbox, from: &str, to: &[String]) -> PathBuf {
    let new = NewMessage::new(inbox, from, to);
    // One `stat` walk a folder, not a message.
    let mut by_folder: HashMap<&Path, PathBuf> = HashMap::new();
    let mut one_home = |pick: &dyn Fn(&InboxMessage) -> bool| {
        let mut found: Option<PathBuf> = None;
        for m in inbox.messages.iter().filter(|m| pick(m)) {
            let Some(file) = m.path.as_ref().map(|p| p.as_path()) else {
                continue;
            };
            let folder = file.parent().unwrap_or(file);
            let home = by_folder
                .entry(folder)
                .or_insert_with(|| home_of(root, file));
            match &found {
                None => found = Some(home.clone()),
                Some(h) if h == home => {}
                Some(_) => return None,
            }
        }
        found
    };
    one_home(&|m| new.by_sender(m))
        .or_else(|| one_home(&|m| new.by_recipients(m)))
        .unwrap_or_else(|| root.to_path_buf())
}

/// The keys of the messages [`home_for_new`] decides by, one a folder
/// each for the sender's and the recipients' (a folder's messages have
/// one home): what a caller holding the inbox hands the store with a
/// new message (the TUI's worker hands over a part of its inbox, not
/// all of it). None when the load read no journal below the folder
/// named: every message's home is that folder.
pub(crate) fn deciding_keys<'a>(inbox: &'a Inbox, from: &str, to: &[String]) -> Vec<&'a str> {
    if !inbox.index.journals_below {
        return Vec::new();
    }
    let new = NewMessage::new(inbox, from, to);
    let mut seen: HashSet<(bool, &Path)> = HashSet::new();
    let mut keys = Vec::new();
    for m in &inbox.messages {
        let Some(folder) = m.path.as_ref().and_then(|p| p.as_path().parent()) else {
            continue;
        };
        let sender = new.by_sender(m);
        if (sender && seen.insert((true, folder)))
            || (new.by_recipients(m) && seen.insert((false, folder)))
        {
            keys.push(m.key.as_str());
        }
    }
    keys
}

/// `keys` and the keys of the messages a write to them is decided by,
/// for a caller that hands the store a part of its inbox (the TUI's
/// worker): from a folder above mailboxes, the key a journal records a
/// message under depends on the message holding its id and its
/// mailbox's others renamed against that id ([`key_in`]), and a reply's
/// thread on the message the thread is named by. `keys` alone when the
/// load read no journal below the folder named.
pub(crate) fn write_keys<'a>(inbox: &'a Inbox, keys: &[&'a str]) -> Vec<&'a str> {
    let mut out = keys.to_vec();
    if !inbox.index.journals_below {
        return out;
    }
    for key in keys {
        let Some(m) = inbox.message_by_key(key) else {
            continue;
        };
        if let Some(id) = renamed_id(m) {
            out.extend(inbox.message_by_key(id).map(|h| h.key.as_str()));
            out.extend(
                inbox
                    .messages
                    .iter()
                    .filter(|o| renamed_id(o) == Some(id))
                    .map(|o| o.key.as_str()),
            );
        }
        let thread = inbox.thread_for(m).id.as_str();
        out.extend(inbox.message_by_key(thread).map(|s| s.key.as_str()));
    }
    out
}

/// Who a new message is from and to, matched against the inbox's
/// messages as its source matches names.
struct NewMessage<'a> {
    from: &'a str,
    to: &'a [String],
    ignores_case: bool,
}

impl<'a> NewMessage<'a> {
    fn new(inbox: &Inbox, from: &'a str, to: &'a [String]) -> Self {
        NewMessage {
            from,
            to,
            ignores_case: inbox.source.ignores_case(),
        }
    }

    fn same(&self, a: &str, b: &str) -> bool {
        if self.ignores_case {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    }

    /// Sent by the sender.
    fn by_sender(&self, m: &InboxMessage) -> bool {
        m.message
            .from
            .as_deref()
            .is_some_and(|f| self.same(f, self.from))
    }

    /// Sent by one of the recipients, or to one.
    fn by_recipients(&self, m: &InboxMessage) -> bool {
        self.to.iter().any(|a| {
            m.message.from.as_deref().is_some_and(|f| self.same(f, a))
                || m.recipients.iter().any(|r| self.same(&r.agent, a))
        })
    }
}

/// The acks of the journals below the root (see [`homes_below`]), read
/// once for every frame of a load: the steps handed out while it runs
/// show them as the whole inbox does.
#[derive(Debug, Default)]
pub(crate) struct Below {
    /// Each home's acks, with its path from the root as its keys begin
    /// (see [`key_in`]).
    by_home: HashMap<PathBuf, (String, Acks)>,
}

/// Reads the journals of the homes below `root` among `folders` (a
/// listing's, [`homes_below`]); bad journal lines are added to
/// `problems`.
pub(crate) fn read_below<'a>(
    root: &Path,
    folders: impl Iterator<Item = &'a Path>,
    problems: &mut Vec<(PathBuf, String)>,
) -> Below {
    let mut by_home = HashMap::new();
    for home in homes_below(root, folders) {
        let (acks, bad) = journal::read(&home);
        problems.extend(bad);
        let prefix = key_prefix(root, &home);
        by_home.insert(home, (prefix, acks));
    }
    Below { by_home }
}

impl Below {
    /// Applies the journals onto the messages of their mailboxes, after
    /// the root's own: each pair's first ack and first read, whichever
    /// journal has it; and reads a thread a mailbox's message names by
    /// that mailbox's key as the key from above ([`thread_aliases`]).
    pub(crate) fn apply(&self, messages: &mut [InboxMessage], root: &Path) {
        if self.by_home.is_empty() {
            return;
        }
        let locals = self.local_keys(messages, root);
        for (i, thread) in thread_aliases(messages, &locals) {
            messages[i].message.thread_id = Some(thread);
        }
        for (i, home, key) in locals {
            let (_, acks) = &self.by_home[home];
            for r in messages[i].recipients.iter_mut() {
                if let Some(t) = acks.get(&(key.clone(), r.agent.to_string())) {
                    r.ack_at = earliest(r.ack_at, t.ack_at);
                    r.read_at = earliest(r.read_at, Some(t.read_at));
                }
            }
        }
    }

    /// Whether a journal below the root was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_home.is_empty()
    }

    /// The home below `root` of `m`'s file, if any.
    fn home_of<'s>(&'s self, m: &InboxMessage, root: &Path) -> Option<&'s Path> {
        let path = m.path.as_ref()?.as_path();
        path.ancestors()
            .skip(1)
            .take_while(|dir| *dir != root)
            .find_map(|dir| self.by_home.get_key_value(dir))
            .map(|(home, _)| home.as_path())
    }

    /// Each message of a home below the root: its place, its home, and
    /// the key its home gives it ([`key_in`], over the whole list).
    fn local_keys<'s>(
        &'s self,
        messages: &[InboxMessage],
        root: &Path,
    ) -> Vec<(usize, &'s Path, String)> {
        // Where each key's message is, and how many messages of each home
        // have each renamed id, asked for a message renamed from above
        // against another's id (rare: made only when there is one).
        let mut holders: HashMap<&str, Option<&Path>> = HashMap::new();
        let mut twins: HashMap<(Option<&Path>, &str), usize> = HashMap::new();
        if messages.iter().any(|m| renamed_id(m).is_some()) {
            for m in messages {
                holders.insert(m.key.as_str(), self.home_of(m, root));
                if let Some(id) = renamed_id(m) {
                    *twins.entry((self.home_of(m, root), id)).or_default() += 1;
                }
            }
        }
        messages
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                let home = self.home_of(m, root)?;
                let (prefix, _) = &self.by_home[home];
                let elsewhere = renamed_id(m).is_some_and(|id| {
                    twins.get(&(Some(home), id)) == Some(&1)
                        && holders.get(id).is_none_or(|h| *h != Some(home))
                });
                Some((i, home, local_key(m, prefix, elsewhere).to_owned()))
            })
            .collect()
    }
}

/// The messages of a home below the root that name another of it by the
/// key the home gives it (`Thread: ask.md`: a reply made in the mailbox
/// to a message with no id, thread or bead), each with that message's
/// key from above: read so, it joins that message's thread as it does in
/// the mailbox's own view.
fn thread_aliases(
    messages: &[InboxMessage],
    locals: &[(usize, &Path, String)],
) -> Vec<(usize, Name)> {
    let seeds: HashMap<(&Path, &str), &str> = locals
        .iter()
        .filter(|(i, _, _)| explicit_thread(&messages[*i]).is_none())
        .map(|(i, home, key)| ((*home, key.as_str()), messages[*i].key.as_str()))
        .collect();
    locals
        .iter()
        .filter_map(|(i, home, _)| {
            let named = explicit_thread(&messages[*i])?;
            let key = *seeds.get(&(*home, named))?;
            (key != named).then(|| (*i, intern(key)))
        })
        .collect()
}

/// The key the mailbox at `home` gives `m` (a message below it, keyed
/// from `root`; `inbox` holds it), so that its journal is written and
/// read with its own keys: a key made from the message's path names it
/// from the folder named (`mail/help.md` from above, `help.md` from the
/// mailbox), and a message keyed by its path from above because another
/// mailbox's message has its id (each project numbering its own, `Id:
/// 1` in both) has that id in its own mailbox. An id is the same key
/// from anywhere.
pub(crate) fn key_in<'m>(
    root: &Path,
    home: &Path,
    m: &'m InboxMessage,
    inbox: &Inbox,
) -> Cow<'m, str> {
    if home == root {
        return Cow::Borrowed(m.key.as_str());
    }
    let in_home = |o: &InboxMessage| {
        o.path
            .as_ref()
            .is_some_and(|p| p.as_path().starts_with(home) && home_of(root, p.as_path()) == home)
    };
    let elsewhere = renamed_id(m).is_some_and(|id| {
        let held_here = inbox.message_by_key(id).is_some_and(in_home);
        // Another message of this mailbox renamed against the same id:
        // which of them keeps it there is that mailbox's load's order.
        let twin = inbox
            .messages
            .iter()
            .any(|o| !std::ptr::eq(o, m) && renamed_id(o) == Some(id) && in_home(o));
        !held_here && !twin
    });
    Cow::Borrowed(local_key(m, &key_prefix(root, home), elsewhere))
}

/// `home`'s path from `root` as a path key spells it, with its `/`.
fn key_prefix(root: &Path, home: &Path) -> String {
    let rel = home.strip_prefix(root).unwrap_or(home);
    format!("{}/", rel.to_string_lossy().replace('\\', "/"))
}

/// `m`'s id when it has one and its key is not it: renamed against a
/// message that holds the id.
fn renamed_id(m: &InboxMessage) -> Option<&str> {
    let id = m.message.id.as_deref()?.trim();
    (!id.is_empty() && id != m.key.as_str()).then_some(id)
}

/// [`key_in`] with the home's [`key_prefix`] made, and whether the
/// message that holds `m`'s id (when it was renamed) is in another
/// mailbox: then `m`'s own mailbox gives `m` its id.
fn local_key<'m>(m: &'m InboxMessage, prefix: &str, id_elsewhere: bool) -> &'m str {
    if let Some(id) = renamed_id(m) {
        if id_elsewhere {
            return id;
        }
    } else if m
        .message
        .id
        .as_deref()
        .is_some_and(|id| !id.trim().is_empty())
    {
        return m.key.as_str();
    }
    let key = m.key.as_str();
    key.strip_prefix(prefix).unwrap_or(key)
}

fn earliest(a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
