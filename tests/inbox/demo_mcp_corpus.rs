//! `amail demo --messages N --format mcp DIR` (issue 6): the corpus written
//! as an mcp_agent_mail storage root loads through amail's mcp reader as the
//! same inbox as the plain corpus of the same N, parses with the same
//! diagnostics, and has the real server's schema and archive shapes (checked
//! against the fixture the server wrote, so drift on either side fails).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use amail::demo::corpus::{self, mcp};
use amail_core::inbox::{self, Inbox};
use amail_core::stores::{self, LoadOptions};
use chrono::{DateTime, Duration, TimeZone, Utc};
use rusqlite::{Connection, OpenFlags};

use crate::support::cli::amail;
use crate::support::fixture::fixture;

fn now() -> DateTime<Utc> {
    // Sub-second digits beyond microseconds: the store keeps microseconds.
    Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap() + Duration::nanoseconds(123_456_789)
}

fn load(path: &Path) -> Inbox {
    stores::load(path, &LoadOptions::default()).unwrap()
}

/// What must be equal between the two forms of one message (the keys
/// differ: `demo-w3-05` in a mailbox, a database id in a store).
fn signature(inbox: &Inbox, i: usize) -> String {
    let m = &inbox.messages[i];
    let msg = &m.message;
    let recipients: Vec<String> = m
        .recipients
        .iter()
        .map(|r| format!("{}:{:?}:{:?}:{:?}", r.agent, r.kind, r.read_at, r.ack_at))
        .collect();
    let diagnostics: Vec<String> = msg
        .diagnostics
        .iter()
        .map(|d| format!("{:?}:{}", d.severity, d.code))
        .collect();
    serde_json::json!({
        "kind": msg.kind.to_string(),
        "raw_type": msg.raw_type,
        "is_reply": msg.is_reply,
        "subject": msg.subject.as_ref(),
        "from": msg.from,
        "to": msg.to.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "cc": msg.cc.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "thread_id": msg.thread_id,
        // The mailbox keeps nanoseconds, the store microseconds.
        "at": msg.timestamp.map(|t| t.timestamp_micros()),
        "ack_required": msg.ack_required,
        "importance": msg.importance,
        "body": msg.body.trim(),
        "parsed": serde_json::to_value(&msg.parsed).unwrap(),
        "diagnostics": diagnostics,
        "recipients": recipients,
    })
    .to_string()
}

/// Each thread as the sorted signatures of its messages, plus its bead and
/// pending count; the whole list sorted.
fn threads(inbox: &Inbox) -> Vec<String> {
    let mut out: Vec<String> = inbox
        .threads
        .iter()
        .map(|t| {
            let mut s: Vec<String> = t.messages.iter().map(|&i| signature(inbox, i)).collect();
            s.sort();
            format!("{:?} {} {}", t.bead, t.pending, s.join("\n"))
        })
        .collect();
    out.sort();
    out
}

fn check_same_inbox(n: usize) -> (Inbox, Inbox) {
    let dir = tempfile::tempdir().unwrap();
    let plain_info = corpus::write_corpus(&dir.path().join("plain/mail"), n, now()).unwrap();
    let mcp_info = mcp::write_mcp_corpus(&dir.path().join("mcp"), n, now()).unwrap();
    assert_eq!(mcp_info.messages, n);
    assert_eq!(mcp_info.large, plain_info.large);
    let plain = load(&plain_info.mailbox);
    // Through storage-root detection (DIR holds archive/ and the database).
    let store = load(&dir.path().join("mcp"));
    assert!(
        matches!(store.source, inbox::SourceKind::McpStore { .. }),
        "{:?}",
        store.source
    );
    assert!(plain.problems.is_empty(), "{:?}", plain.problems);
    assert!(store.problems.is_empty(), "{:?}", store.problems);
    assert_eq!(store.messages.len(), n);
    assert_eq!(plain.messages.len(), n);
    // Every message came from its canonical archive file, not a DB fallback.
    assert!(store.messages.iter().all(|m| m.path.is_some()));

    let sigs = |inbox: &Inbox| -> Vec<String> {
        let mut v: Vec<String> = (0..inbox.messages.len())
            .map(|i| signature(inbox, i))
            .collect();
        v.sort();
        v
    };
    let (a, b) = (sigs(&plain), sigs(&store));
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "first differing message");
    }
    assert_eq!(plain.threads.len(), store.threads.len());
    assert_eq!(threads(&plain), threads(&store));
    let roster = |inbox: &Inbox| -> Vec<String> {
        inbox
            .agents
            .iter()
            .map(|a| {
                let at = a.last_at.map(|t| t.timestamp_micros());
                format!("{} {:?} {:?} {at:?}", a.name, a.state, a.bead)
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    assert_eq!(roster(&plain), roster(&store));
    assert_eq!(plain.pending(None).len(), store.pending(None).len());
    (plain, store)
}

#[test]
fn mcp_corpus_loads_as_the_same_inbox_as_the_plain_corpus() {
    let (_, store) = check_same_inbox(300);
    // The demo mix is there: every type, cc, help threads, the type-less
    // wave status with no thread id.
    let kinds: BTreeSet<String> = store
        .messages
        .iter()
        .map(|m| m.message.kind.to_string())
        .collect();
    assert!(kinds.len() >= 10, "{kinds:?}");
    assert!(store.messages.iter().any(|m| !m.message.cc.is_empty()));
    assert!(store.messages.iter().any(|m| m.message.thread_id.is_none()));
}

#[test]
fn mcp_corpus_with_large_bodies_loads_the_same() {
    // Large (32 KB+) summaries start at the 100th summary-carrying message.
    let (plain, _) = check_same_inbox(1_300);
    assert!(
        plain.messages.iter().any(|m| m.message.body.len() > 32_000),
        "no large body in 1,300 messages"
    );
}

/// `amail parse --format jsonl PATH`: (messages, diagnostic codes with
/// counts), the CLI succeeding with nothing on stderr.
fn parse_cli(path: &Path) -> (usize, BTreeMap<String, usize>) {
    let out = amail(
        &["parse", "--format", "jsonl", path.to_str().unwrap()],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut codes = BTreeMap::new();
    let mut n = 0;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        n += 1;
        for d in v["diagnostics"].as_array().into_iter().flatten() {
            let key = format!("{}:{}", d["severity"], d["code"]);
            *codes.entry(key).or_default() += 1;
        }
    }
    (n, codes)
}

#[test]
fn cli_writes_both_forms_and_they_parse_alike_with_the_big_body() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, store) = (dir.path().join("plain"), dir.path().join("mcp"));
    for (d, format) in [(&plain, "plain"), (&store, "mcp")] {
        let out = amail(
            &[
                "demo",
                "--messages",
                "300",
                "--big-body",
                "2000000",
                "--format",
                format,
                d.to_str().unwrap(),
            ],
            None,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        if format == "mcp" {
            // It says where everything went.
            for p in [d.join("archive"), d.join("storage.sqlite3"), d.join("big")] {
                assert!(text.contains(&p.display().to_string()), "{text}");
            }
        }
    }
    assert!(store.join("archive/projects").is_dir() && store.join("storage.sqlite3").is_file());

    // `amail parse` on the storage root reads the canonical copies only, and
    // finds what it finds in the mailbox: the plain wave-status mails'
    // info-level unknown-type notes and nothing else.
    let (n_plain, codes_plain) = parse_cli(&plain.join("mail"));
    let (n_store, codes_store) = parse_cli(&store);
    assert_eq!(n_plain, 300);
    assert_eq!((n_plain, &codes_plain), (n_store, &codes_store));
    assert!(
        codes_plain.keys().all(|k| k.contains("unknown-type")),
        "{codes_plain:?}"
    );

    // The big body: its own store, one message, the same as big.md.
    let big = load(&store.join("big"));
    assert!(big.problems.is_empty(), "{:?}", big.problems);
    assert_eq!(big.messages.len(), 1);
    let m = &big.messages[0].message;
    assert!(m.body.len() >= 1_990_000, "{}", m.body.len());
    assert_eq!(m.kind.to_string(), "OFFERING_READY");
    assert_eq!(m.parsed.bead_id.as_deref(), Some("ol-1"));
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    assert_eq!(
        parse_cli(&store.join("big")),
        parse_cli(&plain.join("big.md"))
    );

    // A second run into the same folder is refused, nothing overwritten.
    let out = amail(
        &[
            "demo",
            "--messages",
            "10",
            "--format",
            "mcp",
            store.to_str().unwrap(),
        ],
        None,
    );
    assert!(!out.status.success());
}

/// A copy of the fixture's database: even a read-only reader of a WAL
/// database leaves `-shm` beside it, and the fixture stays pristine.
fn fixture_db(tmp: &Path) -> PathBuf {
    let db = tmp.join("fixture.sqlite3");
    std::fs::copy(fixture().join("storage.sqlite3"), &db).unwrap();
    db
}

fn open(path: &Path) -> Connection {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

/// Every schema object: (type, name, table, SQL text).
fn schema_objects(conn: &Connection) -> Vec<(String, String, String, Option<String>)> {
    let mut stmt = conn
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Table -> its columns as (name, declared type, not null, default, pk).
fn columns(conn: &Connection) -> BTreeMap<String, Vec<String>> {
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables
        .into_iter()
        .map(|t| {
            let cols: Vec<String> = conn
                .prepare(&format!("PRAGMA table_info('{t}')"))
                .unwrap()
                .query_map([], |r| {
                    Ok(format!(
                        "{} {} notnull={} default={:?} pk={}",
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, Option<String>>(4)?,
                        r.get::<_, i64>(5)?
                    ))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            (t, cols)
        })
        .collect()
}

#[test]
fn database_has_the_real_servers_schema_and_value_shapes() {
    let tmp = tempfile::tempdir().unwrap();
    let info = mcp::write_mcp_corpus(&tmp.path().join("mcp"), 120, now()).unwrap();
    let ours = open(&info.db);
    let theirs = open(&fixture_db(tmp.path()));

    // Table and column names (with types, constraints and defaults), then
    // every index, trigger and the FTS5 table with their SQL text.
    let (c_ours, c_theirs) = (columns(&ours), columns(&theirs));
    assert_eq!(
        c_ours.keys().collect::<Vec<_>>(),
        c_theirs.keys().collect::<Vec<_>>()
    );
    for (table, cols) in &c_theirs {
        assert_eq!(&c_ours[table], cols, "columns of {table}");
    }
    assert_eq!(schema_objects(&ours), schema_objects(&theirs));

    // WAL like the server leaves it, and no sidecar left behind.
    let mode: String = ours
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");

    // Values in the server's shapes: TEXT timestamps with six fraction
    // digits, booleans as 0/1, attachments '[]', one project.
    let shape = |conn: &Connection, sql: &str| -> BTreeSet<String> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(|s| {
                s.unwrap()
                    .chars()
                    .map(|c| if c.is_ascii_digit() { '9' } else { c })
                    .collect()
            })
            .collect()
    };
    for sql in [
        "SELECT typeof(created_ts) || ' ' || created_ts FROM messages",
        "SELECT typeof(ack_required) || ' ' || ack_required FROM messages",
        "SELECT attachments FROM messages",
        "SELECT typeof(inception_ts) || ' ' || inception_ts || ' ' || last_active_ts FROM agents",
        "SELECT is_active || attachments_policy || contact_policy || ifnull(deleted_ts, 'null') FROM agents",
        "SELECT created_at FROM projects",
        "SELECT kind || ifnull(read_ts, 'null') || ifnull(ack_ts, 'null') FROM message_recipients WHERE read_ts IS NULL",
    ] {
        let (o, t) = (shape(&ours, sql), shape(&theirs, sql));
        assert!(o.is_subset(&t), "{sql}: ours {o:?}, the server's {t:?}");
    }
    let counts = |conn: &Connection| -> (i64, i64) {
        conn.query_row(
            "SELECT (SELECT count(*) FROM projects), (SELECT count(*) FROM messages)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    };
    assert_eq!(counts(&ours), (1, 120));
    // The FTS triggers indexed every message, as the server's search expects.
    let hits: i64 = ours
        .query_row(
            "SELECT count(*) FROM fts_messages WHERE fts_messages MATCH 'HELP_REQUEST'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(hits > 0);
}

/// The JSON object keys of a `---json` file's front matter or a JSON file.
fn json_keys(text: &str) -> BTreeSet<String> {
    let json = text
        .strip_prefix("---json\n")
        .map(|rest| &rest[..rest.find("\n---\n").unwrap()])
        .unwrap_or(text);
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v.as_object().unwrap().keys().cloned().collect()
}

/// Paths relative to `root`, with digits, agent names and the slug
/// generalised: the shape of the layout.
fn layout(root: &Path, names: &BTreeSet<String>) -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(root, &mut files);
    files
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let parts: Vec<String> = rel
                .split('/')
                .map(|part| {
                    if names.contains(part) {
                        "<agent>".to_string()
                    } else if part.ends_with(".md") && part.contains("__") {
                        "<iso>__<slug>__<id>.md".to_string()
                    } else if part.starts_with("ol-") && part.ends_with(".md") {
                        "<thread>.md".to_string()
                    } else {
                        part.chars()
                            .map(|c| if c.is_ascii_digit() { '9' } else { c })
                            .collect()
                    }
                })
                .collect();
            parts.join("/")
        })
        .collect()
}

#[test]
fn archive_has_the_real_servers_layout_and_file_shapes() {
    let tmp = tempfile::tempdir().unwrap();
    let info = mcp::write_mcp_corpus(&tmp.path().join("mcp"), 120, now()).unwrap();
    let theirs = fixture().join("archive");
    let slug = mcp::PROJECT_SLUG;
    let names = |root: &Path| -> BTreeSet<String> {
        std::fs::read_dir(root.join("projects").join(slug).join("agents"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let all_names: BTreeSet<String> = names(&info.archive)
        .union(&names(&theirs))
        .cloned()
        .collect();
    assert_eq!(
        layout(&info.archive, &all_names),
        layout(&theirs, &all_names)
    );

    // Profile and front matter keys are the server's.
    let ours_project = info.archive.join("projects").join(slug);
    let theirs_project = theirs.join("projects").join(slug);
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    assert_eq!(
        json_keys(&read(ours_project.join("agents/BlueLake/profile.json"))),
        json_keys(&read(theirs_project.join("agents/BlueLake/profile.json")))
    );
    let first_file = |project: &Path| -> PathBuf {
        let mut v: Vec<PathBuf> = Vec::new();
        for y in std::fs::read_dir(project.join("messages")).unwrap() {
            let y = y.unwrap().path();
            if y.ends_with("threads") {
                continue;
            }
            for m in std::fs::read_dir(&y).unwrap() {
                for f in std::fs::read_dir(m.unwrap().path()).unwrap() {
                    v.push(f.unwrap().path());
                }
            }
        }
        v.sort();
        v.remove(0)
    };
    let (ours_msg, theirs_msg) = (
        read(first_file(&ours_project)),
        read(first_file(&theirs_project)),
    );
    assert_eq!(json_keys(&ours_msg), json_keys(&theirs_msg));
    assert_eq!(
        read(info.archive.join(".gitattributes")),
        read(theirs.join(".gitattributes"))
    );
}
