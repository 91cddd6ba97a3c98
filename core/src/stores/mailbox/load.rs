//! Loading a plain mailbox: every mail file the walker finds under the
//! root, any framing, read and parsed in parallel, plus the ack journal and
//! the handoff and A2A items ([`super::protocol`]).
//!
//! Problems with single files never stop a load: they go to
//! `Inbox::problems` and the rest loads.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::journal;
use super::protocol;
use crate::fsio::FileReader;
use crate::inbox::{apply_acks, build, Inbox, InboxMessage, SourceKind};
use crate::source::{files, parallel, walk};
use crate::stores::error::Error;
use crate::stores::read::{parse_records, recipients_from, unique_key, FileRecords};

/// Files read and parsed per chunk handed out to a worker. Small chunks
/// keep both cores busy to the end (file sizes vary 100-fold), while the
/// calling thread joins finished chunks into the inbox.
const PARSE_CHUNK: usize = 128;

/// One file read and parsed: its messages (or why not) and, for JSON
/// files, the protocol text.
type ParsedFile = Result<(FileRecords, Option<String>), String>;

/// A plain mailbox: every mail file [`walk::walk`] finds under `root`, any
/// framing, plus the ack journal. Files over `max_bytes` are problems, not
/// read.
pub fn load_mailbox(root: &Path, max_bytes: u64) -> Result<Inbox, Error> {
    load_mailbox_with(root, max_bytes, &|_, _| ())
}

/// [`load_mailbox`], telling `progress` (files done, files in all) after
/// each chunk joined.
pub fn load_mailbox_with(
    root: &Path,
    max_bytes: u64,
    progress: &dyn Fn(usize, usize),
) -> Result<Inbox, Error> {
    let (paths, mut problems) = walk::walk(root).into_parts();
    progress(0, paths.len());
    let (acks, journal_problems) = journal::read(root);
    problems.extend(journal_problems);
    // About one message per file; sized up front so a big mailbox is not
    // copied while the vector grows.
    let mut loaded = Vec::with_capacity(paths.len());
    let mut seen = HashSet::with_capacity(paths.len());
    let mut protocol_files = HashMap::new();
    let mut pending = &paths[..];
    // Workers take chunks in turn and the parsed messages are moved into
    // `loaded` here as soon as each chunk (and all before it) is done: the
    // joining overlaps the parsing instead of idling the workers between
    // batches, and only a few chunks are ever held twice.
    let _ = parallel::ordered(
        &paths,
        PARSE_CHUNK,
        parallel::cores(),
        FileReader::new,
        |reader, _, part, out: &mut Vec<ParsedFile>| {
            out.clear();
            // JSON files are classified (handoff or A2A items?) from the
            // bytes read here, so the protocol merge does not read them
            // again.
            out.extend(part.iter().map(|path| {
                let bytes = files::read_mail_file_into(reader, path, max_bytes)?;
                let protocol = protocol::protocol_text(path, bytes);
                parse_records(bytes).map(|r| (r, protocol))
            }));
        },
        |out| {
            // Chunks arrive in input order, so the paths are the next ones.
            let (part, rest) = pending.split_at(out.len());
            pending = rest;
            for (path, result) in part.iter().zip(out.drain(..)) {
                match result {
                    Ok((r, protocol)) => {
                        loaded.extend(file_entries(root, path, r, &mut seen));
                        if let Some(text) = protocol {
                            protocol_files.insert(path.clone(), text);
                        }
                    }
                    Err(why) => problems.push((path.clone(), why)),
                }
            }
            progress(paths.len() - pending.len(), paths.len());
            std::ops::ControlFlow::<()>::Continue(())
        },
    );
    // Every key is in; the copies go before the inbox is built, not after.
    drop(seen);
    apply_acks(&mut loaded, &acks);
    protocol::merge_read(root, protocol_files, &mut loaded, &mut problems, max_bytes);
    let mut inbox = build(
        SourceKind::Mailbox {
            root: root.to_path_buf(),
        },
        loaded,
        problems,
    );
    // Kept, so a reload applies only what the journal changed.
    inbox.index.acks = Some(acks);
    Ok(inbox)
}

/// One file's messages as inbox entries (threads not yet assigned, acks
/// not yet applied: see `inbox::apply_acks`): keys made unique against `seen`.
/// Shared by the full load and the incremental reload, so both make the
/// same entries.
pub(crate) fn file_entries(
    root: &Path,
    path: &Path,
    (messages, bcc): FileRecords,
    seen: &mut HashSet<String>,
) -> Vec<InboxMessage> {
    let rel = || {
        path.strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let several = messages.len() > 1;
    let mut out = Vec::with_capacity(messages.len());
    for (n, m) in messages.into_iter().enumerate() {
        let key = unique_key(
            m.id.as_deref(),
            || {
                if several {
                    format!("{}#{}", rel(), n + 1)
                } else {
                    rel()
                }
            },
            seen,
        );
        let recipients = recipients_from(&m.to, &m.cc, &bcc);
        out.push(InboxMessage {
            key,
            project: m.project.as_deref().map(str::to_owned),
            message: m,
            path: Some(path.to_path_buf()),
            recipients,
            thread_from_end: 0,
        });
    }
    out
}
