//! The mcp_agent_mail `storage.sqlite3`, without disturbing the live
//! server: a read-only connection, a busy timeout so a writer's lock makes us
//! wait instead of fail, and one read transaction so the snapshot is
//! consistent (in WAL mode readers never block the writer); writes (ack,
//! reply) in one short `BEGIN IMMEDIATE` transaction (`Tx`).
//!
//! Works on the Python schema (TEXT timestamps; with or without `topic`) and
//! on the Rust port's (INTEGER microseconds). Only columns present in every
//! dialect are read.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
// The names by id hashed with hashbrown's default (foldhash), not std's
// SipHash (callgrind: a tenth of the reader's instructions went to hashing).
use hashbrown::HashMap;
use rusqlite::{Connection, OpenFlags};

use super::timestamps::{self, Dialect};
use crate::stores::error::NameNotUtf8;

/// How long a reader or writer waits for a busy database before giving up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Rows in the first page of a load's `read_pages`: the first step of a
/// load in steps (`stores::FIRST_STEP`, 1,000 messages) comes after it.
pub const PAGE_ROWS: usize = 1_024;

/// Rows in a load's largest page: each page is four times the one before
/// up to this. A page is parsed on every core (threads started per page)
/// while the next one is read, then its entries are joined on one.
pub(crate) const PAGE_ROWS_MOST: usize = 8_192;

/// One `message_recipients` row with the agent's name.
#[derive(Debug, Clone, PartialEq)]
pub struct RecipientRow {
    pub agent: Arc<str>,
    pub kind: Cow<'static, str>,
    pub read_ts: Option<DateTime<Utc>>,
    pub ack_ts: Option<DateTime<Utc>>,
}

/// One `messages` row, joined with its project, sender and recipients.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRow {
    pub id: i64,
    pub project_slug: Arc<str>,
    pub project_key: Arc<str>,
    pub sender: Arc<str>,
    pub thread_id: Option<String>,
    pub subject: String,
    pub body_md: String,
    pub importance: Cow<'static, str>,
    pub ack_required: bool,
    pub created: Option<DateTime<Utc>>,
    pub recipients: Vec<RecipientRow>,
    /// The first of the row's texts (`thread_id`, `subject`, `body_md`,
    /// `importance`, and the names and kinds it is read with: `sender's
    /// name`, `recipient's kind`) that held bytes that are not UTF-8, read
    /// with U+FFFD in their place: the load names the row among its
    /// problems.
    pub not_utf8: Option<&'static str>,
}

/// [`BUSY_TIMEOUT`], or `AMAIL_SQLITE_BUSY_MS` milliseconds (a test hook,
/// so a test of a held lock does not wait five seconds).
pub(crate) fn busy_timeout() -> Duration {
    std::env::var("AMAIL_SQLITE_BUSY_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(BUSY_TIMEOUT, Duration::from_millis)
}

/// Opens the database read-only with a busy timeout, leaving nothing
/// beside it. A read-only connection to a WAL database still creates the
/// `-wal` and `-shm` where there are none (and cannot remove them after),
/// a write into the storage root that the user never asked for. Where
/// there is no `-wal`, no connection has the database open (the last one
/// to close checkpoints and removes it), so everything committed is in the
/// database file: it is read as `immutable`, which opens no side file and
/// takes no lock. Where there is a `-wal`, a server may be writing: the
/// usual read-only connection, which reads the WAL and takes the readers'
/// locks, into side files that are already there.
///
/// A server that starts in the moment between the look and the end of the
/// read writes into a WAL of its own, which this read does not see (it
/// began before them); only a checkpoint, after about a thousand pages of
/// its writes, touches the database file under it. A rollback-journal
/// database is opened the usual way: its readers create nothing, and its
/// writers change the file in place, so it is never read unlocked.
pub(crate) fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let immutable = (in_wal_mode(path) && !side_file(path, "-wal").exists())
        .then(|| immutable_uri(path))
        .flatten();
    let conn = match immutable {
        Some(uri) => Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)?,
        None => Connection::open_with_flags(path, flags)?,
    };
    conn.busy_timeout(busy_timeout())?;
    Ok(conn)
}

/// Whether the database file's header says WAL (its file format's write
/// and read versions, bytes 18 and 19, are 2). Unreadable or short: no,
/// and the usual open says why.
fn in_wal_mode(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 20];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head[18] == 2 && head[19] == 2)
}

/// `<db><suffix>`: one of SQLite's side files of the database `db`.
pub(crate) fn side_file(db: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// `file:` URI of `path` with `immutable=1`, its path percent-encoded by
/// `url`: a `?` or `#` in a folder's name would otherwise end the path,
/// and `%` start an escape. `None` where the path cannot be made
/// absolute.
fn immutable_uri(path: &Path) -> Option<String> {
    let mut uri = url::Url::from_file_path(std::path::absolute(path).ok()?).ok()?;
    uri.set_query(Some("immutable=1"));
    Some(uri.into())
}

/// Opens the database for a short write (ack, reply) with a busy timeout.
/// The journal mode is left as the server set it (WAL).
pub(crate) fn open_read_write(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(busy_timeout())?;
    Ok(conn)
}

/// Which timestamp dialect the database uses: what the stored values are,
/// else what the `created_ts` column is declared as.
pub fn dialect(conn: &Connection) -> rusqlite::Result<Dialect> {
    let stored: Option<String> = conn
        .query_row(
            "SELECT typeof(created_ts) FROM messages ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .ok();
    if let Some(t) = stored {
        return Ok(if t == "integer" {
            Dialect::IntegerMicros
        } else {
            Dialect::Text
        });
    }
    let declared = column_type(conn, "messages", "created_ts")?.unwrap_or_default();
    Ok(if declared.to_ascii_uppercase().contains("INT") {
        Dialect::IntegerMicros
    } else {
        Dialect::Text
    })
}

/// The declared type of a column, `None` when the column does not exist.
pub(crate) fn column_type(
    conn: &Connection,
    table: &str,
    column: &str,
) -> rusqlite::Result<Option<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?;
    for row in rows {
        let (name, ty) = row?;
        if name == column {
            return Ok(Some(ty));
        }
    }
    Ok(None)
}

/// Every message's id, as text: what an id the database does not hold is
/// compared with for the one it is a slip from (asked only then).
pub(crate) fn message_ids(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT CAST(id AS TEXT) FROM messages WHERE id IS NOT NULL")?;
    let ids = stmt.query_map([], |r| r.get(0))?;
    ids.collect()
}

/// `e`, an id this database does not hold, naming the id it is a slip
/// from ([`Error::near_miss`](crate::stores::Error::near_miss)); as it
/// was when the ids cannot be read (the error is about the id).
pub(crate) fn not_found_in(conn: &Connection, e: crate::stores::Error) -> crate::stores::Error {
    match message_ids(conn) {
        Ok(ids) => e.near_miss(ids.iter().map(String::as_str)),
        Err(_) => e,
    }
}

/// Every message with its recipients, newest first (`created_ts`, then
/// id), in one consistent read snapshot: `read_pages` collected.
pub fn read_messages(conn: &Connection) -> rusqlite::Result<Vec<MessageRow>> {
    read_messages_in_pages(conn, PAGE_ROWS)
}

/// [`read_messages`] with a first page of `first` rows: every page after
/// it takes its recipients from the table's one walk (see [`Ahead`]), so a
/// small database is read the second way with `first` 1. For the tests
/// and the `mcp_row` fuzz target, which hold the two ways to each other.
#[cfg(any(test, fuzzing))]
pub fn read_messages_from_a_page_of(
    conn: &Connection,
    first: usize,
) -> rusqlite::Result<Vec<MessageRow>> {
    read_messages_in_pages(conn, first)
}

fn read_messages_in_pages(conn: &Connection, first: usize) -> rusqlite::Result<Vec<MessageRow>> {
    let mut out = Vec::new();
    read_pages(
        conn,
        first,
        PAGE_ROWS_MOST,
        || true,
        |_| (),
        |page| {
            out.extend(page);
            ControlFlow::Continue(())
        },
    )?;
    Ok(out)
}

/// The messages newest first, `created_ts` then id, each with its
/// recipients (`to`, `cc`, `bcc`, then by name), handed to `on_page` in
/// pages as they are read (`first` rows, then four times as many each
/// page up to `most`), so the first page costs what it
/// holds, not what the database holds (issue 16); `on_count` first gets
/// the number of `messages` rows (an upper bound: a row whose project is
/// missing is not read). All in one read transaction: one snapshot,
/// whatever a writer does meanwhile. `on_page` returning `Break` stops the
/// read.
///
/// One statement walks the rows in that order: the server indexes
/// `created_ts` (`idx_messages_created_ts`, in PyPI 0.1.0, upstream 0.3
/// and the Rust port), and an index on one column of a rowid table holds
/// its entries in (`created_ts`, rowid) order, so SQLite reads the index
/// backwards and never sorts (`SCAN m USING INDEX idx_messages_created_ts`
/// with statistics or without). A page is the next rows of that one
/// walk: no page boundary can lose or repeat a row, however many share a
/// time, where pages queried apart (`WHERE (created_ts, id) < (?, ?)
/// LIMIT n`) would seek again per page and scan the run of equal times
/// they had already passed. Without such an index SQLite sorts every row
/// once before the first (the load's first page then waits for that, as
/// the whole query did before); paged queries would sort per page.
/// The first page's recipients come by its ids, through the primary key
/// of `message_recipients` (its `message_id` leads), by a second statement
/// (one walk of them in the messages' order is sorted whole before its
/// first row by SQLite's planner without statistics). The pages after it
/// take theirs from one walk of the whole table ([`Ahead`]), made for the
/// first page after it for which `walk_ahead` says yes (asked once a
/// page until then; the pages before it come by the join too): the
/// first page waits for its own recipients only, the rest do not pay
/// two seeks a recipient. The walk is a burst (a million messages: about
/// a third of a second of a core), so the inbox says yes only once its
/// first step is out: on two cores the walk would take the step's time.
pub(crate) fn read_pages(
    conn: &Connection,
    first: usize,
    most: usize,
    walk_ahead: impl Fn() -> bool,
    on_count: impl FnOnce(usize),
    mut on_page: impl FnMut(Vec<MessageRow>) -> ControlFlow<()>,
) -> rusqlite::Result<()> {
    let mut page = first.max(1);
    let tx = conn.unchecked_transaction()?;
    let count: i64 = tx.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))?;
    on_count(usize::try_from(count).unwrap_or(0));
    let names = Names::read(&tx)?;
    let mut recipients = tx.prepare(RECIPIENTS_OF_PAGE)?;
    let mut messages = tx.prepare(MESSAGES_NEWEST_FIRST)?;
    let mut rows = messages.query([])?;
    let mut out = Vec::with_capacity(page);
    let mut way = Way::FirstPage;
    loop {
        let row = rows.next()?;
        let last = row.is_none();
        if let Some(r) = row {
            out.extend(message_row(r, &names)?);
        }
        if out.len() == page || (last && !out.is_empty()) {
            page = page.saturating_mul(4).min(most.max(page));
            let mut full = std::mem::replace(&mut out, Vec::with_capacity(page));
            way = match way {
                Way::Waiting if walk_ahead() => Ahead::read(&tx)?.map_or(Way::Join, Way::Walked),
                other => other,
            };
            match &mut way {
                Way::Walked(walked) => walked.add_recipients(&names, &mut full)?,
                _ => add_recipients(&mut recipients, &names, &mut full)?,
            }
            if let Way::FirstPage = way {
                way = Way::Waiting;
            }
            if on_page(full).is_break() {
                break;
            }
        }
        if last {
            break;
        }
    }
    drop(rows);
    drop(messages);
    drop(recipients);
    tx.finish()
}

/// How [`read_pages`] reads a page's recipients.
enum Way {
    /// The first page's: by the join.
    FirstPage,
    /// By the join, asking `walk_ahead` before each page.
    Waiting,
    /// From the table's walk.
    Walked(Ahead),
    /// By the join throughout (a `message_id` written as text).
    Join,
}

/// The messages newest first: the walk of [`read_pages`]. Their project
/// and sender are looked up in [`Names`], read once before it.
const MESSAGES_NEWEST_FIRST: &str =
    "SELECT m.id, m.project_id, m.sender_id, m.thread_id, m.subject, m.body_md,
            m.importance, m.ack_required, m.created_ts
     FROM messages m
     ORDER BY m.created_ts DESC, m.id DESC";

/// A page's recipients: its ids (a JSON array, one bound value whatever
/// the page's size) walked in turn, each sought in the primary key of
/// `message_recipients` (its `message_id` leads). A `CROSS JOIN`, as
/// SQLite keeps its order: `message_id IN (SELECT value FROM json_each(..))`
/// first built the ids into a temporary B-tree, a quarter of the statement's
/// instructions (callgrind, `amail threads` on a root of 10,000).
///
/// Each recipient comes with the page's id it met (`j.value`, an integer
/// always), not its own `message_id` as stored, which a column without a
/// type keeps as written (`2.0`, `'2'`). The `CAST` gives the page's id
/// the affinity of `messages.id` (`INTEGER`), so a stored `message_id`
/// meets it as it met that column in a join of the two tables: as a
/// number, text included. The plan is the same (the key's index sought
/// for each id).
const RECIPIENTS_OF_PAGE: &str = "SELECT j.value, r.agent_id, r.kind, r.read_ts, r.ack_ts
     FROM json_each(?1) j CROSS JOIN message_recipients r
     ON r.message_id = CAST(j.value AS INTEGER)";

/// The projects' and agents' names by id, read once per load in its read
/// transaction, where each row joined its project and sender (and each
/// recipient its agent) and copied their names: the joins' seeks and the
/// copies were about a fifth of the database reader's instructions
/// (callgrind, `amail threads` on a root of 10,000). A server holds a few
/// projects and agents; a row shares their names.
struct Names {
    /// `projects`: slug and human key.
    projects: HashMap<i64, (Name, Name)>,
    /// `agents`: name.
    agents: HashMap<i64, Name>,
}

/// A name as read: its text and whether it held bytes that are not UTF-8
/// (read with U+FFFD: a row using it is named for it, and loads), or the
/// SQLite type that is not text (NULL among them), which fails a read only
/// where a row uses it, as the join reading it as text failed only there.
type Name = Result<(Arc<str>, bool), rusqlite::types::Type>;

impl Names {
    fn read(conn: &Connection) -> rusqlite::Result<Names> {
        use rusqlite::types::ValueRef;
        let name = |v: ValueRef<'_>| match v {
            ValueRef::Text(t) => Ok(match std::str::from_utf8(t) {
                Ok(text) => (Arc::from(text), false),
                Err(_) => (Arc::from(String::from_utf8_lossy(t)), true),
            }),
            other => Err(other.data_type()),
        };
        let mut projects = HashMap::new();
        let mut stmt = conn.prepare("SELECT id, slug, human_key FROM projects")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(id) = id(r.get_ref(0)?) {
                projects.insert(id, (name(r.get_ref(1)?), name(r.get_ref(2)?)));
            }
        }
        let mut agents = HashMap::new();
        let mut stmt = conn.prepare("SELECT id, name FROM agents")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(id) = id(r.get_ref(0)?) {
                agents.insert(id, name(r.get_ref(1)?));
            }
        }
        Ok(Names { projects, agents })
    }
}

/// An id as the joins matched it: an integer, or a real of an integer's
/// value (SQLite compares numbers as numbers: `1.0 = 1`; the server's
/// INTEGER columns store such a value as the integer, a column without a
/// type keeps it). Text, blobs, NULL and other reals equal no integer id
/// there: `None`.
fn id(v: rusqlite::types::ValueRef<'_>) -> Option<i64> {
    use rusqlite::types::ValueRef;
    /// 2^63: the reals at or past it are past every `i64`.
    const PAST: f64 = 9_223_372_036_854_775_808.0;
    match v {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) if f.fract() == 0.0 && (-PAST..PAST).contains(&f) => Some(f as i64),
        _ => None,
    }
}

/// A name a row uses: what is not text fails the read as reading it as
/// text did (`column` as the joined query numbered it); text that was not
/// UTF-8 notes `label` in `damaged`.
fn required(
    name: &Name,
    (column, what): (usize, &str),
    label: &'static str,
    damaged: &mut Option<&'static str>,
) -> rusqlite::Result<Arc<str>> {
    match name {
        Ok((text, lossy)) => {
            if *lossy {
                damaged.get_or_insert(label);
            }
            Ok(text.clone())
        }
        Err(t) => Err(rusqlite::Error::InvalidColumnType(column, what.into(), *t)),
    }
}

/// A `messages` row as the query of [`read_pages`] selects it, without
/// its recipients; `None` when its project is not in `projects` (the
/// inner join that read it before left such a row out). A sender not in
/// `agents` is the empty name, as the left join's NULL was.
fn message_row(r: &rusqlite::Row<'_>, names: &Names) -> rusqlite::Result<Option<MessageRow>> {
    let project = id(r.get_ref(1)?);
    let Some((slug, key)) = project.and_then(|id| names.projects.get(&id)) else {
        return Ok(None);
    };
    let sender = id(r.get_ref(2)?);
    let mut not_utf8 = None;
    let mut text = |i: usize, column: &'static str| lossy_text(r, i, column, &mut not_utf8);
    let thread_id = text(3, "thread_id")?.filter(|t| !t.is_empty());
    let subject = text(4, "subject")?.unwrap_or_default();
    let body_md = text(5, "body_md")?.unwrap_or_default();
    let importance = word(r, 6, &["normal", "high", "low", "urgent"])?;
    if importance.as_ref().is_some_and(|(_, lossy)| *lossy) {
        not_utf8.get_or_insert("importance");
    }
    Ok(Some(MessageRow {
        id: r.get(0)?,
        project_slug: required(slug, (1, "slug"), "project's slug", &mut not_utf8)?,
        project_key: required(key, (2, "human_key"), "project's human key", &mut not_utf8)?,
        // The left join's NULL (no such agent, or a NULL name) is the
        // empty name; a name of another type failed as text.
        sender: match sender.and_then(|id| names.agents.get(&id)) {
            Some(Err(rusqlite::types::Type::Null)) | None => Arc::from(""),
            Some(name) => required(name, (3, "name"), "sender's name", &mut not_utf8)?,
        },
        thread_id,
        subject,
        body_md,
        importance: importance.map_or(Cow::Borrowed("normal"), |(w, _)| w),
        ack_required: truthy(r.get_ref(7)?),
        created: timestamps::decode(r.get_ref(8)?),
        recipients: Vec::new(),
        not_utf8,
    }))
}

/// Column `i` read as text, as `get::<Option<String>>` reads it, except
/// that text holding bytes that are not UTF-8 (written by a tool other
/// than the server: SQLite stores what it is given) is read with U+FFFD
/// in their place and `column` noted in `damaged`, where that read failed
/// the whole load without naming the row: one bad row spoils only itself,
/// as a file that is not UTF-8 does.
pub(crate) fn lossy_text(
    r: &rusqlite::Row<'_>,
    i: usize,
    column: &'static str,
    damaged: &mut Option<&'static str>,
) -> rusqlite::Result<Option<String>> {
    // Text checked once, as `get` checks it: no second pass a row.
    match r.get_ref(i)? {
        rusqlite::types::ValueRef::Text(t) => Ok(Some(match std::str::from_utf8(t) {
            Ok(text) => text.to_owned(),
            Err(_) => {
                damaged.get_or_insert(column);
                String::from_utf8_lossy(t).into_owned()
            }
        })),
        _ => r.get(i),
    }
}

/// Column `i` read as a name a write goes by (`what`: `the sender's
/// name`), where `get` refused such text as "invalid utf-8 sequence of 1
/// bytes from index 10 at index 2": refused naming it ([`NameNotUtf8`],
/// which [`Error::db`](crate::stores::Error) says alone). The load shows
/// such a name with U+FFFD, which is not the stored name: nothing is
/// written by it (a reply to it would go to no agent, a copy into no
/// project's folder).
pub(crate) fn stored_name(
    r: &rusqlite::Row<'_>,
    i: usize,
    what: &'static str,
) -> rusqlite::Result<String> {
    stored(r, i, what, NameNotUtf8::BY_OR_TO)
}

/// Column `i` read as the thread or topic a reply is filed into (`what`:
/// `its thread`), refused as [`stored_name`] refuses a name: the reply
/// would carry the text as shown, a thread no message of the original's
/// has for whoever matches the stored bytes.
pub(crate) fn stored_place(
    r: &rusqlite::Row<'_>,
    i: usize,
    what: &'static str,
) -> rusqlite::Result<Option<String>> {
    stored(r, i, what, NameNotUtf8::INTO)
}

fn stored<T: rusqlite::types::FromSql>(
    r: &rusqlite::Row<'_>,
    i: usize,
    what: &'static str,
    unwritten: &'static str,
) -> rusqlite::Result<T> {
    match r.get_ref(i)? {
        rusqlite::types::ValueRef::Text(t) if std::str::from_utf8(t).is_err() => {
            let refusal = NameNotUtf8 {
                unwritten,
                ..NameNotUtf8::in_database(what, String::from_utf8_lossy(t).into_owned())
            };
            Err(rusqlite::Error::FromSqlConversionFailure(
                i,
                rusqlite::types::Type::Text,
                Box::new(refusal),
            ))
        }
        _ => r.get(i),
    }
}

/// Fills each row's recipients with one query over the page's ids (a JSON
/// array: one bound value whatever the page's size).
fn add_recipients(
    stmt: &mut rusqlite::Statement<'_>,
    names: &Names,
    page: &mut [MessageRow],
) -> rusqlite::Result<()> {
    let mut ids = String::with_capacity(page.len() * 8 + 2);
    ids.push('[');
    for (i, row) in page.iter().enumerate() {
        if i > 0 {
            ids.push(',');
        }
        ids.push_str(itoa::Buffer::new().format(row.id));
    }
    ids.push(']');
    // The join walks the page's ids in order, so a message's recipients
    // come together and in the page's order: each is noted with the row
    // the walk has reached, in one list for the page (where a map of the
    // page's ids gave each message a list of its own).
    let mut found = Vec::with_capacity(page.len() * 2);
    let mut at = 0;
    let mut rows = stmt.query([ids])?;
    while let Some(r) = rows.next()? {
        // A recipient whose agent is gone was left out by the join.
        let Some(agent_id) = id(r.get_ref(1)?) else {
            continue;
        };
        let Some(agent) = names.agents.get(&agent_id) else {
            continue;
        };
        let kind = word(r, 2, KINDS)?;
        match row_of(page, at, r.get(0)?) {
            Some(k) => at = k,
            None => continue,
        }
        let times = (
            timestamps::decode(r.get_ref(3)?),
            timestamps::decode(r.get_ref(4)?),
        );
        found.push(recipient(at, (agent_id, agent), kind, times)?);
    }
    place(found, page);
    Ok(())
}

/// The server's recipient kinds (see [`word`]).
const KINDS: &[&str] = &["to", "cc", "bcc"];

/// A recipient of the page's row `at` (`agent`: its id and name), with
/// its kind's rank: `to`, `cc`, then any other kind, a missing one among
/// them (it reads as `to`). `times`: when it was read and acknowledged.
fn recipient(
    at: usize,
    (agent_id, agent): (i64, &Name),
    kind: Option<(Cow<'static, str>, bool)>,
    (read_ts, ack_ts): (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
) -> rusqlite::Result<Found> {
    let rank = match kind.as_ref().map(|(k, _)| k.as_ref()) {
        Some("to") => 0,
        Some("cc") => 1,
        _ => 2,
    };
    let mut damaged = None;
    if kind.as_ref().is_some_and(|(_, lossy)| *lossy) {
        damaged = Some("recipient's kind");
    }
    let recipient = RecipientRow {
        agent: required(agent, (1, "name"), "recipient's name", &mut damaged)?,
        kind: kind.map_or(Cow::Borrowed("to"), |(k, _)| k),
        read_ts,
        ack_ts,
    };
    Ok(Found {
        at,
        rank,
        agent_id,
        recipient,
        damaged,
    })
}

/// A page's recipients put in order ([`in_order`]) and handed to their rows.
fn place(mut found: Vec<Found>, page: &mut [MessageRow]) {
    in_order(&mut found);
    for f in found {
        let row = &mut page[f.at];
        if let Some(what) = f.damaged {
            row.not_utf8.get_or_insert(what);
        }
        row.recipients.push(f.recipient);
    }
}

/// `message_recipients` read in one walk of the table, for the pages after
/// the first: a page's recipients sought by its ids cost two seeks each
/// (the key's index, then the row), most of the reader's work for them
/// (100,000 messages: every page's seeks 92-126 ms, the table's walk
/// 30-38 ms). Held by message id, each as the join would have read it,
/// its errors kept for when its message is read (the join never read a
/// recipient of a message it did not read: a message whose project is
/// gone, an id that matches no message).
struct Ahead {
    /// By message id; the table's order within one (its rows are
    /// written with their message, so mostly sorted as they come).
    by_message: Vec<Early>,
}

/// One recipient read ahead: what [`add_recipients`] reads of its row.
struct Early {
    message: i64,
    agent: i64,
    /// The kind (and whether it was not UTF-8), or the error reading it
    /// gave (boxed: errors are rare, and large).
    kind: Result<Option<(Cow<'static, str>, bool)>, Box<rusqlite::Error>>,
    read_ts: Option<DateTime<Utc>>,
    ack_ts: Option<DateTime<Utc>>,
}

/// The table's walk: its columns as [`RECIPIENTS_OF_PAGE`] numbers them,
/// so an error names the same column.
const EVERY_RECIPIENT: &str =
    "SELECT message_id, agent_id, kind, read_ts, ack_ts FROM message_recipients";

impl Ahead {
    /// Every recipient whose agent is there (the join left the others
    /// out) and whose `message_id` is a number of an integer's value;
    /// `None` if one is text, which the join matched as a number (the
    /// message's `INTEGER` column's affinity): such a database is read
    /// the join's way throughout, not second-guessed.
    fn read(conn: &Connection) -> rusqlite::Result<Option<Ahead>> {
        let mut stmt = conn.prepare(EVERY_RECIPIENT)?;
        let mut rows = stmt.query([])?;
        let mut by_message = Vec::new();
        while let Some(r) = rows.next()? {
            let message = match r.get_ref(0)? {
                rusqlite::types::ValueRef::Text(_) => return Ok(None),
                v => id(v),
            };
            let (Some(message), Some(agent)) = (message, id(r.get_ref(1)?)) else {
                continue;
            };
            by_message.push(Early {
                message,
                agent,
                kind: word(r, 2, KINDS).map_err(Box::new),
                read_ts: timestamps::decode(r.get_ref(3)?),
                ack_ts: timestamps::decode(r.get_ref(4)?),
            });
        }
        if !by_message.is_sorted_by_key(|e| e.message) {
            by_message.sort_by_key(|e| e.message);
        }
        Ok(Some(Ahead { by_message }))
    }

    /// Fills each row's recipients from the walk, as [`add_recipients`]
    /// does from the join.
    fn add_recipients(&mut self, names: &Names, page: &mut [MessageRow]) -> rusqlite::Result<()> {
        let mut found = Vec::with_capacity(page.len() * 2);
        for (at, row) in page.iter().enumerate() {
            let from = self.by_message.partition_point(|e| e.message < row.id);
            let run = self.by_message[from..].iter_mut();
            for early in run.take_while(|e| e.message == row.id) {
                let Some(agent) = names.agents.get(&early.agent) else {
                    continue;
                };
                let kind = std::mem::replace(&mut early.kind, Ok(None)).map_err(|e| *e)?;
                let times = (early.read_ts, early.ack_ts);
                found.push(recipient(at, (early.agent, agent), kind, times)?);
            }
        }
        place(found, page);
        Ok(())
    }
}

/// A page's recipient as read: with its row's place in the page, its
/// kind's rank and its agent's id.
#[derive(Clone)]
struct Found {
    at: usize,
    rank: u8,
    agent_id: i64,
    recipient: RecipientRow,
    /// What of it was not UTF-8, for its row's `not_utf8`.
    damaged: Option<&'static str>,
}

/// Each message's recipients in order (by kind as ranked; then by name,
/// bytewise as SQLite's BINARY collation; then by agent id, as the
/// primary key's order read them; then as read, for a table without that
/// key): sorted here, a message's few at a time, where an `ORDER BY`
/// sorted the page's whole join (about a third of the statement's time).
/// The agent's id makes the order the same whichever way the recipients
/// were read (the join's, [`Ahead`]'s). The list comes grouped by row
/// (the walk's order); should it not, it is sorted whole, by row first.
fn in_order(found: &mut [Found]) {
    let by_kind_then_name = |x: &Found, y: &Found| {
        x.rank
            .cmp(&y.rank)
            .then_with(|| x.recipient.agent.cmp(&y.recipient.agent))
            .then_with(|| x.agent_id.cmp(&y.agent_id))
    };
    if found.windows(2).all(|w| w[0].at <= w[1].at) {
        for run in found.chunk_by_mut(|a, b| a.at == b.at) {
            run.sort_by(by_kind_then_name);
        }
    } else {
        found.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| by_kind_then_name(a, b)));
    }
}

/// Where in `page` the message `id` is: sought from `at` (the row the
/// walk of the page's ids has reached), then from the start.
fn row_of(page: &[MessageRow], at: usize, id: i64) -> Option<usize> {
    let from = |start: usize| {
        let k = page.get(start..)?.iter().position(|row| row.id == id)?;
        Some(start + k)
    };
    from(at).or_else(|| from(0))
}

/// Column `i` read as text that is nearly always one of `words` (a
/// recipient's `kind`, a message's `importance`): such a word borrowed,
/// any other text copied as [`lossy_text`] reads it (with U+FFFD, and
/// `true` beside it, where it is not UTF-8), a value of another type
/// failing as reading it as text fails. An allocation a recipient and a row, and their frees on the
/// load's thread, saved.
fn word(
    r: &rusqlite::Row<'_>,
    i: usize,
    words: &[&'static str],
) -> rusqlite::Result<Option<(Cow<'static, str>, bool)>> {
    if let rusqlite::types::ValueRef::Text(t) = r.get_ref(i)? {
        if let Some(w) = words.iter().find(|w| w.as_bytes() == t) {
            return Ok(Some((Cow::Borrowed(w), false)));
        }
    }
    let mut damaged = None;
    let text = lossy_text(r, i, "", &mut damaged)?;
    Ok(text.map(|w| (Cow::Owned(w), damaged.is_some())))
}

/// The server's tables without column types: SQLite keeps whatever a
/// row was written with (an id as `1.0` or `'1'`, a name as a number).
/// For the tests and the `mcp_row` fuzz target (cargo-fuzz builds with
/// `--cfg fuzzing`), which write rows of any type into them.
#[cfg(any(test, fuzzing))]
pub const UNTYPED_SCHEMA: &str = "CREATE TABLE projects (id, slug, human_key);
         CREATE TABLE agents (id, name);
         CREATE TABLE messages (id INTEGER PRIMARY KEY, project_id, sender_id, thread_id,
             subject, body_md, importance, ack_required, created_ts);
         CREATE TABLE message_recipients (message_id, agent_id, kind, read_ts, ack_ts);";

/// SQLite booleans: 0/1 integers, but tolerate text and reals.
pub fn truthy(v: rusqlite::types::ValueRef<'_>) -> bool {
    use rusqlite::types::ValueRef;
    match v {
        ValueRef::Integer(i) => i != 0,
        ValueRef::Real(f) => f != 0.0,
        ValueRef::Text(t) => matches!(t, b"1" | b"true" | b"TRUE" | b"True"),
        _ => false,
    }
}

/// A `BEGIN IMMEDIATE` transaction rolled back on drop unless committed.
/// (`rusqlite::Transaction` wants `&mut Connection`; one connection serves
/// every key of an `amail ack`, so it is driven by hand.)
pub(crate) struct Tx<'c> {
    conn: &'c Connection,
    done: bool,
}

impl<'c> Tx<'c> {
    pub(crate) fn begin(conn: &'c Connection) -> rusqlite::Result<Tx<'c>> {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(Tx { conn, done: false })
    }

    pub(crate) fn commit(mut self) -> rusqlite::Result<()> {
        self.conn.execute_batch("COMMIT")?;
        self.done = true;
        Ok(())
    }
}

impl std::ops::Deref for Tx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The columns `read_pages` reads, as the server declares them, with
    /// its index on `created_ts`; `n` messages at `times` distinct times
    /// (runs of equal `created_ts`, ids interleaved across the runs), each
    /// to one agent, every third acked.
    fn database(n: i64, times: i64) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        fill(&conn, n, times);
        conn
    }

    /// [`database`]'s tables and rows written into `conn`, in one
    /// transaction (a file database syncs each statement otherwise).
    pub(crate) fn fill(conn: &Connection, n: i64, times: i64) {
        conn.execute_batch("BEGIN").unwrap();
        conn.execute_batch(
            "CREATE TABLE projects (id INTEGER PRIMARY KEY, slug TEXT NOT NULL, human_key TEXT NOT NULL);
             CREATE TABLE agents (id INTEGER PRIMARY KEY, project_id INTEGER, name TEXT NOT NULL);
             CREATE TABLE messages (id INTEGER NOT NULL, project_id INTEGER NOT NULL,
                 sender_id INTEGER NOT NULL, thread_id VARCHAR(128), subject VARCHAR(512) NOT NULL,
                 body_md VARCHAR NOT NULL, importance VARCHAR(16) NOT NULL,
                 ack_required BOOLEAN NOT NULL, created_ts DATETIME NOT NULL, PRIMARY KEY (id));
             CREATE TABLE message_recipients (message_id INTEGER NOT NULL, agent_id INTEGER NOT NULL,
                 kind VARCHAR(8) NOT NULL, read_ts DATETIME, ack_ts DATETIME,
                 PRIMARY KEY (message_id, agent_id));
             CREATE INDEX idx_messages_created_ts ON messages(created_ts);
             INSERT INTO projects VALUES (1, 'p', '/p');
             INSERT INTO agents VALUES (1, 1, 'BlueLake'), (2, 1, 'GreenCastle');",
        )
        .unwrap();
        for id in 1..=n {
            let ts = format!("2026-01-01 00:00:{:02}.000000", id % times);
            conn.execute(
                "INSERT INTO messages VALUES (?1, 1, 1, NULL, 's', 'b', 'normal', 1, ?2)",
                rusqlite::params![id, ts],
            )
            .unwrap();
            let ack = (id % 3 == 0).then_some("2026-01-02 00:00:00.000000");
            conn.execute(
                "INSERT INTO message_recipients VALUES (?1, 2, 'to', ?2, ?2)",
                rusqlite::params![id, ack],
            )
            .unwrap();
        }
        conn.execute_batch("COMMIT").unwrap();
    }

    /// Each page's (id, acked) in the order read.
    fn pages(conn: &Connection, page: usize) -> (usize, Vec<Vec<(i64, bool)>>) {
        let (mut count, mut out) = (0, Vec::new());
        read_pages(
            conn,
            page,
            page,
            || true,
            |n| count = n,
            |rows| {
                out.push(
                    rows.iter()
                        .map(|r| (r.id, r.recipients[0].ack_ts.is_some()))
                        .collect(),
                );
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        (count, out)
    }

    /// An in-memory database of `schema`, with `rows` written into it.
    fn database_of(schema: &str, rows: &str) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(schema).unwrap();
        conn.execute_batch(rows).unwrap();
        conn
    }

    /// The server's tables with every column allowed NULL (a database
    /// written without its rules).
    const NULLABLE_SCHEMA: &str =
        "CREATE TABLE projects (id INTEGER PRIMARY KEY, slug TEXT, human_key TEXT);
         CREATE TABLE agents (id INTEGER PRIMARY KEY, name TEXT);
         CREATE TABLE messages (id INTEGER PRIMARY KEY, project_id INTEGER, sender_id INTEGER,
             thread_id TEXT, subject TEXT, body_md TEXT, importance TEXT,
             ack_required BOOLEAN, created_ts DATETIME);
         CREATE TABLE message_recipients (message_id INTEGER, agent_id INTEGER, kind TEXT,
             read_ts DATETIME, ack_ts DATETIME, PRIMARY KEY (message_id, agent_id));";

    /// An unknown id is compared with every id of the database: a
    /// slip (`1199` for `119`) is named, an id as near several (`1011`:
    /// `101` and `111`) is not guessed at.
    #[test]
    fn an_unknown_id_is_named_with_the_one_id_it_is_a_slip_from() {
        let conn = database(120, 7);
        for (key, near) in [("1199", Some("119")), ("1011", None)] {
            let e = crate::stores::error::Error::not_found(key, "db", "root");
            let text = not_found_in(&conn, e).to_string();
            match near {
                Some(n) => assert!(text.contains(&format!("(did you mean `{n}`?)")), "{text}"),
                None => assert!(!text.contains("did you mean"), "{text}"),
            }
        }
    }

    /// A recipient without a kind (the server's column forbids it; a
    /// database without that rule) reads as `to` and comes among the
    /// other kinds, after `to` and `cc`, as the SQL's order had it.
    #[test]
    fn a_recipient_without_a_kind_is_to_and_comes_last() {
        let conn = database_of(
            NULLABLE_SCHEMA,
            "INSERT INTO projects VALUES (1, 'p', '/p');
             INSERT INTO agents VALUES (1, 'Amy'), (2, 'Bob'), (3, 'Cat'), (4, 'Dan');
             INSERT INTO messages VALUES (1, 1, 1, NULL, 's', 'b', NULL, 0, '2026-01-01 00:00:00.000000');
             INSERT INTO message_recipients VALUES (1, 1, NULL, NULL, NULL), (1, 2, 'cc', NULL, NULL),
                 (1, 3, 'to', NULL, NULL), (1, 4, 'bcc', NULL, NULL);",
        );
        let rows = read_messages(&conn).unwrap();
        let got: Vec<String> = rows[0]
            .recipients
            .iter()
            .map(|r| format!("{} {}", r.kind, r.agent))
            .collect();
        assert_eq!(got, ["to Cat", "cc Bob", "to Amy", "bcc Dan"]);
        assert_eq!(rows[0].importance, "normal", "a NULL importance");
    }

    /// A message's recipients come `to`, `cc`, then any other kind, each
    /// kind by name as SQLite compares text (bytes: `Zed` before `al`),
    /// however they were written.
    #[test]
    fn recipients_come_by_kind_then_name() {
        let conn = database(2, 4);
        conn.execute_batch(
            "INSERT INTO agents VALUES (3, 1, 'Zed'), (4, 1, 'Amy'), (5, 1, 'Al'), (6, 1, 'Bob'), (7, 1, 'al');
             INSERT INTO message_recipients VALUES (1, 3, 'bcc', NULL, NULL), (1, 4, 'cc', NULL, NULL),
                 (1, 6, 'to', NULL, NULL), (1, 7, 'bcc', NULL, NULL), (1, 5, 'to', NULL, NULL);",
        )
        .unwrap();
        let rows = read_messages(&conn).unwrap();
        let of = |id| {
            let row = rows.iter().find(|r| r.id == id).unwrap();
            row.recipients
                .iter()
                .map(|r| format!("{} {}", r.kind, r.agent))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            of(1),
            [
                "to Al",
                "to Bob",
                "to GreenCastle",
                "cc Amy",
                "bcc Zed",
                "bcc al"
            ]
        );
        assert_eq!(of(2), ["to GreenCastle"]);
    }

    /// Each message as the joins of the query before names were read once
    /// give it: id, project, sender, recipients (the test's oracle).
    fn joined_as_strings(conn: &Connection) -> Vec<String> {
        conn.prepare(
            "SELECT m.id, p.slug, p.human_key, coalesce(a.name, ''),
                    coalesce((SELECT group_concat(r.kind || ' ' || ra.name, ', ' ORDER BY r.kind DESC, ra.name)
                     FROM message_recipients r JOIN agents ra ON ra.id = r.agent_id
                     WHERE r.message_id = m.id), '')
             FROM messages m JOIN projects p ON p.id = m.project_id
             LEFT JOIN agents a ON a.id = m.sender_id
             ORDER BY m.created_ts DESC, m.id DESC",
        )
        .unwrap()
        .query_map([], |r| {
            Ok(format!(
                "{} {} {} [{}] {}",
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    }

    /// Every message read both ways: the first page's recipients by the
    /// join (a first page of all of them), and from the table's walk (a
    /// first page of one message), which must agree, row for row.
    fn read_both_ways(conn: &Connection) -> Vec<MessageRow> {
        let joined = read_messages(conn).unwrap();
        assert!(joined.len() <= PAGE_ROWS, "every row in the first page");
        let walked = read_messages_from_a_page_of(conn, 1).unwrap();
        assert_eq!(walked, joined);
        joined
    }

    /// [`joined_as_strings`]'s fields as `read_messages` reads them (both
    /// ways: [`read_both_ways`]).
    fn read_as_strings(conn: &Connection) -> Vec<String> {
        read_both_ways(conn)
            .iter()
            .map(|m| {
                let recipients: Vec<String> = m
                    .recipients
                    .iter()
                    .map(|r| format!("{} {}", r.kind, r.agent))
                    .collect();
                format!(
                    "{} {} {} [{}] {}",
                    m.id,
                    m.project_slug,
                    m.project_key,
                    m.sender,
                    recipients.join(", ")
                )
            })
            .collect()
    }

    /// In columns without a type SQLite keeps what was written: an id
    /// written `1.0` still equals the integer id 1 in the joins (SQLite
    /// compares numbers as numbers), and is looked up as that id; one
    /// written as text (`'1'`) equals nothing there, and here. A
    /// recipient's `message_id` met the message's `id`, an `INTEGER`
    /// column: SQLite reads text there as a number too, so `2.0` is
    /// message 2's and `'1'` message 1's (read the join's way: see
    /// [`Ahead::read`]).
    #[test]
    fn ids_written_as_reals_or_text_match_as_in_the_joins() {
        let conn = database_of(
            UNTYPED_SCHEMA,
            "INSERT INTO projects VALUES (1, 'p', '/p'), (2.0, 'q', '/q'), ('3', 'r', '/r');
             INSERT INTO agents VALUES (1, 'BlueLake'), (2.0, 'Zed'), ('3', 'Tex');
             INSERT INTO messages VALUES
                 (1, 1.0, 2, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:01.000000'),
                 (2, 2, 1.0, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:02.000000'),
                 (3, '1', 3, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:03.000000'),
                 (4, 3, '2', NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:04.000000'),
                 (5, 1.5, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:05.000000');
             INSERT INTO message_recipients VALUES (1, 2, 'to', NULL, NULL), (1, 1.0, 'cc', NULL, NULL),
                 (2, '1', 'to', NULL, NULL), (2, 3, 'to', NULL, NULL), (4, 2.0, 'to', NULL, NULL),
                 (2.0, 2, 'cc', NULL, NULL), ('1', 1, 'bcc', NULL, NULL);",
        );
        let joined = joined_as_strings(&conn);
        assert!(
            joined.iter().any(|r| r.starts_with("1 p /p [Zed] ")),
            "{joined:?}"
        );
        let message = |id: &str| joined.iter().find(|r| r.starts_with(id)).unwrap();
        assert_eq!(message("2 "), "2 q /q [BlueLake] cc Zed");
        assert_eq!(
            message("1 "),
            "1 p /p [Zed] to Zed, cc BlueLake, bcc BlueLake"
        );
        assert_eq!(read_as_strings(&conn), joined);
    }

    /// Each row's project, sender and recipients as joining their tables
    /// in SQL reads them (the query before names were read once): a
    /// message whose project is gone is not read, a sender who is gone is
    /// the empty name, a recipient who is gone is not among them.
    #[test]
    fn names_read_once_are_what_the_joins_read() {
        let conn = database(6, 6);
        conn.execute_batch(
            "INSERT INTO projects VALUES (2, 'q', '/q');
             INSERT INTO agents VALUES (3, 2, 'Zed');
             UPDATE messages SET project_id = 2, sender_id = 3 WHERE id = 2;
             UPDATE messages SET project_id = 9 WHERE id = 3;
             UPDATE messages SET sender_id = 9 WHERE id = 4;
             INSERT INTO message_recipients VALUES (5, 9, 'cc', NULL, NULL), (5, 3, 'cc', NULL, NULL);",
        )
        .unwrap();
        let (read, joined) = (read_as_strings(&conn), joined_as_strings(&conn));
        assert_eq!(read, joined);
        assert!(
            read.iter().any(|r| r.starts_with("2 q /q [Zed]")),
            "{read:?}"
        );
        assert!(!read.iter().any(|r| r.starts_with("3 ")), "{read:?}");
        assert!(read.iter().any(|r| r.starts_with("4 p /p [] ")), "{read:?}");
    }

    /// The pages after the first take their recipients from one walk of
    /// the table: the same rows as the join gives, whatever order the
    /// table holds them in (written out of the messages' order, a message
    /// written after its recipients), with recipients whose agent is gone,
    /// whose message is not there or not read, without a kind or of other
    /// kinds, two agents of one name, and read and ack times; for any
    /// first page.
    #[test]
    fn recipients_walked_ahead_are_the_joins_recipients() {
        // Recipients first, in no order, some for messages never written;
        // then messages whose time order is not their id order, 8's
        // project gone.
        let conn = database_of(
            NULLABLE_SCHEMA,
            "INSERT INTO projects VALUES (1, 'p', '/p');
             INSERT INTO agents VALUES (1, 'Amy'), (2, 'Bob'), (3, 'Cat'), (4, 'Amy'), (5, 'Dan');
             INSERT INTO message_recipients VALUES
                 (7, 2, 'cc', '2026-01-03 00:00:00.000000', '2026-01-03 00:00:00.000000'),
                 (3, 4, 'to', '2026-01-04 00:00:00.000000', '2026-01-04 00:00:00.000000'),
                 (3, 1, 'to', NULL, NULL), (9, 5, 'bcc', NULL, NULL), (3, 9, 'to', NULL, NULL),
                 (12, 1, 'to', NULL, NULL), (1, 3, NULL, NULL, NULL), (1, 2, 'reply-to', NULL, NULL),
                 (1, 1, 'to', NULL, NULL), (7, 5, 'to', NULL, NULL), (5, 2, 'cc', NULL, NULL),
                 (8, 1, 'to', NULL, NULL);
             INSERT INTO messages VALUES
                 (1, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:05.000000'),
                 (3, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:01.000000'),
                 (5, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:09.000000'),
                 (7, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:03.000000'),
                 (8, 2, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:04.000000'),
                 (9, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:07.000000'),
                 (11, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:02.000000');",
        );
        let joined = read_both_ways(&conn);
        for first in 2..=7 {
            assert_eq!(
                read_messages_from_a_page_of(&conn, first).unwrap(),
                joined,
                "first page {first}"
            );
        }
        // The walk made late (the pages before it by the join), asked
        // once a page until then; or never.
        for yes_at in 1..=7 {
            let (asked, mut read) = (std::cell::Cell::new(0), Vec::new());
            let walk_ahead = || {
                asked.set(asked.get() + 1);
                asked.get() >= yes_at
            };
            read_pages(
                &conn,
                1,
                1,
                walk_ahead,
                |_| (),
                |page| {
                    read.extend(page);
                    ControlFlow::Continue(())
                },
            )
            .unwrap();
            assert_eq!(read, joined, "the walk made at the {yes_at}th ask");
            assert_eq!(asked.get(), yes_at.min(joined.len() - 1), "asked until yes");
        }
        let of = |id| {
            let row = joined.iter().find(|r| r.id == id).unwrap();
            row.recipients
                .iter()
                .map(|r| format!("{} {} {}", r.kind, r.agent, r.read_ts.is_some()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            of(3),
            ["to Amy false", "to Amy true"],
            "two Amys, by agent id"
        );
        // No kind reads as `to`, ranked among the other kinds.
        assert_eq!(
            of(1),
            ["to Amy false", "reply-to Bob false", "to Cat false"]
        );
        assert_eq!(of(7), ["to Dan false", "cc Bob true"]);
        assert!(of(11).is_empty());
        assert!(!joined.iter().any(|r| r.id == 8));
    }

    /// A recipient whose kind is not text fails the read where its
    /// message is read, as the join read it, however the pages come; and
    /// does not where its message is not read (its project gone, no such
    /// message), as the join never read it.
    #[test]
    fn a_bad_recipient_fails_the_read_only_where_its_message_is_read() {
        let conn = database_of(
            UNTYPED_SCHEMA,
            "INSERT INTO projects VALUES (1, 'p', '/p');
             INSERT INTO agents VALUES (1, 'Amy');
             INSERT INTO messages VALUES
                 (1, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:01.000000'),
                 (2, 9, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:02.000000'),
                 (3, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:03.000000');
             INSERT INTO message_recipients VALUES (2, 1, 5, NULL, NULL), (4, 1, x'00', NULL, NULL),
                 (1, 1, 'to', NULL, NULL), (3, 1, 'cc', NULL, NULL);",
        );
        assert_eq!(read_both_ways(&conn).len(), 2);
        conn.execute_batch("UPDATE messages SET project_id = 1 WHERE id = 2")
            .unwrap();
        let joined = read_messages(&conn).unwrap_err().to_string();
        assert!(joined.contains("kind"), "{joined}");
        for first in 1..=3 {
            let walked = read_messages_from_a_page_of(&conn, first).unwrap_err();
            assert_eq!(walked.to_string(), joined, "first page {first}");
        }
    }

    /// A NULL where the joins read a name as text fails the read as it
    /// did, naming the column; a NULL name nobody's row uses does not.
    #[test]
    fn a_null_name_in_use_fails_the_read() {
        let conn = database_of(
            NULLABLE_SCHEMA,
            "INSERT INTO projects VALUES (1, 'p', '/p'), (2, NULL, '/q');
             INSERT INTO agents VALUES (1, 'BlueLake'), (2, NULL);
             INSERT INTO messages VALUES (1, 1, 1, NULL, 's', 'b', 'normal', 0, '2026-01-01 00:00:00.000000');",
        );
        assert_eq!(read_messages(&conn).unwrap().len(), 1);
        conn.execute_batch("INSERT INTO message_recipients VALUES (1, 2, 'to', NULL, NULL)")
            .unwrap();
        let e = read_messages(&conn).unwrap_err().to_string();
        assert!(e.contains("name"), "{e}");
        conn.execute_batch(
            "DELETE FROM message_recipients;
             UPDATE messages SET project_id = 2;",
        )
        .unwrap();
        let e = read_messages(&conn).unwrap_err().to_string();
        assert!(e.contains("slug"), "{e}");
    }

    /// A recipient's row is found wherever it is in the page: at the
    /// walk's place, ahead of it, behind it; a message not in the page
    /// has none.
    #[test]
    fn a_recipient_finds_its_row_wherever_it_is() {
        let page: Vec<MessageRow> = [7, 3, 9, 4]
            .into_iter()
            .map(|id| MessageRow {
                id,
                project_slug: "p".into(),
                project_key: "/p".into(),
                sender: "BlueLake".into(),
                thread_id: None,
                subject: String::new(),
                body_md: String::new(),
                importance: Cow::Borrowed("normal"),
                ack_required: false,
                created: None,
                recipients: Vec::new(),
                not_utf8: None,
            })
            .collect();
        assert_eq!(row_of(&page, 0, 7), Some(0));
        assert_eq!(row_of(&page, 1, 3), Some(1));
        assert_eq!(row_of(&page, 1, 4), Some(3), "ahead");
        assert_eq!(row_of(&page, 3, 3), Some(1), "behind");
        assert_eq!(row_of(&page, 2, 5), None, "not in the page");
        assert_eq!(row_of(&page, 4, 9), Some(2), "from past the end");
        assert_eq!(row_of(&[], 0, 9), None);
    }

    /// Recipients come by row, then kind, then name, then agent id, then
    /// as read, whether the list came grouped by row or not.
    #[test]
    fn recipients_are_put_in_order_grouped_or_not() {
        let f = |at: usize, rank: u8, agent_id: i64, agent: &str, read: i64| Found {
            at,
            rank,
            agent_id,
            recipient: RecipientRow {
                agent: agent.into(),
                kind: Cow::Borrowed("to"),
                read_ts: DateTime::from_timestamp(read, 0),
                ack_ts: None,
            },
            damaged: None,
        };
        let grouped = vec![
            f(0, 2, 1, "Amy", 1),
            f(0, 0, 3, "Cat", 2),
            f(0, 0, 2, "Bob", 3),
            f(1, 1, 4, "Al", 4),
            f(1, 0, 5, "Zed", 5),
            f(3, 0, 9, "Bob", 6),
            f(3, 0, 8, "Bob", 7),
            f(3, 0, 9, "Bob", 8),
        ];
        let want: Vec<(usize, u8, i64, String, i64)> = vec![
            (0, 0, 2, "Bob".into(), 3),
            (0, 0, 3, "Cat".into(), 2),
            (0, 2, 1, "Amy".into(), 1),
            (1, 0, 5, "Zed".into(), 5),
            (1, 1, 4, "Al".into(), 4),
            (3, 0, 8, "Bob".into(), 7),
            (3, 0, 9, "Bob".into(), 6),
            (3, 0, 9, "Bob".into(), 8),
        ];
        let seen = |found: &[Found]| -> Vec<(usize, u8, i64, String, i64)> {
            found
                .iter()
                .map(|f| {
                    let r = &f.recipient;
                    let read = r.read_ts.unwrap().timestamp();
                    (f.at, f.rank, f.agent_id, r.agent.to_string(), read)
                })
                .collect()
        };
        let mut found = grouped.clone();
        in_order(&mut found);
        assert_eq!(seen(&found), want);
        // Rows interleaved (a plan that walked otherwise): the same.
        let mut found = grouped;
        found.rotate_left(4);
        found.swap(0, 5);
        in_order(&mut found);
        assert_eq!(seen(&found), want);
    }

    /// A word read as its borrowed spelling is the text reading the
    /// column as text gives, and a value that is not text fails as that
    /// read fails: the server's words, others, other cases, NULL, the empty
    /// text, numbers and a blob.
    #[test]
    fn a_word_reads_as_the_text_it_is() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (v);
             INSERT INTO t VALUES ('to'), ('cc'), ('bcc'), ('CC'), ('reply-to'), (NULL),
                 (''), ('to '), (5), (1.5), (x'746f');",
        )
        .unwrap();
        let mut stmt = conn.prepare("SELECT v FROM t").unwrap();
        let mut rows = stmt.query([]).unwrap();
        let mut seen = 0;
        while let Some(r) = rows.next().unwrap() {
            let want = r.get::<_, Option<String>>(0).map_err(|e| e.to_string());
            let got = word(r, 0, &["to", "cc", "bcc"]);
            let borrowed = matches!(got, Ok(Some((Cow::Borrowed(_), false))));
            let got = got
                .map(|w| {
                    w.map(|(w, lossy)| {
                        assert!(!lossy, "{w}");
                        w.into_owned()
                    })
                })
                .map_err(|e| e.to_string());
            assert_eq!(got, want);
            let known = matches!(&want, Ok(Some(w)) if ["to", "cc", "bcc"].contains(&w.as_str()));
            assert_eq!(borrowed, known, "{want:?}");
            seen += 1;
        }
        assert_eq!(seen, 11);
        // Text that is not UTF-8 (which `get` refuses) is read with U+FFFD.
        let lossy = conn
            .query_row("SELECT CAST('c' || x'ff' AS TEXT)", [], |r| {
                word(r, 0, &["to", "cc", "bcc"])
            })
            .unwrap();
        assert_eq!(lossy, Some((Cow::Owned("c\u{fffd}".into()), true)));
    }

    /// Every id once, newest time first and within a time the highest id
    /// first, each with its own recipients, whatever the page size: pages
    /// of one row, pages ending inside a run of equal times, pages that
    /// divide the rows exactly (no empty page after the last), one page.
    #[test]
    fn pages_read_every_row_once_newest_first_across_runs_of_equal_times() {
        let (n, times) = (60, 4);
        let mut want: Vec<i64> = (1..=n).collect();
        want.sort_by_key(|&id| std::cmp::Reverse((id % times, id)));
        for indexed in [true, false] {
            let conn = database(n, times);
            if !indexed {
                // Without the index SQLite sorts: the same rows, in the same order.
                conn.execute_batch("DROP INDEX idx_messages_created_ts")
                    .unwrap();
            }
            for page in [1, 7, 15, 30, 60, 100] {
                let (count, read) = pages(&conn, page);
                assert_eq!(count, n as usize);
                assert_eq!(read.len(), (n as usize).div_ceil(page), "page {page}");
                assert!(
                    read.iter().rev().skip(1).all(|p| p.len() == page),
                    "page {page}"
                );
                let flat: Vec<(i64, bool)> = read.into_iter().flatten().collect();
                let ids: Vec<i64> = flat.iter().map(|r| r.0).collect();
                assert_eq!(ids, want, "page {page}, index {indexed}");
                assert!(flat.iter().all(|&(id, acked)| acked == (id % 3 == 0)));
            }
        }
    }

    /// SQLite's plan for `sql`, a step a line.
    fn plan(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> Vec<String> {
        conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map(params, |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// The server's index is what the walk uses: no sort before the first
    /// row.
    #[test]
    fn the_walk_reads_the_created_ts_index_backwards_without_sorting() {
        let plan = plan(&database(10, 3), MESSAGES_NEWEST_FIRST, []);
        assert!(
            plan.iter()
                .any(|p| p.contains("USING INDEX idx_messages_created_ts")),
            "{plan:?}"
        );
        assert!(!plan.iter().any(|p| p.contains("TEMP B-TREE")), "{plan:?}");
    }

    /// A page's recipients: its ids walked in turn, each sought by the
    /// primary key; no temporary tree of the ids first.
    #[test]
    fn a_pages_recipients_are_sought_by_its_ids() {
        let plan = plan(&database(10, 3), RECIPIENTS_OF_PAGE, ["[1,2,3]"]);
        assert!(plan[0].starts_with("SCAN j"), "{plan:?}");
        assert!(plan[1].starts_with("SEARCH r USING INDEX"), "{plan:?}");
        assert_eq!(plan.len(), 2, "{plan:?}");
    }

    /// Pages grow fourfold from the first up to the largest, the last
    /// holding what is left.
    #[test]
    fn pages_grow_fourfold_up_to_the_largest() {
        let conn = database(60, 60);
        let mut sizes = Vec::new();
        read_pages(
            &conn,
            2,
            10,
            || true,
            |_| (),
            |rows| {
                sizes.push(rows.len());
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        assert_eq!(sizes, [2, 8, 10, 10, 10, 10, 10]);
    }

    #[test]
    fn an_empty_database_reads_no_page_and_a_stop_stops() {
        let (count, read) = pages(&database(0, 1), 4);
        assert_eq!((count, read.len()), (0, 0));
        let conn = database(20, 20);
        let mut seen = 0;
        read_pages(
            &conn,
            4,
            4,
            || true,
            |_| (),
            |_| {
                seen += 1;
                ControlFlow::Break(())
            },
        )
        .unwrap();
        assert_eq!(seen, 1);
    }
}
