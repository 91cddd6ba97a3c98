//! What a change to an mcp_agent_mail root's files means to a running
//! inbox. SQLite rewrites the database's wal-index (`-shm`) whenever a
//! connection opens it, readers included: amail's own load did (it now
//! opens a database no one has open as immutable, touching nothing), so a
//! watched root saw a change after every load, loaded again, and never
//! stopped (the status bar said "working" for good on a million-message
//! root). Nor is an empty WAL, which a reader makes where there is none.
//! The WAL with frames in it and the database file are where new mail and
//! acks land.

use std::path::{Path, PathBuf};

use amail::demo::corpus::mcp;
use amail_core::stores::{self, LoadOptions, Refresh};
use chrono::{TimeZone, Utc};

fn root(dir: &Path) -> PathBuf {
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    mcp::write_mcp_corpus(dir, 40, now).unwrap().db
}

fn side_file(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[test]
fn the_wal_index_that_readers_rewrite_is_no_change() {
    let dir = tempfile::tempdir().unwrap();
    let db = root(dir.path());
    let store = stores::open(dir.path(), &LoadOptions::default()).unwrap();
    let before = store.load().unwrap();
    // amail's own load leaves no side files (tests/reliability/readonly.rs);
    // another reader of the database (the server's) does: its wal-index,
    // and an empty WAL.
    let shm = side_file(&db, "-shm");
    assert!(!shm.exists(), "a load left the wal-index");
    let reader =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    reader
        .query_row("SELECT count(*) FROM messages", [], |r| r.get::<_, i64>(0))
        .unwrap();
    assert!(shm.exists(), "a reader leaves the wal-index");
    assert!(matches!(
        store.refresh(std::slice::from_ref(&shm)).unwrap(),
        Refresh::Unchanged
    ));

    // An empty WAL is what a reader makes when there is none: no change.
    let wal = side_file(&db, "-wal");
    assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
    assert!(matches!(
        store.refresh(&[wal.clone(), shm.clone()]).unwrap(),
        Refresh::Unchanged
    ));
    // A WAL with frames in it, and the database itself, are changes:
    // read again.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute(
            "UPDATE messages SET importance = importance WHERE id = 1",
            [],
        )
        .unwrap();
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "the write is in the WAL"
    );
    for changed in [wal.clone(), db.clone()] {
        match store.refresh(&[changed.clone(), shm.clone()]).unwrap() {
            Refresh::Whole(inbox) => assert_eq!(inbox, before, "{}", changed.display()),
            _ => panic!("{} is a change", changed.display()),
        }
    }
    // A burst that could not say what changed reads everything.
    assert!(matches!(store.refresh(&[]).unwrap(), Refresh::Whole(_)));
}
