//! Benchmark corpora (issue 6): `amail demo --messages N DIR`.
//!
//! N messages made of the demo scenario ([`super::mailbox::demo_mails`]),
//! repeated in waves of distinct beads and threads, so every message type,
//! realistic header and body sizes, help threads and acks-to-be appear in
//! the same mix as the demo. One message in 100 of those that carry a
//! `## Summary` gets a large body (32 to 256 KB of summary prose), as agents
//! that paste logs do. Files are written with a plain `fs::write`: a corpus
//! is scratch data, and fsyncing 100,000 files would take minutes.
//!
//! Nothing is routed and no ack journal is written: the corpus measures
//! parsing and loading, the router has its own benchmark.
//!
//! [`mcp`] writes the same messages as an mcp_agent_mail storage root
//! (`--format mcp`).

pub mod mcp;

use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::mailbox::{demo_mails, DemoMail};
use amail_core::stores::mailbox::{render_spec_text, SpecMail};

/// Messages per demo wave.
const WAVE: usize = 22;

/// One message in this many with a summary gets a large body.
const LARGE_EVERY: usize = 100;

/// What [`write_corpus`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CorpusInfo {
    /// The mailbox folder.
    pub mailbox: PathBuf,
    pub messages: usize,
    pub bytes: u64,
    /// Messages that got a large body.
    pub large: usize,
}

/// The first `n` corpus messages, oldest first.
pub fn corpus_mails(n: usize, now: DateTime<Utc>) -> Vec<DemoMail> {
    let mut mails = demo_mails(now, n.div_ceil(WAVE).max(1));
    mails.truncate(n);
    let mut with_summary = 0usize;
    for m in &mut mails {
        if !m.body.contains("\n## Summary\n") {
            continue;
        }
        with_summary += 1;
        if with_summary.is_multiple_of(LARGE_EVERY) {
            // 32, 64, 128 or 256 KB, cycling.
            let size = 32_768 << ((with_summary / LARGE_EVERY) % 4);
            m.body.push('\n');
            m.body.push_str(&prose(size));
        }
    }
    mails
}

/// `bytes` (about) of summary prose: one sentence a line.
pub fn prose(bytes: usize) -> String {
    const LINE: &str =
        "Implemented the token refresh path, with retries and a jittered backoff; see notes.\n";
    let mut s = String::with_capacity(bytes + LINE.len());
    while s.len() < bytes {
        s.push_str(LINE);
    }
    s.truncate(s.trim_end().len());
    s
}

/// The large-body message's envelope and the start of its body.
const BIG_HEAD: &str =
    "Subject: [ol-1] OFFERING_READY\nFrom: GreenCastle\nTo: Orchestrator\n\nBody:\n";
const BIG_BODY: &str = "Bead: ol-1\nStatus: DONE\n\n## Summary\n";

/// One message with a body of about `bytes`: the large-body benchmark input
/// (the Go peer's figure is for a 10.8 MB body).
pub fn big_message(bytes: usize) -> String {
    let mut s = format!("{BIG_HEAD}{BIG_BODY}");
    s.push_str(&prose(bytes.saturating_sub(s.len())));
    s.push('\n');
    s
}

/// The message of [`big_message`], as a [`DemoMail`] sent at `at` (for
/// stores that are not plain files). Its body alone is about `bytes`.
pub fn big_mail(bytes: usize, at: DateTime<Utc>) -> DemoMail {
    DemoMail {
        id: "big-1".into(),
        from: "GreenCastle".into(),
        to: vec!["Orchestrator".into()],
        cc: Vec::new(),
        thread: "ol-1".into(),
        at,
        subject: "[ol-1] OFFERING_READY".into(),
        body: format!("{BIG_BODY}{}", prose(bytes.saturating_sub(BIG_BODY.len()))),
        ack_required: false,
        importance: "normal".into(),
        acked_by: Vec::new(),
    }
}

/// The text of one corpus message, as the demo writes it.
pub fn render(m: &DemoMail) -> String {
    let text = render_spec_text(&SpecMail {
        id: &m.id,
        from: &m.from,
        to: &m.to,
        thread: &m.thread,
        date: m.at,
        subject: &m.subject,
        body: &m.body,
        ack_required: m.ack_required,
        importance: &m.importance,
    });
    if m.cc.is_empty() {
        return text;
    }
    let to_line = format!("To: {}\n", m.to.join(", "));
    text.replacen(&to_line, &format!("{to_line}Cc: {}\n", m.cc.join(", ")), 1)
}

/// Writes `n` messages under `mailbox` (created; must be empty or absent),
/// one file each, filed as the mcp_agent_mail server files its copies: a
/// folder per sender, then the year and month of the message's date
/// (`BlueLake/2026/11/000123-….md`). A load lists the newest months first
/// (`source::walk`'s dated listing), as it would a real archive's.
pub fn write_corpus(mailbox: &Path, n: usize, now: DateTime<Utc>) -> io::Result<CorpusInfo> {
    if mailbox.exists() && std::fs::read_dir(mailbox)?.next().is_some() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{}: not empty; a corpus goes into a fresh folder",
                mailbox.display()
            ),
        ));
    }
    let mails = corpus_mails(n, now);
    let mut bytes = 0u64;
    let mut large = 0usize;
    let mut made = std::collections::HashSet::new();
    for (i, m) in mails.iter().enumerate() {
        let dir = mailbox
            .join(&m.from)
            .join(m.at.format("%Y").to_string())
            .join(m.at.format("%m").to_string());
        if made.insert(dir.clone()) {
            std::fs::create_dir_all(&dir)?;
        }
        let text = render(m);
        if m.body.len() > 32_000 {
            large += 1;
        }
        bytes += text.len() as u64;
        let slug = amail_core::stores::names::subject_slug(&m.subject);
        std::fs::write(dir.join(format!("{:06}-{slug}.md", i + 1)), text)?;
    }
    Ok(CorpusInfo {
        mailbox: mailbox.to_path_buf(),
        messages: mails.len(),
        bytes,
        large,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use amail_parser::{MessageType, ParseOptions};
    use chrono::TimeZone;
    use std::collections::BTreeMap;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap()
    }

    #[test]
    fn corpus_parses_clean_with_every_type_and_large_bodies() {
        let dir = tempfile::tempdir().unwrap();
        let info = write_corpus(&dir.path().join("mail"), 5_000, now()).unwrap();
        assert_eq!(info.messages, 5_000);
        assert!(info.large >= 2, "large bodies: {}", info.large);
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        let mut files = 0;
        let mut threads = std::collections::HashSet::new();
        {
            for f in files_under(&info.mailbox) {
                let bytes = std::fs::read(f).unwrap();
                let msgs = amail_parser::parse_bytes(&bytes, &ParseOptions::default()).unwrap();
                assert_eq!(msgs.len(), 1);
                files += 1;
                let m = &msgs[0];
                // Plain mail (the orchestrator's wave status) names no
                // protocol type, which the parser notes as info: expected.
                let plain = !m.subject.starts_with('[');
                let unexpected: Vec<_> = m
                    .diagnostics
                    .iter()
                    .filter(|d| !(plain && d.code == "unknown-type"))
                    .collect();
                assert!(unexpected.is_empty(), "{}: {:?}", m.subject, unexpected);
                *kinds.entry(m.kind.to_string()).or_default() += 1;
                if let Some(t) = &m.thread_id {
                    threads.insert(t.to_string());
                }
            }
        }
        assert_eq!(files, 5_000);
        for k in [
            MessageType::Progress,
            MessageType::HelpRequest,
            MessageType::HelpResponse,
            MessageType::OfferingReady,
            MessageType::Done,
            MessageType::Failed,
            MessageType::Checkpoint,
            MessageType::BeadAccepted,
            MessageType::SpawnRequest,
            MessageType::SpawnAck,
        ] {
            assert!(
                kinds.get(k.as_str()).copied().unwrap_or(0) > 100,
                "{k}: {kinds:?}"
            );
        }
        assert!(threads.len() > 1_000, "threads: {}", threads.len());
    }

    /// Every file below `dir`, in path order.
    fn files_under(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                out.extend(files_under(&path));
            } else {
                out.push(path);
            }
        }
        out.sort();
        out
    }

    /// Filed as the server files its copies: a folder per sender, then
    /// the year and month of the message's date, so a load finds the
    /// newest months by their names (`source::walk`'s dated listing).
    #[test]
    fn files_are_filed_by_sender_then_the_year_and_month_of_their_date() {
        let dir = tempfile::tempdir().unwrap();
        let info = write_corpus(&dir.path().join("mail"), 2_000, now()).unwrap();
        let files = files_under(&info.mailbox);
        assert_eq!(files.len(), 2_000);
        let mut months = std::collections::HashSet::new();
        for f in &files {
            let rel = f.strip_prefix(&info.mailbox).unwrap();
            let parts: Vec<&str> = rel.iter().map(|p| p.to_str().unwrap()).collect();
            let [from, year, month, name] = parts[..] else {
                panic!("{}", rel.display());
            };
            let text = std::fs::read_to_string(f).unwrap();
            let m = &amail_parser::parse(&text, &ParseOptions::default()).unwrap()[0];
            assert_eq!(m.from.as_deref(), Some(from), "{}", rel.display());
            let at = m.timestamp.unwrap();
            assert_eq!(
                (year, month),
                (
                    at.format("%Y").to_string().as_str(),
                    at.format("%m").to_string().as_str()
                ),
                "{}",
                rel.display()
            );
            assert!(name.ends_with(".md") && name.as_bytes()[..6].iter().all(u8::is_ascii_digit));
            months.insert((year, month));
        }
        // 2,000 messages in waves of 22 four hours apart: 15 days back
        // from January 15th, so December's folders too.
        assert_eq!(months.len(), 2, "{months:?}");
    }

    #[test]
    fn big_message_is_one_clean_message_of_the_asked_size() {
        let text = big_message(1_000_000);
        assert!(text.len() >= 1_000_000 && text.len() < 1_001_000);
        let msgs = amail_parser::parse(&text, &ParseOptions::default()).unwrap();
        assert_eq!(msgs.len(), 1);
        assert!(msgs[0].diagnostics.is_empty(), "{:?}", msgs[0].diagnostics);
    }

    #[test]
    fn refuses_a_non_empty_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.md"), "x").unwrap();
        assert!(write_corpus(dir.path(), 10, now()).is_err());
    }
}
