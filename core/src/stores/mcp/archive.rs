//! Writing into an mcp_agent_mail Git archive exactly as the server does
//! (PyPI mcp-agent-mail 0.1.0, `storage.write_message_bundle`):
//!
//! - the same bytes in the canonical copy `projects/<slug>/messages/YYYY/MM/`,
//!   the sender's `agents/<from>/outbox/YYYY/MM/` and each recipient's
//!   `agents/<to>/inbox/YYYY/MM/`, named `<%Y-%m-%dT%H-%M-%SZ>__<subject-slug>__<id>.md`;
//! - file content `---json\n<front matter, indent 2, sorted keys, ASCII>\n---\n\n<body.strip()>\n`;
//! - an entry appended to `messages/threads/<thread_id>.md`;
//! - the server's own locks: `projects/<slug>/.archive.lock` around the
//!   whole write and `.commit.lock` around the commit, at the archive root
//!   (0.1.0, 0.2.x) or per project, `projects/<slug>/.commit.lock` (0.3.x,
//!   told by its schema: [`CommitLock`]) (`filelock.SoftFileLock`: a lock
//!   is held while its file exists);
//! - for a sender from another project (a reply across projects), the
//!   upstream server's `from_project`, `from_project_slug` and
//!   `from_address` keys;
//! - one Git commit when the archive is a Git repository.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::db::MessageRow;
use super::render;
use super::timestamps::python_iso;
use crate::fsio;
use crate::stores::error::Error;
use crate::stores::names::{check_components, subject_slug, unsafe_component};

/// The envelope the server writes as front matter.
#[derive(Debug, Clone)]
pub struct ArchiveMessage {
    pub id: i64,
    pub thread_id: Option<String>,
    pub project: String,
    pub project_slug: String,
    pub from: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub bcc: Vec<String>,
    pub subject: String,
    pub importance: String,
    pub ack_required: bool,
    pub created: DateTime<Utc>,
    pub body_md: String,
    /// The sender's project when it is not `project` (a reply across
    /// projects is written into the recipient's project).
    pub from_project: Option<FromProject>,
}

/// The project a cross-project sender belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromProject {
    pub human_key: String,
    pub slug: String,
}

/// Where the server takes its commit lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitLock {
    /// `<archive>/.commit.lock` (0.1.0, 0.2.x).
    ArchiveRoot,
    /// `projects/<slug>/.commit.lock` (0.3.x).
    PerProject,
}

impl CommitLock {
    /// The lock file for a commit in project `slug`.
    pub fn path(self, archive: &Path, slug: &str) -> PathBuf {
        match self {
            CommitLock::ArchiveRoot => archive.join(".commit.lock"),
            CommitLock::PerProject => archive.join("projects").join(slug).join(".commit.lock"),
        }
    }
}

/// `<ISO>__<subject-slug>__<id>.md`.
pub fn file_name(m: &ArchiveMessage) -> String {
    format!(
        "{}__{}__{}.md",
        m.created.format("%Y-%m-%dT%H-%M-%SZ"),
        subject_slug(&m.subject),
        m.id
    )
}

/// The file content, byte for byte as the Python server writes it.
pub fn render_file(m: &ArchiveMessage) -> String {
    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    render::file(&render::Fields {
        id: m.id,
        thread_id: m.thread_id.as_deref(),
        project: &m.project,
        project_slug: &m.project_slug,
        from: &m.from,
        from_project: m
            .from_project
            .as_ref()
            .map(|fp| (fp.human_key.as_str(), fp.slug.as_str())),
        to: strs(&m.to),
        cc: strs(&m.cc),
        bcc: strs(&m.bcc),
        subject: &m.subject,
        importance: &m.importance,
        ack_required: m.ack_required,
        created: m.created,
        body_md: &m.body_md,
    })
}

/// The archive form of a database row that has no archive file, and
/// where it holds the id and subject.
pub(crate) fn render_row_file(row: &MessageRow) -> (String, render::Places) {
    let mut out = String::with_capacity(row_file_size_hint(row));
    let places = render_row_file_into(row, &mut out);
    (out, places)
}

/// [`render_row_file`], appended to `out` (a load gathers a chunk of
/// rows' texts in one buffer).
pub(crate) fn render_row_file_into(row: &MessageRow, out: &mut String) -> render::Places {
    render::file_into(&row_fields(row), out)
}

/// About how long [`render_row_file_into`] writes `row`'s file: its texts
/// and the front matter's keys (a few more for escapes and long names).
pub(crate) fn row_file_size_hint(row: &MessageRow) -> usize {
    let names: usize = row.recipients.iter().map(|r| r.agent.len() + 8).sum();
    render::FRONT_MATTER_KEYS
        + row.subject.len()
        + row.body_md.len()
        + row.project_key.len()
        + row.project_slug.len()
        + row.sender.len()
        + row.thread_id.as_ref().map_or(0, String::len)
        + row.importance.len()
        + names
}

/// A row's envelope and body as its archive file holds them.
fn row_fields(row: &MessageRow) -> render::Fields<'_> {
    let kind = |k: &str| -> Vec<&str> {
        row.recipients
            .iter()
            .filter(|r| r.kind == k)
            .map(|r| &*r.agent)
            .collect()
    };
    render::Fields {
        id: row.id,
        thread_id: row.thread_id.as_deref(),
        project: &row.project_key,
        project_slug: &row.project_slug,
        from: &row.sender,
        to: kind("to"),
        cc: kind("cc"),
        bcc: kind("bcc"),
        subject: &row.subject,
        importance: &row.importance,
        ack_required: row.ack_required,
        created: row.created.unwrap_or(DateTime::<Utc>::UNIX_EPOCH),
        body_md: &row.body_md,
        from_project: None,
    }
}

/// The paths (relative to the archive root) of every copy of a message.
pub fn copy_paths(m: &ArchiveMessage) -> Vec<String> {
    let ym = m.created.format("%Y/%m").to_string();
    let name = file_name(m);
    let base = format!("projects/{}", m.project_slug);
    let mut paths = vec![
        format!("{base}/messages/{ym}/{name}"),
        format!("{base}/agents/{}/outbox/{ym}/{name}", m.from),
    ];
    let mut seen = std::collections::HashSet::new();
    for r in m.to.iter().chain(&m.cc).chain(&m.bcc) {
        if seen.insert(r.as_str()) {
            paths.push(format!("{base}/agents/{r}/inbox/{ym}/{name}"));
        }
    }
    paths
}

/// Writes all copies and the thread digest entry. Returns the paths
/// written, relative to the archive root (for the commit).
pub fn write_bundle(archive: &Path, m: &ArchiveMessage) -> Result<Vec<String>, Error> {
    let mut names = vec![
        ("project slug", m.project_slug.as_str()),
        ("sender", &m.from),
    ];
    names.extend(
        m.to.iter()
            .chain(&m.cc)
            .chain(&m.bcc)
            .map(|r| ("recipient", r.as_str())),
    );
    check_components(&names)?;
    let content = render_file(m);
    let mut written = Vec::new();
    for rel in copy_paths(m) {
        fsio::write_atomic(&archive.join(&rel), content.as_bytes())?;
        written.push(rel);
    }
    if let Some(digest) = append_digest(archive, m, &written[0])? {
        written.push(digest);
    }
    Ok(written)
}

/// Appends to `messages/threads/<thread_id>.md` as the server does. Thread
/// ids that would escape the folder get no digest (the server would refuse
/// them too).
fn append_digest(
    archive: &Path,
    m: &ArchiveMessage,
    canonical_rel: &str,
) -> Result<Option<String>, Error> {
    let Some(thread) = m
        .thread_id
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    else {
        return Ok(None);
    };
    if unsafe_component(thread).is_some() {
        return Ok(None);
    }
    let rel = format!("projects/{}/messages/threads/{thread}.md", m.project_slug);
    let path = archive.join(&rel);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut entry = digest_entry(m, canonical_rel);
    let exists = path.exists();
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    if !exists {
        entry.insert_str(0, &format!("# Thread {thread}\n\n"));
    }
    let crash = crate::fsio::crash_point;
    crash();
    let (a, b) = entry.as_bytes().split_at(entry.len() / 2);
    f.write_all(a).map_err(|e| Error::io(&path, e))?;
    crash();
    f.write_all(b).map_err(|e| Error::io(&path, e))?;
    f.sync_all().map_err(|e| Error::io(&path, e))?;
    Ok(Some(rel))
}

/// One entry of `messages/threads/<thread>.md`, as the server's
/// `_update_thread_digest` appends it: subject, created, sender and every
/// recipient, the canonical path, the body cut to 1200 characters.
pub fn digest_entry(m: &ArchiveMessage, canonical_rel: &str) -> String {
    let recipients: Vec<&str> =
        m.to.iter()
            .chain(&m.cc)
            .chain(&m.bcc)
            .map(String::as_str)
            .collect();
    let body = m.body_md.trim();
    let preview = match body.char_indices().nth(1200) {
        Some((cut, _)) => format!("{}\n...", body[..cut].trim_end()),
        None => body.to_string(),
    };
    let subject = m.subject.trim();
    let mut entry = String::new();
    if !subject.is_empty() {
        entry.push_str(&format!("### {subject}\n\n"));
    }
    entry.push_str(&format!(
        "## {} \u{2014} {} \u{2192} {}\n\n[View canonical]({canonical_rel})\n\n{preview}\n\n---\n\n",
        python_iso(m.created),
        m.from,
        recipients.join(", ")
    ));
    entry
}

/// Commits `paths` when `archive` is a Git work tree, with the server's
/// commit subject `mail: <from> -> <recipients> | <subject>`. The server's
/// default identity is used unless GIT_AUTHOR_* / GIT_COMMITTER_* are set.
/// Returns whether a commit was made.
pub(crate) fn git_commit(
    archive: &Path,
    m: &ArchiveMessage,
    paths: &[String],
    tool: &str,
    lock: CommitLock,
) -> Result<bool, Error> {
    if !archive.join(".git").exists() {
        return Ok(false);
    }
    let _lock = SoftLock::acquire(&lock.path(archive, &m.project_slug), LOCK_TIMEOUT)?;
    let recipients: Vec<&str> =
        m.to.iter()
            .chain(&m.cc)
            .chain(&m.bcc)
            .map(String::as_str)
            .collect();
    let message = format!(
        "mail: {} -> {} | {}\n\nTOOL: {tool}\nAgent: {}\nProject: {}\nStarted: {}\nStatus: SUCCESS\nThread: {}\n",
        m.from,
        recipients.join(", "),
        m.subject,
        m.from,
        m.project,
        python_iso(m.created),
        m.thread_id.clone().unwrap_or_else(|| m.id.to_string()),
    );
    let git = |args: &[&str]| -> Result<(), Error> {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(archive);
        for (k, v) in [
            ("user.name", "mcp-agent"),
            ("user.email", "mcp-agent@example.com"),
        ] {
            cmd.arg("-c").arg(format!("{k}={v}"));
        }
        cmd.args(["-c", "commit.gpgsign=false"]);
        cmd.args(args);
        let out = cmd.output().map_err(|e| Error::io(archive, e))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(Error::Source(format!(
                "{}: git {} failed: {}",
                archive.display(),
                args.first().copied().unwrap_or(""),
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
    };
    let mut add = vec!["add", "--"];
    add.extend(paths.iter().map(String::as_str));
    git(&add)?;
    let mut commit = vec!["commit", "-q", "--no-verify", "-m", &message, "--"];
    commit.extend(paths.iter().map(String::as_str));
    git(&commit)?;
    Ok(true)
}

/// How long we wait for the server's archive lock before giving up.
pub(crate) const LOCK_TIMEOUT: Duration = Duration::from_secs(60);
/// The server treats a lock whose owner is gone and which is older than this as stale.
const STALE_AFTER: Duration = Duration::from_secs(180);

/// The server's `SoftFileLock`: held while the lock file exists, created
/// with O_EXCL; `<lock>.owner.json` records `{pid, created_ts}` so either
/// side can clear a stale lock left by a dead process.
pub(crate) struct SoftLock {
    path: PathBuf,
    owner: PathBuf,
}

impl SoftLock {
    pub(crate) fn acquire(path: &Path, timeout: Duration) -> Result<SoftLock, Error> {
        let owner = owner_path(path);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let start = Instant::now();
        loop {
            match OpenOptions::new().write(true).create_new(true).open(path) {
                Ok(_) => {
                    let now = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map(|d| d.as_secs_f64())
                        .unwrap_or(0.0);
                    let meta = serde_json::json!({"pid": std::process::id(), "created_ts": now});
                    let _ = fs::write(&owner, meta.to_string());
                    return Ok(SoftLock {
                        path: path.to_path_buf(),
                        owner,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if is_stale(path, &owner) {
                        let _ = fs::remove_file(path);
                        let _ = fs::remove_file(&owner);
                        continue;
                    }
                    if start.elapsed() >= timeout {
                        return Err(Error::Source(format!(
                            "{}: still locked after {}s by another writer (the server?); \
                             if no server runs, remove the lock file",
                            path.display(),
                            timeout.as_secs()
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => return Err(Error::io(path, e)),
            }
        }
    }
}

impl Drop for SoftLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.owner);
        let _ = fs::remove_file(&self.path);
        if let Some(dir) = self.path.parent() {
            // Best effort: the lock is gone either way.
            let _ = fsio::sync_dir(dir);
        }
    }
}

fn owner_path(lock: &Path) -> PathBuf {
    let mut name = lock.file_name().unwrap_or_default().to_os_string();
    name.push(".owner.json");
    lock.with_file_name(name)
}

/// Stale when the owner process is gone (or unknown) and the lock is older
/// than the server's stale timeout, the server's own rule.
fn is_stale(lock: &Path, owner: &Path) -> bool {
    let meta: Option<Value> = fs::read(owner)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let pid = meta
        .as_ref()
        .and_then(|m| m.get("pid"))
        .and_then(Value::as_u64);
    if let Some(pid) = pid {
        if Path::new("/proc").is_dir() && Path::new(&format!("/proc/{pid}")).exists() {
            return false;
        }
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let created = meta
        .as_ref()
        .and_then(|m| m.get("created_ts"))
        .and_then(Value::as_f64)
        .or_else(|| {
            fs::metadata(lock)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_secs_f64())
        });
    match created {
        Some(c) => now - c >= STALE_AFTER.as_secs_f64(),
        None => false,
    }
}
