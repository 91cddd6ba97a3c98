//! A plain mailbox's handoff folder and the rest of its walk, in one
//! place: `amail parse DIR`, `amail route DIR` and the inbox load all ask
//! here, so they agree on which files are handoffs and read each file
//! once.
//!
//! The handoff folder is `.handoffs/` in the mailbox, or `HANDOFF_DIR`
//! (relative to the mailbox; absolute as given), read here
//! ([`handoff_dir`]) and nowhere else. A folder named above a mailbox
//! (`amail threads DIR` after `amail demo DIR`, whose mailbox is
//! `DIR/mail`) reads the `.handoffs/` of every folder below it too: the
//! walk passes over hidden folders, and those handoffs were lost. Its `.json` files are the
//! handoffs, in path order, and come first ([`mailbox`]): everything
//! there is a handoff, even broken JSON (a diagnostic), so the callers
//! are told which files these are rather than guessing from a path's
//! spelling. Nothing else in the folder is mail, nor anything below it:
//! the walk passes over a hidden folder anyway, and drops a visible one
//! (`HANDOFF_DIR=handoffs`) from what it lists ([`drop_handoff_folder`]),
//! so a note left there is no thread and a copy in a sub-folder no second
//! snapshot. Before, `parse` dropped those files, `route` read the copies
//! as handoffs and the inbox showed the note as mail.
//!
//! What this costs a walk of 10,000 files: nothing per file when the
//! folder is hidden or outside the mailbox (the usual case: one
//! `getenv`, a join and a look at the folder's name); else a test per
//! listed folder, not per file. The `.handoffs` folders below are seen
//! in the listings the walk reads anyway: a compare per hidden entry.

use std::io;
use std::path::{Component, Path, PathBuf};

use super::{handoff_files, is_hidden, list, Listing, Problem};
use crate::formats::handoff;
use crate::source::detect::{is_task_store_dir, not_a_mailbox};

/// The handoff folder of the mailbox at `root`: `HANDOFF_DIR` relative to
/// it when set (absolute as given), else `root/.handoffs`.
pub(super) fn handoff_dir(root: &Path) -> PathBuf {
    handoff::dir_for(root, std::env::var_os("HANDOFF_DIR").as_deref())
}

/// What a mailbox named by the user holds: its handoff files, then its
/// mail files, and what the walk could not look into.
#[derive(Debug, Default)]
pub struct Mailbox {
    /// The handoff files, then the mail files, each part in path order.
    pub files: Vec<PathBuf>,
    /// How many of `files` are handoff files: the first ones.
    pub handoffs: usize,
    pub problems: Vec<Problem>,
}

/// The mailbox at `root` as the user named it (`amail parse DIR`, `amail
/// route DIR`): its handoff files, then every mail file the walk lists
/// (see the module doc). A task store is refused (`InvalidInput`, saying
/// what it is); what could not be listed is in the problems.
pub fn mailbox(root: &Path) -> io::Result<Mailbox> {
    if is_task_store_dir(root) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            not_a_mailbox(root),
        ));
    }
    let (handoffs, listing) = mailbox_listing(root);
    let mail = listing.into_mail_files();
    let files = if handoffs.is_empty() {
        mail.files
    } else {
        let mut files = handoffs.clone();
        files.extend(mail.files);
        files
    };
    Ok(Mailbox {
        files,
        handoffs: handoffs.len(),
        problems: mail.problems,
    })
}

/// [`mailbox`] for the inbox load, which makes each mail file's path as
/// it reads it: the handoff files, and the walk's listing of the rest.
pub(crate) fn mailbox_listing(root: &Path) -> (Vec<PathBuf>, Listing) {
    let own = handoff_dir(root);
    let (mut handoffs, mut problems) = handoff_files(&own);
    let mut listing = list(root);
    // The mailboxes below the named folder: their `.handoffs/` too (the
    // named folder's own is `own`, whatever `HANDOFF_DIR` says).
    let root_s = root.join(handoff::DIR_NAME);
    for dir in listing.handoff_folders() {
        if *dir != own && *dir != root_s {
            let (files, mut more) = handoff_files(dir);
            handoffs.extend(files);
            problems.append(&mut more);
        }
    }
    handoffs.sort();
    problems.append(&mut listing.problems);
    listing.problems = problems;
    (handoffs, listing)
}

/// Leaves the handoff folder of the mailbox at `root`, and what is below
/// it, out of `listing` (its files and its problems alike), when it is a
/// folder the walk enters: inside `root`, with no hidden name on the way.
pub(crate) fn drop_handoff_folder(root: &Path, listing: &mut Listing) {
    if let Some(dir) = walked_handoff_folder(root) {
        listing.drop_under(&dir);
    }
}

/// The handoff folder of the mailbox at `root` when a walk of it would
/// enter the folder: inside `root`, with no hidden name on the way.
pub(super) fn walked_handoff_folder(root: &Path) -> Option<PathBuf> {
    Some(handoff_dir(root)).filter(|dir| walk_enters(root, dir))
}

/// Whether `path` lies under the handoff folder of the mailbox at `root`:
/// not mail, whatever its name.
pub(crate) fn in_handoff_folder(root: &Path, path: &Path) -> bool {
    path.starts_with(handoff_dir(root))
}

/// Whether a walk of `root` may enter `dir`, by the names on the way.
fn walk_enters(root: &Path, dir: &Path) -> bool {
    // The mailbox itself named as its handoff folder (`HANDOFF_DIR=.`)
    // is walked as mail: its handoff files are read as well.
    let Some(rel) = dir
        .strip_prefix(root)
        .ok()
        .filter(|r| !r.as_os_str().is_empty())
    else {
        return false;
    };
    rel.components()
        .all(|c| matches!(c, Component::Normal(n) if !is_hidden(n)))
}
