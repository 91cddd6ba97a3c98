//! The benchmark corpus as an mcp_agent_mail storage root (issue 6):
//! `amail demo --messages N --format mcp DIR`.
//!
//! The same messages as the plain corpus ([`super::corpus_mails`]), written
//! the way the PyPI mcp-agent-mail 0.1.0 server writes them, so that amail's
//! mcp readers load it and the server itself could serve it:
//!
//! - `DIR/storage.sqlite3`: the server's schema, statement for statement as
//!   the server created it in the fixture (`mcp_schema.sql`, FTS5 table and
//!   triggers included, so its `search_messages` finds the corpus), TEXT
//!   timestamps, WAL journal mode; one project, one agent row per name, one
//!   `messages` row per message (ids 1..N, oldest first, as the server
//!   numbers sends) and a `message_recipients` row per to/cc recipient;
//! - `DIR/archive/` (the storage root): `.gitattributes`,
//!   `projects/<slug>/agents/<name>/profile.json`, each message's canonical
//!   copy plus outbox and inbox copies (rendered by [`mcp_archive`], the
//!   code `amail reply` writes with), and the `messages/threads/` digests.
//!
//! What differs from a server-written root, on purpose:
//! - the archive is not a Git repository: one commit per message (the
//!   server's way) would take longer than everything else together, and
//!   the server runs `git init` itself when it first writes to a root
//!   without one;
//! - files go out with a plain `fs::write` and the database with no
//!   rollback journal on disk and no fsync: a corpus is scratch data that
//!   is written once, and fsyncing several hundred thousand files would
//!   take minutes;
//! - like the plain corpus, no read or ack state is set (no acks are
//!   routed), so both forms load as the same inbox.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, SubsecRound, Utc};
use rusqlite::{params, Connection};
use serde_json::Value;

use crate::demo::mailbox::DemoMail;
use amail_core::source::detect::DB_FILE;
use amail_core::stores::mcp::archive::{self as mcp_archive, ArchiveMessage};
use amail_core::stores::mcp::timestamps::format_text;
use amail_core::stores::mcp::timestamps::python_iso;

/// The project every corpus message belongs to: the fixture's, so the
/// corpus and the fixture read alike.
pub const PROJECT_KEY: &str = "/home/dev/demo-repo";
/// The server's `slugify(PROJECT_KEY)`.
pub const PROJECT_SLUG: &str = "home-dev-demo-repo";

/// The server's DDL, copied from the fixture's `sqlite_master` (tables,
/// indexes, FTS5 table, triggers; SQLite makes the FTS shadow tables and
/// the automatic indexes itself), so `sqlite_master` reads the same.
pub const SCHEMA: &str = include_str!("mcp_schema.sql");

/// What [`write_mcp_corpus`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct McpCorpusInfo {
    /// The storage root (`DIR/archive`, holding `projects/`).
    pub archive: PathBuf,
    /// The database (`DIR/storage.sqlite3`).
    pub db: PathBuf,
    pub messages: usize,
    pub agents: usize,
    /// Archive files written (every copy, profiles, digests).
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Messages that got a large body.
    pub large: usize,
}

/// Writes the first `n` corpus messages as a storage root under `dir`:
/// `dir/archive` and `dir/storage.sqlite3` (neither may exist yet, unless
/// `archive` is an empty folder).
pub fn write_mcp_corpus(dir: &Path, n: usize, now: DateTime<Utc>) -> io::Result<McpCorpusInfo> {
    write_store(dir, &super::corpus_mails(n, now))
}

/// An agent row.
struct Agent {
    id: i64,
    name: String,
    inception: DateTime<Utc>,
    last_active: DateTime<Utc>,
}

/// Whether a storage root may be written at `dir`: no database there
/// and no archive, or an empty one; else `AlreadyExists`, saying so.
pub fn fresh(dir: &Path) -> io::Result<()> {
    let archive = dir.join("archive");
    if dir.join(DB_FILE).exists()
        || (archive.exists() && std::fs::read_dir(&archive)?.next().is_some())
    {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{}: has an archive/ or {DB_FILE} already; a corpus goes into a fresh folder",
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// Writes `mails` (oldest first) as a storage root under `dir`, as
/// [`write_mcp_corpus`] does.
pub fn write_store(dir: &Path, mails: &[DemoMail]) -> io::Result<McpCorpusInfo> {
    fresh(dir)?;
    let archive = dir.join("archive");
    let db = dir.join(DB_FILE);
    let messages = archive_messages(mails);
    let agents = agents(&messages);
    let project_created = agents
        .first()
        .map_or_else(Utc::now, |a| a.inception - Duration::seconds(1));
    std::fs::create_dir_all(dir)?;
    write_db(&db, project_created, &agents, &messages).map_err(io::Error::other)?;
    let (files, bytes) = write_archive(&archive, &agents, &messages)?;
    Ok(McpCorpusInfo {
        archive,
        db,
        messages: messages.len(),
        agents: agents.len(),
        files,
        bytes,
        large: mails.iter().filter(|m| m.body.len() > 32_000).count(),
    })
}

/// The messages with the server's ids (1.., in send order) and envelope.
/// Times keep microseconds only, as the database and front matter do.
fn archive_messages(mails: &[DemoMail]) -> Vec<ArchiveMessage> {
    mails
        .iter()
        .enumerate()
        .map(|(i, m)| ArchiveMessage {
            id: i as i64 + 1,
            thread_id: Some(m.thread.trim().to_string()).filter(|t| !t.is_empty()),
            project: PROJECT_KEY.into(),
            project_slug: PROJECT_SLUG.into(),
            from: m.from.clone(),
            to: m.to.clone(),
            cc: m.cc.clone(),
            bcc: Vec::new(),
            subject: m.subject.clone(),
            importance: m.importance.clone(),
            ack_required: m.ack_required,
            created: m.at.trunc_subsecs(6),
            body_md: m.body.clone(),
            from_project: None,
        })
        .collect()
}

/// One agent per name, in order of first appearance (senders register
/// before they send, recipients before they are sent to), registered a
/// second apart before the first message; last active at their last send,
/// as the server records it.
fn agents(messages: &[ArchiveMessage]) -> Vec<Agent> {
    let start = messages
        .first()
        .map_or_else(Utc::now, |m| m.created - Duration::minutes(10));
    let mut out: Vec<Agent> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for m in messages {
        for name in std::iter::once(&m.from).chain(&m.to).chain(&m.cc) {
            if !index.contains_key(name.as_str()) {
                index.insert(name, out.len());
                let inception = start + Duration::seconds(out.len() as i64 + 1);
                out.push(Agent {
                    id: out.len() as i64 + 1,
                    name: name.clone(),
                    inception,
                    last_active: inception,
                });
            }
        }
        out[index[m.from.as_str()]].last_active = m.created;
    }
    out
}

/// The demo's roles (see `inbox::demo`), as the fixture's agents describe
/// themselves at registration.
fn task_description(name: &str) -> &'static str {
    match name {
        "BlueLake" => "Orchestrator (crank/mayor) for the corpus waves",
        "Chiron" => "Helper answering HELP_REQUESTs",
        _ => "Demigod worker on corpus beads",
    }
}

/// The database, in one transaction, then switched to WAL as the server
/// leaves it (closing the last connection folds the WAL back in, so one
/// file remains, like the fixture's).
fn write_db(
    path: &Path,
    project_created: DateTime<Utc>,
    agents: &[Agent],
    messages: &[ArchiveMessage],
) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    // Scratch data: the rollback journal stays in memory (the transaction
    // can still roll back) and nothing is fsynced.
    conn.query_row("PRAGMA journal_mode=MEMORY", [], |_| Ok(()))?;
    conn.execute_batch("PRAGMA synchronous=OFF")?;
    let tx = conn.transaction()?;
    tx.execute_batch(SCHEMA)?;
    tx.execute(
        "INSERT INTO projects (id, slug, human_key, created_at) VALUES (1, ?1, ?2, ?3)",
        params![PROJECT_SLUG, PROJECT_KEY, format_text(project_created)],
    )?;
    let mut ids: HashMap<&str, i64> = HashMap::new();
    {
        let mut stmt = tx.prepare(
            "INSERT INTO agents (id, project_id, name, program, model, task_description,
                 inception_ts, last_active_ts, attachments_policy, contact_policy, is_active, deleted_ts)
             VALUES (?1, 1, ?2, 'claude-code', 'claude-sonnet', ?3, ?4, ?5, 'auto', 'auto', 1, NULL)",
        )?;
        for a in agents {
            stmt.execute(params![
                a.id,
                a.name,
                task_description(&a.name),
                format_text(a.inception),
                format_text(a.last_active),
            ])?;
            ids.insert(&a.name, a.id);
        }
    }
    {
        let mut message = tx.prepare(
            "INSERT INTO messages (id, project_id, sender_id, thread_id, subject, body_md,
                 importance, ack_required, created_ts, attachments)
             VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, '[]')",
        )?;
        let mut recipient = tx.prepare(
            "INSERT INTO message_recipients (message_id, agent_id, kind, read_ts, ack_ts)
             VALUES (?1, ?2, ?3, NULL, NULL)",
        )?;
        for m in messages {
            message.execute(params![
                m.id,
                ids[m.from.as_str()],
                m.thread_id,
                m.subject,
                m.body_md,
                m.importance,
                m.ack_required,
                format_text(m.created),
            ])?;
            // One row per (message, agent), the table's key: an agent named
            // twice keeps its first kind, as the server's send does.
            let mut seen = HashSet::new();
            let named =
                m.to.iter()
                    .map(|n| (n, "to"))
                    .chain(m.cc.iter().map(|n| (n, "cc")));
            for (name, kind) in named {
                if seen.insert(name.as_str()) {
                    recipient.execute(params![m.id, ids[name.as_str()], kind])?;
                }
            }
        }
    }
    tx.commit()?;
    conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))?;
    conn.close().map_err(|(_, e)| e)
}

/// The archive files. Returns (files, bytes).
fn write_archive(
    archive: &Path,
    agents: &[Agent],
    messages: &[ArchiveMessage],
) -> io::Result<(usize, u64)> {
    let mut files = 0usize;
    let mut bytes = 0u64;
    let mut made: HashSet<PathBuf> = HashSet::new();
    let mut write = |rel: &str, content: &[u8]| -> io::Result<()> {
        let path = archive.join(rel);
        if let Some(dir) = path.parent() {
            if !made.contains(dir) {
                std::fs::create_dir_all(dir)?;
                made.insert(dir.to_path_buf());
            }
        }
        std::fs::write(&path, content)?;
        files += 1;
        bytes += content.len() as u64;
        Ok(())
    };
    // What the server's `_ensure_repo` writes first.
    write(".gitattributes", b"*.json text\n*.md text\n")?;
    let project = format!("projects/{PROJECT_SLUG}");
    for a in agents {
        write(
            &format!("{project}/agents/{}/profile.json", a.name),
            profile_json(a).as_bytes(),
        )?;
    }
    // Thread digests are appended to, message by message, by the server;
    // here they are built in memory and written once each.
    let mut digests: Vec<(String, String)> = Vec::new();
    let mut digest_of: HashMap<String, usize> = HashMap::new();
    for m in messages {
        let content = mcp_archive::render_file(m);
        let paths = mcp_archive::copy_paths(m);
        for rel in &paths {
            write(rel, content.as_bytes())?;
        }
        let Some(thread) = m.thread_id.as_deref() else {
            continue;
        };
        // A thread id that is no safe file name gets no digest (the server
        // refuses such ids at send time).
        if amail_core::stores::names::unsafe_component(thread).is_some() {
            continue;
        }
        let i = *digest_of.entry(thread.to_string()).or_insert_with(|| {
            digests.push((thread.to_string(), format!("# Thread {thread}\n\n")));
            digests.len() - 1
        });
        digests[i]
            .1
            .push_str(&mcp_archive::digest_entry(m, &paths[0]));
    }
    for (thread, text) in &digests {
        write(
            &format!("{project}/messages/threads/{thread}.md"),
            text.as_bytes(),
        )?;
    }
    Ok((files, bytes))
}

/// `profile.json` as the server's `write_agent_profile` writes it at
/// registration: `_agent_to_dict` (no `contact_policy`), sorted keys,
/// indent 2, a final newline. Every value here is ASCII, so
/// `ensure_ascii` changes nothing.
fn profile_json(a: &Agent) -> String {
    let mut p: BTreeMap<&str, Value> = BTreeMap::new();
    p.insert("attachments_policy", "auto".into());
    p.insert("deleted_ts", Value::Null);
    p.insert("id", a.id.into());
    p.insert("inception_ts", python_iso(a.inception).into());
    p.insert("is_active", true.into());
    p.insert("last_active_ts", python_iso(a.inception).into());
    p.insert("model", "claude-sonnet".into());
    p.insert("name", a.name.clone().into());
    p.insert("program", "claude-code".into());
    p.insert("project_id", 1.into());
    p.insert("task_description", task_description(&a.name).into());
    let mut s = serde_json::to_string_pretty(&p).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap() + Duration::microseconds(123_456)
    }

    #[test]
    fn store_has_every_copy_profile_and_digest() {
        let dir = tempfile::tempdir().unwrap();
        let info = write_mcp_corpus(dir.path(), 44, now()).unwrap();
        assert_eq!(info.messages, 44);
        let project = info.archive.join("projects").join(PROJECT_SLUG);
        let mails = super::super::corpus_mails(44, now());
        let copies: usize = mails
            .iter()
            .map(|m| {
                let mut r: Vec<&String> = m.to.iter().chain(&m.cc).collect();
                r.sort();
                r.dedup();
                2 + r.len()
            })
            .sum();
        let digests = std::fs::read_dir(project.join("messages/threads"))
            .unwrap()
            .count();
        assert_eq!(info.files, 1 + info.agents + copies + digests);
        for a in std::fs::read_dir(project.join("agents")).unwrap() {
            assert!(a.unwrap().path().join("profile.json").is_file());
        }
        // The digest entry format, on the first message of a thread.
        let first = &archive_messages(&mails)[0];
        let thread = first.thread_id.as_deref().unwrap();
        let digest =
            std::fs::read_to_string(project.join(format!("messages/threads/{thread}.md"))).unwrap();
        let canonical = &mcp_archive::copy_paths(first)[0];
        assert!(digest.starts_with(&format!(
            "# Thread {thread}\n\n### {}\n\n## {} \u{2014} {} \u{2192} ",
            first.subject,
            python_iso(first.created),
            first.from
        )));
        assert!(digest.contains(&format!("[View canonical]({canonical})\n\n")));
        assert!(info.archive.join(canonical).is_file());
    }

    /// The copies and digests are byte for byte what `amail reply` writes
    /// (`mcp_archive::write_bundle`, one message at a time, appending to
    /// the digests), so the two cannot drift apart.
    #[test]
    fn files_are_what_the_bundle_writer_writes() {
        let mails = super::super::corpus_mails(66, now());
        let ours = tempfile::tempdir().unwrap();
        let info = write_store(ours.path(), &mails).unwrap();
        let theirs = tempfile::tempdir().unwrap();
        let mut rels = Vec::new();
        for m in archive_messages(&mails) {
            rels.extend(mcp_archive::write_bundle(theirs.path(), &m).unwrap());
        }
        rels.sort();
        rels.dedup();
        assert!(rels.iter().any(|r| r.contains("/messages/threads/")));
        for rel in &rels {
            assert_eq!(
                std::fs::read_to_string(info.archive.join(rel)).unwrap(),
                std::fs::read_to_string(theirs.path().join(rel)).unwrap(),
                "{rel}"
            );
        }
        // Everything else is a profile or .gitattributes.
        assert_eq!(info.files, rels.len() + info.agents + 1);
    }

    #[test]
    fn digest_cuts_long_bodies_like_the_server() {
        let mut m = archive_messages(&super::super::corpus_mails(1, now())).remove(0);
        m.body_md = format!("{}   tail", "é".repeat(1200));
        let e = mcp_archive::digest_entry(&m, "x.md");
        assert!(e.contains(&format!("\n\n{}\n...\n\n---\n\n", "é".repeat(1200))));
    }

    #[test]
    fn refuses_a_used_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(DB_FILE), "x").unwrap();
        assert!(write_mcp_corpus(dir.path(), 10, now()).is_err());
    }
}
