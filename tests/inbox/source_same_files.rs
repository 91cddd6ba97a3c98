//! `amail parse DIR` and the inbox loader (`amail inbox DIR`, `amail
//! threads DIR`) find mail with one walker, so they read the same files:
//! on an mcp_agent_mail storage root only the canonical copies, on a plain
//! mailbox every visible mail file, and inside a plain mailbox an
//! mcp_agent_mail project folder again only its canonical copies.
//!
//! Compared as the set of files each turned into messages: `parse` names
//! each message's file in `source`, the loader in `path`. Both also read
//! the handoff files of the named mailbox's handoff directory (hidden,
//! never walked); those are left out of both sides.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use amail_core::stores::{self, LoadOptions};
use chrono::{TimeZone, Utc};

use crate::support::cli::amail;
use crate::support::copy::fixture_copy;
use crate::support::fixture::fixture;
use crate::support::fs::copy_dir;

/// The files `amail parse DIR --format jsonl` printed messages from.
fn parse_files(dir: &Path) -> BTreeSet<PathBuf> {
    let out = amail(&["parse", "--format", "jsonl", dir.to_str().unwrap()], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let source = v["source"].as_str().unwrap();
            // `path:line`
            PathBuf::from(source.rsplit_once(':').unwrap().0)
        })
        .filter(|p| walked(dir, p))
        .collect()
}

/// The files the inbox loader made messages of (walked ones only).
fn inbox_files(dir: &Path) -> BTreeSet<PathBuf> {
    let inbox = stores::load(dir, &LoadOptions::default()).unwrap();
    inbox
        .messages
        .iter()
        .filter_map(|m| m.path.as_deref().map(Path::to_path_buf))
        .filter(|p| walked(dir, p))
        .collect()
}

/// Whether `p` is a file the walk reaches under `dir`: no hidden folder
/// (the handoff directory) on the way.
fn walked(dir: &Path, p: &Path) -> bool {
    p.strip_prefix(dir).is_ok_and(|rel| {
        rel.components()
            .all(|c| !c.as_os_str().to_string_lossy().starts_with('.'))
    })
}

fn assert_same_files(dir: &Path) -> BTreeSet<PathBuf> {
    let parsed = parse_files(dir);
    let loaded = inbox_files(dir);
    let only_parse: Vec<_> = parsed.difference(&loaded).collect();
    let only_inbox: Vec<_> = loaded.difference(&parsed).collect();
    assert!(
        only_parse.is_empty() && only_inbox.is_empty(),
        "only `amail parse` read {only_parse:#?}\nonly the inbox loader read {only_inbox:#?}"
    );
    parsed
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn canonical_copies(files: &BTreeSet<PathBuf>) -> bool {
    files.iter().all(|f| {
        let s = f.to_string_lossy();
        s.contains("/messages/2026/") && s.ends_with(".md")
    })
}

#[test]
fn storage_root_both_read_the_canonical_copies() {
    let dir = fixture_copy();
    let files = assert_same_files(dir.path());
    assert_eq!(files.len(), 11);
    assert!(canonical_copies(&files));
}

#[test]
fn storage_root_with_other_files_both_read_only_the_canonical_copies() {
    let dir = fixture_copy();
    let archive = dir.path().join("archive");
    // A note at the top of the archive, and a project folder with
    // messages but (yet) no `agents/`, holding a thread digest and a
    // message outside the `YYYY/MM` folders.
    write(
        &archive.join("NOTES.md"),
        "Subject: notes\n\nnot a message\n",
    );
    let canonical = std::fs::read_dir(archive.join("projects/home-dev-demo-repo/messages/2026/11"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&canonical)
        .unwrap()
        .replace("\"id\": ", "\"id\": 100");
    let other = archive.join("projects/other/messages");
    write(&other.join("2026/11/m.md"), &text);
    write(
        &other.join("threads/t.md"),
        "# Thread t\n\nSubject: digest\n",
    );
    write(&other.join("loose.md"), "Subject: loose\n");
    let files = assert_same_files(dir.path());
    assert_eq!(files.len(), 12);
    assert!(canonical_copies(&files));
}

#[test]
fn plain_mailbox_both_read_every_mail_file() {
    let dir = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    amail::demo::write_demo_at(dir.path(), now).unwrap();
    let files = assert_same_files(&dir.path().join("mail"));
    assert!(files.len() >= 22, "{files:#?}");
}

#[test]
fn plain_mailbox_holding_a_project_folder_reads_only_its_canonical_copies() {
    let dir = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    amail::demo::write_demo_at(dir.path(), now).unwrap();
    let mail = dir.path().join("mail");
    let alone = assert_same_files(&mail);
    // An mcp_agent_mail project copied in: `agents/*/inbox|outbox` hold
    // copies of its messages, `messages/threads/` digests of them.
    copy_dir(
        &fixture().join("archive/projects/home-dev-demo-repo"),
        &mail.join("imported"),
    );
    let files = assert_same_files(&mail);
    let added: BTreeSet<_> = files.difference(&alone).cloned().collect();
    assert_eq!(added.len(), 11, "{added:#?}");
    assert!(canonical_copies(&added));
}
