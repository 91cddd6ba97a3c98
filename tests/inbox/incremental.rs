//! The incremental reload (`stores::mailbox::incremental`) ends equal to a full
//! load after adds, edits, removals and mixed bursts, on generated corpora.
use std::path::{Path, PathBuf};

use amail_core::inbox::Inbox;
use amail_core::stores::mailbox::incremental::Reload;
use amail_core::stores::mailbox::journal;
use amail_core::stores::Error;
use chrono::TimeZone;

// These tests load and reload with the default size limit.
const MAX: u64 = amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES;

fn load_mailbox(root: &Path) -> Result<Inbox, Error> {
    amail_core::stores::load_mailbox(root, MAX)
}

fn reload_changed(inbox: &mut Inbox, changed: &[PathBuf]) -> Result<Reload, Error> {
    amail_core::stores::mailbox::reload_changed(inbox, changed, MAX)
}

pub(crate) fn corpus(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let info = amail::demo::corpus::write_corpus(&dir.path().join("mail"), n, now).unwrap();
    (dir, info.mailbox)
}

#[test]
fn one_new_file_gives_the_same_model_as_a_full_load() {
    let (_d, root) = corpus(300);
    let before = load_mailbox(&root).unwrap();
    let count = before.messages.len();
    let new = root.join("PurpleBear").join("zz-new.md");
    std::fs::write(
        &new,
        "Subject: [ol-527.2] PROGRESS\nFrom: PurpleBear\nTo: Orchestrator\nThread: ol-527.2\n\nBody:\nBead: ol-527.2\nStep: Step 3 - backfill\nStatus: running\nContext usage: 40%\n",
    )
    .unwrap();
    let mut inc = before;
    let how = reload_changed(&mut inc, std::slice::from_ref(&new)).unwrap();
    assert_eq!(how, Reload::Incremental);
    assert_eq!(inc.messages.len(), count + 1);
    assert_eq!(inc, load_mailbox(&root).unwrap());
}

#[test]
fn modified_and_removed_files_match_a_full_load() {
    let (_d, root) = corpus(300);
    let before = load_mailbox(&root).unwrap();
    let a = before.messages[5].path.as_deref().unwrap().to_path_buf();
    let b = before.messages[9].path.as_deref().unwrap().to_path_buf();
    std::fs::remove_file(&a).unwrap();
    let text = std::fs::read_to_string(&b).unwrap();
    std::fs::write(&b, text.replace("Subject: [", "Subject: Re: [")).unwrap();
    let mut inc = before;
    let how = reload_changed(&mut inc, &[a, b]).unwrap();
    assert_eq!(how, Reload::Incremental);
    assert_eq!(inc.messages.len(), 299);
    assert_eq!(inc, load_mailbox(&root).unwrap());
}

/// Changed paths are matched as spelled; one spelled another way than
/// the load spelled it must still end equal to a full load (by falling
/// back), never as a duplicate message.
#[test]
fn a_changed_path_spelled_another_way_still_matches_a_full_load() {
    let (_d, root) = corpus(300);
    let before = load_mailbox(&root).unwrap();
    let a = before.messages[5].path.as_deref().unwrap().to_path_buf();
    let b = before.messages[9].path.as_deref().unwrap().to_path_buf();
    let text = std::fs::read_to_string(&a).unwrap();
    std::fs::write(&a, text.replace("Subject: [", "Subject: Re: [")).unwrap();
    std::fs::remove_file(&b).unwrap();
    let respell = |p: &Path| {
        let s = p.to_str().unwrap();
        let (dir, name) = s.rsplit_once('/').unwrap();
        PathBuf::from(format!("{dir}//{name}"))
    };
    let mut inc = before;
    reload_changed(&mut inc, &[respell(&a), respell(&b)]).unwrap();
    assert_eq!(inc.messages.len(), 299);
    assert_eq!(inc, load_mailbox(&root).unwrap());
}

/// Reloads `changed` incrementally and checks the result against a
/// full load of the mailbox as it is now.
/// Also checks the record of what the patch did (see [`check_record`]).
fn same_as_full(root: &Path, inbox: &mut Inbox, changed: &[PathBuf]) {
    inbox.take_patched();
    let before = inbox.clone();
    let how = reload_changed(inbox, changed).unwrap();
    assert_eq!(how, Reload::Incremental, "{changed:?}");
    let full = load_mailbox(root).unwrap();
    if *inbox != full {
        panic!(
            "after {changed:?} the patched inbox differs from a full load: {}",
            first_difference(inbox, &full)
        );
    }
    let patched = inbox.take_patched().expect("a patch says what it did");
    check_record(&before, inbox, &patched);
    assert_eq!(inbox.take_patched(), None, "taken once");
    // The thread table the patch kept finds every thread where it is.
    for (i, t) in inbox.threads.iter().enumerate() {
        let first = inbox.threads.iter().position(|u| u.id == t.id);
        assert_eq!(inbox.thread_position(&t.id), first, "thread {i}: {}", t.id);
    }
}

/// The record a patch keeps for a view (`Inbox::take_patched`) against
/// the inboxes before and after: where every thread went, what each
/// touched thread counted before and how many acks it owes more or less
/// by agent, and that every thread it does not name counts as before.
fn check_record(before: &Inbox, after: &Inbox, p: &amail_core::inbox::Patched) {
    use amail_core::inbox::{Thread, ThreadTally};
    use std::collections::{BTreeMap, HashMap, HashSet};
    type Key = (Option<String>, String);
    let key = |t: &Thread| -> Key { (t.project.map(|p| p.to_string()), t.id.clone()) };
    let at = |inbox: &Inbox| -> HashMap<Key, usize> {
        inbox
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| (key(t), i))
            .collect()
    };
    let (before_at, now_at) = (at(before), at(after));
    let tally = |t: &Thread| ThreadTally {
        pending: t.pending,
        help: t.help,
        phase: t.phase,
    };
    let owed = |inbox: &Inbox, t: Option<&Thread>| {
        let mut by: BTreeMap<String, isize> = BTreeMap::new();
        for &i in t.map_or(&[][..], |t| &t.messages) {
            let m = &inbox.messages[i];
            if m.message.ack_required {
                for r in m.recipients.iter().filter(|r| r.ack_at.is_none()) {
                    *by.entry(r.agent.to_string()).or_default() += 1;
                }
            }
        }
        by
    };
    assert_eq!(p.threads_before, before.threads.len());
    for (i, t) in before.threads.iter().enumerate() {
        assert_eq!(p.thread_now(i), now_at.get(&key(t)).copied(), "{}", t.id);
    }
    let mut named = HashSet::new();
    let mut gone = 0;
    for t in &p.touched {
        let now = t.now.map(|q| &after.threads[q]);
        let was = match now {
            Some(n) => before_at.get(&key(n)).map(|&i| &before.threads[i]),
            None => {
                gone += 1;
                assert!(t.before.is_some(), "a thread that went was there");
                continue;
            }
        };
        named.extend(t.now);
        assert_eq!(t.before, was.map(tally), "{:?}", now.map(|n| &n.id));
        let mut change = owed(after, now);
        for (a, n) in owed(before, was) {
            *change.entry(a).or_default() -= n;
        }
        change.retain(|_, n| *n != 0);
        let told: BTreeMap<String, isize> =
            t.owed.iter().map(|&(a, n)| (a.to_string(), n)).collect();
        assert_eq!(told, change, "{:?}", now.map(|n| &n.id));
    }
    let went = before
        .threads
        .iter()
        .filter(|t| !now_at.contains_key(&key(t)));
    assert_eq!(gone, went.count());
    for (q, t) in after.threads.iter().enumerate() {
        if !named.contains(&q) {
            let was = &before.threads[before_at[&key(t)]];
            assert_eq!(tally(was), tally(t), "{} untouched", t.id);
            assert_eq!(owed(before, Some(was)), owed(after, Some(t)), "{}", t.id);
        }
    }
}

fn first_difference(a: &Inbox, b: &Inbox) -> String {
    if a.messages.len() != b.messages.len() {
        return format!("{} vs {} messages", a.messages.len(), b.messages.len());
    }
    if let Some(i) = (0..a.messages.len()).find(|&i| a.messages[i] != b.messages[i]) {
        return format!("message {i}: {:?}\nvs {:?}", a.messages[i], b.messages[i]);
    }
    if a.threads.len() != b.threads.len() {
        return format!("{} vs {} threads", a.threads.len(), b.threads.len());
    }
    if let Some(i) = (0..a.threads.len()).find(|&i| a.threads[i] != b.threads[i]) {
        return format!("thread {i}: {:?}\nvs {:?}", a.threads[i], b.threads[i]);
    }
    if a.agents.len() != b.agents.len() {
        return format!("{:?}\nvs {:?}", a.agents, b.agents);
    }
    if let Some(i) = (0..a.agents.len()).find(|&i| a.agents[i] != b.agents[i]) {
        return format!("agent {i}: {:?}\nvs {:?}", a.agents[i], b.agents[i]);
    }
    "problems or source".into()
}

/// Sets header `name` in a spec-text mail (added if missing).
fn set_header(text: &str, name: &str, value: &str) -> String {
    let prefix = format!("{name}: ");
    let (head, body) = text.split_once("\n\n").unwrap();
    if !head.lines().any(|l| l.starts_with(&prefix)) {
        return format!("{head}\n{prefix}{value}\n\n{body}");
    }
    let head: Vec<String> = head
        .lines()
        .map(|l| {
            if l.starts_with(&prefix) {
                format!("{prefix}{value}")
            } else {
                l.to_string()
            }
        })
        .collect();
    format!("{}\n\n{body}", head.join("\n"))
}

/// Writes a copy of mail `from` at `to` with headers set.
fn copy_with(from: &Path, to: &Path, headers: &[(&str, &str)]) -> PathBuf {
    let mut text = std::fs::read_to_string(from).unwrap();
    for (name, value) in headers {
        text = set_header(&text, name, value);
    }
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::write(to, text).unwrap();
    to.to_path_buf()
}

#[test]
fn each_kind_of_change_in_turn_matches_a_full_load() {
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let path_of =
        |inbox: &Inbox, i: usize| inbox.messages[i].path.as_deref().unwrap().to_path_buf();

    // A reply that answers an open help request: its thread becomes
    // answered and the asker's state changes.
    let (t, req) = inbox
        .threads
        .iter()
        .enumerate()
        .find_map(|(t, th)| {
            (th.help == amail_core::inbox::HelpState::Unanswered).then(|| {
                let req = *th
                    .messages
                    .iter()
                    .find(|&&i| inbox.messages[i].is_help_request())
                    .unwrap();
                (t, req)
            })
        })
        .expect("an unanswered help request in the corpus");
    let thread_id = inbox.threads[t].id.clone();
    let asker = inbox.messages[req].message.from.unwrap().to_string();
    let helper = inbox.messages[req].recipients[0].agent.as_str();
    let subject = format!("Re: {}", inbox.messages[req].message.subject);
    let reply = copy_with(
        &path_of(&inbox, req),
        &root.join(helper).join("zz-reply.md"),
        &[
            ("Id", "inc-reply-1"),
            ("From", helper),
            ("To", &asker),
            ("Subject", &subject),
        ],
    );
    same_as_full(&root, &mut inbox, &[reply]);
    let th = inbox.threads.iter().find(|t| t.id == thread_id).unwrap();
    assert_eq!(th.help, amail_core::inbox::HelpState::Answered);

    // A new thread, older than everything (inserted first: every index
    // shifts), from and to agents nobody has seen.
    let old = copy_with(
        &path_of(&inbox, 7),
        &root.join("Newcomer").join("old.md"),
        &[
            ("Id", "inc-old-1"),
            ("From", "Newcomer"),
            ("To", "Stranger"),
            ("Thread", "inc-brand-new-thread"),
            ("Date", "2001-01-01T00:00:00Z"),
        ],
    );
    same_as_full(&root, &mut inbox, std::slice::from_ref(&old));
    assert!(inbox.agent("Stranger").is_some());

    // A modified file: its subject becomes a reply.
    let m = path_of(&inbox, 40);
    let text = std::fs::read_to_string(&m).unwrap();
    std::fs::write(&m, text.replacen("Subject: ", "Subject: Re: ", 1)).unwrap();
    same_as_full(&root, &mut inbox, &[m]);

    // Every message of a thread removed: the thread goes.
    let gone = inbox
        .threads
        .iter()
        .find(|t| t.messages.len() >= 2)
        .unwrap()
        .clone();
    let files: Vec<PathBuf> = gone.messages.iter().map(|&i| path_of(&inbox, i)).collect();
    for f in &files {
        std::fs::remove_file(f).unwrap();
    }
    same_as_full(&root, &mut inbox, &files);
    assert!(!inbox.threads.iter().any(|t| t.id == gone.id));

    // The newcomers' only message removed: they leave the roster.
    std::fs::remove_file(&old).unwrap();
    same_as_full(&root, &mut inbox, &[old]);
    assert!(inbox.agent("Stranger").is_none());

    // Several changes in one burst: two added, one removed, one edited.
    let a = copy_with(
        &path_of(&inbox, 3),
        &root.join("zz-a.md"),
        &[("Id", "inc-burst-a")],
    );
    let b = copy_with(
        &path_of(&inbox, 100),
        &root.join("sub").join("zz-b.md"),
        &[("Id", "inc-burst-b"), ("Thread", "inc-burst-thread")],
    );
    let r = path_of(&inbox, 150);
    std::fs::remove_file(&r).unwrap();
    let e = path_of(&inbox, 200);
    let text = std::fs::read_to_string(&e).unwrap();
    std::fs::write(&e, set_header(&text, "Ack-Required", "true")).unwrap();
    same_as_full(&root, &mut inbox, &[a, b, r, e]);
}

#[test]
fn a_new_seed_of_existing_replies_falls_back_to_a_full_load() {
    let (_d, root) = corpus(60);
    let src = root.join("orphan.md");
    let first = load_mailbox(&root).unwrap();
    let any = first.messages[3].path.as_deref().unwrap().to_path_buf();
    let mut inbox = first;
    // A reply naming a thread no message seeds yet ...
    let text = std::fs::read_to_string(&any).unwrap();
    let text = set_header(&text, "Id", "inc-orphan");
    std::fs::write(&src, set_header(&text, "Thread", "inc-seed")).unwrap();
    same_as_full(&root, &mut inbox, std::slice::from_ref(&src));
    // ... then the message it names, without a thread id: the reply
    // moves to the seed's thread, which the patch does not do.
    let seed = root.join("seed.md");
    let text: String = set_header(&text, "Id", "inc-seed")
        .lines()
        .filter(|l| !l.starts_with("Thread: "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&seed, text).unwrap();
    let how = reload_changed(&mut inbox, std::slice::from_ref(&seed)).unwrap();
    assert_eq!(how, Reload::Full);
    assert_eq!(inbox, load_mailbox(&root).unwrap());
}

#[test]
fn a_removed_folder_falls_back_to_a_full_load() {
    let (_d, root) = corpus(60);
    let mut inbox = load_mailbox(&root).unwrap();
    let dir = inbox.messages[0].path.as_deref().unwrap().to_path_buf();
    let dir = dir.parent().unwrap().to_path_buf();
    std::fs::remove_dir_all(&dir).unwrap();
    let how = reload_changed(&mut inbox, &[dir]).unwrap();
    assert_eq!(how, Reload::Full);
    assert_eq!(inbox, load_mailbox(&root).unwrap());
}

#[test]
fn a_journal_change_falls_back_to_a_full_load() {
    let (_d, root) = corpus(50);
    let before = load_mailbox(&root).unwrap();
    let journal = journal::journal_path(&root);
    let mut inc = before;
    let how = reload_changed(&mut inc, &[journal]).unwrap();
    assert_eq!(how, Reload::Full);
    assert_eq!(inc, load_mailbox(&root).unwrap());
}

/// The TUI reads the changed files on its worker (`read_changed`, no
/// inbox needed) and patches the inbox on screen later (`apply_changed`):
/// the two halves end equal to a full load, for new mail from a new
/// sender to a new recipient (the roster patch), an undated file (it goes
/// first in time order: every index shifts) and a dated reply in an
/// existing thread; and the files read under one mailbox never patch an
/// inbox loaded from another.
#[test]
fn a_reload_read_then_applied_gives_the_same_inbox_as_a_full_load() {
    use amail_core::stores::mailbox::{apply_changed, read_changed};
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let thread = inbox.threads[3].id.clone();
    let files = [
        (
            root.join("NewSender").join("zz-1.md"),
            "Subject: [ol-777.1] HELP_REQUEST\nFrom: NewSender\nTo: NewRecipient\nDate: 2026-01-15T12:30:00Z\n\nBody:\nBead: ol-777.1\n## Question\nWhich port?\n".to_string(),
        ),
        (
            root.join("PurpleBear").join("zz-2.md"),
            "Subject: [ol-778.1] PROGRESS\nFrom: PurpleBear\nTo: Orchestrator\n\nBody:\nBead: ol-778.1\nStep: Step 1 - undated\nStatus: running\nContext usage: 10%\n".to_string(),
        ),
        (
            root.join("PurpleBear").join("zz-3.md"),
            format!("Subject: Re: a reply\nFrom: PurpleBear\nTo: Orchestrator\nThread: {thread}\nDate: 2026-01-15T12:31:00Z\n\nBody:\nnoted\n"),
        ),
    ];
    for (path, text) in &files {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        let read = read_changed(&root, std::slice::from_ref(path), MAX).expect("readable");
        assert_eq!(read.added().len(), 1);
        let mut elsewhere = inbox.clone();
        elsewhere.source = amail_core::inbox::SourceKind::Mailbox {
            root: root.join("other"),
        };
        let untouched = elsewhere.clone();
        assert!(!apply_changed(&mut elsewhere, read.clone()));
        assert_eq!(elsewhere, untouched);
        assert!(apply_changed(&mut inbox, read), "{}", path.display());
        let full = load_mailbox(&root).unwrap();
        if inbox != full {
            panic!(
                "after {} the patched inbox differs from a full load: {}",
                path.display(),
                first_difference(&inbox, &full)
            );
        }
    }
    assert!(inbox.agents.iter().any(|a| a.name == "NewRecipient"));
}

/// A dated spec-text message, `at` minutes after the corpus's newest,
/// written as the mailbox store writes one.
fn dated_mail(id: &str, from: &str, to: &str, thread: &str, subject: &str, minutes: i64) -> String {
    use amail_core::stores::mailbox::{render_spec_text, SpecMail};
    render_spec_text(&SpecMail {
        id,
        from,
        to: &[to.to_string()],
        thread,
        date: chrono::Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0).unwrap()
            + chrono::Duration::minutes(minutes),
        subject,
        body: "noted",
        ack_required: true,
        importance: "normal",
    })
}

/// Writes `text` to `path` (its folder made) and returns the path.
fn write_mail(path: PathBuf, text: impl AsRef<[u8]>) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// [`write_mail`], then reloads that one file and checks the result
/// against a full load ([`same_as_full`]).
fn write_and_match(
    root: &Path,
    inbox: &mut Inbox,
    path: PathBuf,
    text: impl AsRef<[u8]>,
) -> PathBuf {
    let path = write_mail(path, text);
    same_as_full(root, inbox, std::slice::from_ref(&path));
    path
}

fn thread_of_key<'a>(inbox: &'a Inbox, key: &str) -> &'a amail_core::inbox::Thread {
    inbox.thread_for(inbox.message_by_key(key).unwrap())
}

/// A new file whose id is a kept message's key: a full load gives one of
/// them a renamed key, depending on path order, so the reload is full.
#[test]
fn a_new_file_whose_key_collides_falls_back_to_a_full_load() {
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let taken = inbox.messages[10].key.to_string();
    let new = root.join("zz-collides.md");
    std::fs::write(
        &new,
        dated_mail(&taken, "GreenCastle", "BlueLake", "zz-t", "a clash", 1),
    )
    .unwrap();
    let how = reload_changed(&mut inbox, std::slice::from_ref(&new)).unwrap();
    assert_eq!(how, Reload::Full);
    assert_eq!(inbox, load_mailbox(&root).unwrap());
}

/// The journal grew (an ack for an old message, one for a message not
/// loaded yet) and lost a line, unreported, while a new file landed: the
/// reload applies only what the journal changed, and ends equal to a
/// full load, pending counts included.
#[test]
fn acks_recorded_since_the_load_reach_old_and_new_messages() {
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let (old, agent) = inbox
        .messages
        .iter()
        .find_map(|m| {
            let r = m.recipients.iter().find(|r| r.ack_at.is_none())?;
            m.message.ack_required.then(|| (m.key.to_string(), r.agent))
        })
        .expect("a pending ack in the corpus");
    let pending_before = thread_of_key(&inbox, &old).pending;
    let at = chrono::Utc.with_ymd_and_hms(2027, 2, 1, 0, 0, 0).unwrap();
    let entry = |key: &str, agent: &str| journal::JournalEntry {
        key: key.to_string(),
        id: None,
        agent: agent.to_string(),
        ack_at: Some(at),
        read_at: at,
    };
    journal::append(&root, entry(&old, &agent)).unwrap();
    journal::append(&root, entry("inc-acked-early", "BlueLake")).unwrap();
    let new = root.join("GreenCastle").join("zz-acked.md");
    std::fs::write(
        &new,
        dated_mail(
            "inc-acked-early",
            "GreenCastle",
            "BlueLake",
            "zz-t",
            "early",
            1,
        ),
    )
    .unwrap();
    same_as_full(&root, &mut inbox, std::slice::from_ref(&new));
    assert_eq!(thread_of_key(&inbox, &old).pending, pending_before - 1);
    let m = inbox.message_by_key("inc-acked-early").unwrap();
    assert_eq!(m.recipients[0].ack_at, Some(at));

    // The journal loses the old message's line (rewritten by hand): its
    // ack is gone from a full load, so from the patch too.
    let path = journal::journal_path(&root);
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.contains(&format!("\"key\":\"{old}\"")))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, kept).unwrap();
    let other = root.join("GreenCastle").join("zz-after.md");
    std::fs::write(
        &other,
        dated_mail("inc-after", "GreenCastle", "BlueLake", "zz-t", "after", 2),
    )
    .unwrap();
    same_as_full(&root, &mut inbox, std::slice::from_ref(&other));
    assert_eq!(thread_of_key(&inbox, &old).pending, pending_before);
}

/// A reply in the oldest thread lifts it to the top; every thread above
/// moves down one, and each message still points at its thread.
#[test]
fn a_reply_into_an_old_thread_moves_it_to_the_top() {
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let oldest = inbox.threads.last().unwrap().id.clone();
    let late = dated_mail(
        "inc-late",
        "BlueLake",
        "GreenCastle",
        &oldest,
        "Re: late",
        5,
    );
    write_and_match(
        &root,
        &mut inbox,
        root.join("BlueLake/zz-late-reply.md"),
        late,
    );
    assert_eq!(inbox.threads[0].id, oldest);
    // Then a new thread above it, and a reply into the second thread.
    let second = inbox.threads[1].id.clone();
    let a = write_mail(
        root.join("BlueLake/zz-new-thread.md"),
        dated_mail("inc-new-top", "BlueLake", "Chiron", "inc-top", "top", 6),
    );
    let b = write_mail(
        root.join("Chiron/zz-second.md"),
        dated_mail("inc-second", "Chiron", "BlueLake", &second, "Re: again", 7),
    );
    same_as_full(&root, &mut inbox, &[a, b]);
    assert_eq!(inbox.threads[0].id, second);
    assert_eq!(inbox.threads[1].id, "inc-top");
    // Two lifted in one burst, the lower one to the very top: the upper
    // one moves down on the way before it is lifted too.
    let (fifth, third) = (inbox.threads[5].id.clone(), inbox.threads[3].id.clone());
    let c = write_mail(
        root.join("Chiron/zz-fifth.md"),
        dated_mail("inc-fifth", "Chiron", "BlueLake", &fifth, "Re: five", 9),
    );
    let d = write_mail(
        root.join("Chiron/zz-third.md"),
        dated_mail("inc-third", "Chiron", "BlueLake", &third, "Re: three", 8),
    );
    same_as_full(&root, &mut inbox, &[c, d]);
    assert_eq!(inbox.threads[0].id, fifth);
    assert_eq!(inbox.threads[1].id, third);
    for (t, thread) in inbox.threads.iter().enumerate() {
        for &i in &thread.messages {
            assert_eq!(inbox.thread_index(&inbox.messages[i]), t);
        }
    }
}

/// An undated new file sorts before every message (every index moves),
/// then a dated one lands after them all, then one is removed: each
/// patch leaves what the next one reads (the inbox's index) true.
#[test]
fn patches_in_a_row_keep_finding_messages_by_key_and_file() {
    let (_d, root) = corpus(200);
    let mut inbox = load_mailbox(&root).unwrap();
    let undated = root.join("zz-undated.md");
    std::fs::write(
        &undated,
        "Subject: [ol-778.1] PROGRESS\nId: inc-undated\nFrom: PurpleBear\nTo: Orchestrator\n\nBody:\nBead: ol-778.1\nStatus: running\n",
    )
    .unwrap();
    same_as_full(&root, &mut inbox, std::slice::from_ref(&undated));
    assert_eq!(inbox.messages[0].key, "inc-undated");
    let dated = root.join("zz-dated.md");
    std::fs::write(
        &dated,
        dated_mail(
            "inc-dated",
            "PurpleBear",
            "Orchestrator",
            "zz-t",
            "dated",
            1,
        ),
    )
    .unwrap();
    same_as_full(&root, &mut inbox, std::slice::from_ref(&dated));
    for key in ["inc-undated", "inc-dated", inbox.messages[100].key.as_str()] {
        assert_eq!(inbox.message_by_key(key).map(|m| m.key.as_str()), Some(key));
    }
    // Removing the undated file finds its message by path after the
    // indices moved twice.
    std::fs::remove_file(&undated).unwrap();
    same_as_full(&root, &mut inbox, std::slice::from_ref(&undated));
    assert!(inbox.message_by_key("inc-undated").is_none());
    // And the dated one, edited.
    let text = std::fs::read_to_string(&dated).unwrap();
    std::fs::write(&dated, text.replace("Subject: dated", "Subject: edited")).unwrap();
    same_as_full(&root, &mut inbox, std::slice::from_ref(&dated));
    assert_eq!(
        inbox.message_by_key("inc-dated").unwrap().message.subject,
        "edited"
    );
}

/// Undated mail sorts before every message, so it counts for an agent
/// only where nothing later does: a bead a later message ended stays
/// ended, one a later message set keeps that state, an agent new to the
/// inbox takes it whole. The patch updates the kept evidence in place
/// (no read of the agent's mail) and equals a full load each time.
#[test]
fn undated_mail_counts_only_where_nothing_later_does() {
    let (_d, root) = corpus(200);
    let mut inbox = load_mailbox(&root).unwrap();
    let write = |name: &str, text: String| {
        let path = root.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let progress = |id: &str, from: &str, bead: &str, date: &str| {
        format!("Subject: [{bead}] PROGRESS\nId: {id}\nFrom: {from}\nTo: Orchestrator\n{date}\nBody:\nBead: {bead}\nStatus: running\n")
    };
    // PurpleBear ends ol-901.1 now; then an undated PROGRESS on it.
    let done = write(
        "zz-done.md",
        "Subject: [ol-901.1] DONE\nId: und-done\nFrom: PurpleBear\nTo: Orchestrator\nDate: 2027-01-01T00:00:00Z\n\nBody:\nBead: ol-901.1\n".to_string(),
    );
    same_as_full(&root, &mut inbox, std::slice::from_ref(&done));
    // Written one at a time: each patch is compared with a full load.
    let changes = [
        ("zz-u1.md", progress("und-1", "PurpleBear", "ol-901.1", "")),
        // A bead a later message set.
        ("zz-u2.md", progress("und-2", "PurpleBear", "ol-778.1", "")),
        (
            "zz-dated.md",
            progress(
                "und-3",
                "PurpleBear",
                "ol-778.1",
                "Date: 2027-01-01T00:01:00Z\n",
            ),
        ),
        ("zz-u4.md", progress("und-4", "PurpleBear", "ol-778.1", "")),
        // An agent the inbox has never seen.
        ("zz-u5.md", progress("und-5", "NewUndated", "ol-902.1", "")),
    ];
    for (name, text) in changes {
        let path = write(name, text);
        same_as_full(&root, &mut inbox, std::slice::from_ref(&path));
    }
    let new = inbox.agent("NewUndated").expect("in the roster");
    assert_eq!(new.active_beads, ["ol-902.1"]);
    let purple = inbox.agent("PurpleBear").unwrap();
    assert!(!purple.active_beads.iter().any(|b| b == "ol-901.1"));
    assert!(purple.active_beads.iter().any(|b| b == "ol-778.1"));
}

/// New mail changes an agent's turn: a bead ends, a new one starts, an
/// old one moves to the newest end, a help request suspends one and an
/// answer resumes it. Each patch (which updates the turn from the one
/// before, not from the agent's whole history) equals a full load.
#[test]
fn new_mail_moves_turns_as_a_full_load_does() {
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let agent = inbox
        .agents
        .iter()
        .max_by_key(|a| a.active_beads.len())
        .unwrap()
        .clone();
    assert!(agent.active_beads.len() >= 3, "{agent:?}");
    let name = agent.name.as_str();
    let (oldest, middle) = (
        agent.active_beads[0].clone(),
        agent.active_beads[agent.active_beads.len() / 2].clone(),
    );
    let mail = |n: i64, kind: &str, bead: &str, extra: &str| {
        let at = chrono::Utc.with_ymd_and_hms(2027, 3, 1, 0, 0, 0).unwrap()
            + chrono::Duration::minutes(n);
        format!(
            "Subject: [{bead}] {kind}\nId: inc-turn-{n}\nFrom: {name}\nTo: Orchestrator\nDate: {}\n\nBody:\nBead: {bead}\n{extra}",
            at.to_rfc3339()
        )
    };
    let steps = [
        mail(1, "DONE", &oldest, "Commit: abc123\n"),
        mail(2, "PROGRESS", "ol-9100.1", "Step: 1\nStatus: running\n"),
        mail(3, "PROGRESS", &middle, "Step: 9\nStatus: running again\n"),
        mail(
            4,
            "PROGRESS",
            "ol-9100.1",
            "Step: 2\nStatus: waiting on review\n",
        ),
        mail(5, "HELP_REQUEST", "ol-9101.1", "## Question\nWhich port?\n"),
    ];
    for (n, text) in steps.iter().enumerate() {
        write_and_match(
            &root,
            &mut inbox,
            root.join(name).join(format!("zz-turn-{n}.md")),
            text,
        );
    }
    let a = inbox.agent(name).unwrap();
    assert!(!a.active_beads.contains(&oldest));
    assert_eq!(a.active_beads.last().map(String::as_str), Some("ol-9101.1"));
    assert_eq!(a.turn, amail_core::inbox::TurnState::Suspended);
    // Answered in its thread: the bead runs again.
    let answer = format!(
        "Subject: Re: [ol-9101.1] HELP_REQUEST\nId: inc-turn-answer\nFrom: Orchestrator\nTo: {name}\nThread: ol-9101.1\nDate: 2027-03-01T01:00:00Z\n\nBody:\nPort 8080.\n"
    );
    write_and_match(
        &root,
        &mut inbox,
        root.join("Orchestrator/zz-answer.md"),
        answer,
    );
    assert_eq!(
        inbox.agent(name).unwrap().turn,
        amail_core::inbox::TurnState::Running
    );
}

/// A mailbox named with a trailing slash (as shell completion types it)
/// reloads in proportion to the change like any other: the store reads the
/// changed file instead of loading everything again.
#[test]
fn a_root_typed_with_a_trailing_slash_reloads_incrementally() {
    use amail_core::stores::{MailStore, Refresh};
    let (_d, root) = corpus(50);
    let typed = PathBuf::from(format!("{}/", root.display()));
    let store = amail_core::stores::mailbox::MailboxStore::new(typed.clone(), MAX);
    let mut inbox = store.load().unwrap();
    let new = typed.join("PurpleBear").join("zz-new.md");
    std::fs::write(
        &new,
        "Subject: [ol-527.2] PROGRESS\nFrom: PurpleBear\nTo: Orchestrator\n\nBody:\nBead: ol-527.2\nStatus: running\n",
    )
    .unwrap();
    // The watcher reports paths under the watched path, as the store gave it.
    let watched = store.watch_paths();
    let changed = watched[0].join("PurpleBear").join("zz-new.md");
    let refresh = store.refresh(&[changed]).unwrap();
    assert!(
        matches!(refresh, Refresh::Files(_)),
        "a full load instead of the changed file"
    );
    assert!(refresh.apply(&mut inbox));
    assert_eq!(inbox, load_mailbox(&root).unwrap());
}

/// A thread's phase (what the Active, Failed and Done tabs list by) is
/// kept with the thread: a FAILED then a DONE landing in a thread move it
/// from tab to tab through the patch as a full load would place it.
#[test]
fn new_mail_moves_a_threads_phase_as_a_full_load_does() {
    use amail_core::inbox::Phase;
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let thread = inbox.threads.last().unwrap().id.clone();
    let phase_of = |inbox: &Inbox| inbox.threads.iter().find(|t| t.id == thread).unwrap().phase;
    let failed = dated_mail(
        "inc-failed",
        "BlueLake",
        "Chiron",
        &thread,
        "[x-1] FAILED",
        5,
    );
    write_and_match(
        &root,
        &mut inbox,
        root.join("BlueLake/zz-failed.md"),
        failed,
    );
    assert_eq!(phase_of(&inbox), Phase::Failed);
    let done = dated_mail("inc-done", "BlueLake", "Chiron", &thread, "[x-1] DONE", 6);
    let done = write_and_match(&root, &mut inbox, root.join("BlueLake/zz-done.md"), done);
    assert_eq!(phase_of(&inbox), Phase::Done);
    std::fs::remove_file(&done).unwrap();
    same_as_full(&root, &mut inbox, std::slice::from_ref(&done));
    assert_eq!(phase_of(&inbox), Phase::Failed);
}

/// Mail that says nothing of where the work stands (an answer to an old
/// help request, a note, "thanks") leaves a finished thread where it was:
/// a Done thread stays in the Done tab, a Failed one in Failed, through
/// the patch as through a full load. Before, the thread took the phase of
/// its latest message, whatever it was, and a "thanks" after DONE put
/// finished work back under Active. New work (a PROGRESS) still moves it.
#[test]
fn mail_that_carries_no_state_leaves_a_threads_phase_alone() {
    use amail_core::inbox::Phase;
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let thread = inbox.threads.last().unwrap().id.clone();
    let phase_of = |inbox: &Inbox| inbox.threads.iter().find(|t| t.id == thread).unwrap().phase;
    let done = dated_mail("st-done", "BlueLake", "Chiron", &thread, "[x-1] DONE", 5);
    write_and_match(&root, &mut inbox, root.join("BlueLake/zz-1.md"), done);
    assert_eq!(phase_of(&inbox), Phase::Done);
    for (n, subject) in [
        "Re: [x-1] HELP_REQUEST",
        "[x-1] HELP_RESPONSE",
        "thanks, merging now",
        "[x-1] SPAWN_ACK",
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("st-{n}");
        let mail = dated_mail(&id, "Chiron", "BlueLake", &thread, subject, 6 + n as i64);
        let path = root.join(format!("Chiron/zz-{n}.md"));
        write_and_match(&root, &mut inbox, path, mail);
        assert_eq!(phase_of(&inbox), Phase::Done, "after {subject:?}");
    }
    let failed = dated_mail("st-f", "BlueLake", "Chiron", &thread, "[x-1] FAILED", 20);
    write_and_match(&root, &mut inbox, root.join("BlueLake/zz-f.md"), failed);
    let note = dated_mail("st-n", "Chiron", "BlueLake", &thread, "seen", 21);
    write_and_match(&root, &mut inbox, root.join("Chiron/zz-n.md"), note);
    assert_eq!(phase_of(&inbox), Phase::Failed);
    let again = dated_mail("st-p", "BlueLake", "Chiron", &thread, "[x-1] PROGRESS", 22);
    write_and_match(&root, &mut inbox, root.join("BlueLake/zz-p.md"), again);
    assert_eq!(phase_of(&inbox), Phase::Active);
}

/// Undated mail moves the index's origin instead of every position in it:
/// lookups by key and by file still find every message after undated
/// files, a removal (positions renumbered from the moved origin) and
/// dated mail, each reload equal to a full load.
#[test]
fn after_undated_mail_every_message_is_still_found_by_key_and_file() {
    let (_d, root) = corpus(300);
    let mut inbox = load_mailbox(&root).unwrap();
    let undated = |name: &str, id: &str| {
        write_mail(
            root.join("GreenCastle").join(name),
            format!("Subject: [ol-9999.1] PROGRESS\nId: {id}\nFrom: GreenCastle\nTo: BlueLake\n\nBody:\nBead: ol-9999.1\nStatus: running\n"),
        )
    };
    let a = undated("zz-undated-a.md", "undated-a");
    same_as_full(&root, &mut inbox, std::slice::from_ref(&a));
    let b = undated("zz-undated-b.md", "undated-b");
    let c = undated("zz-undated-c.md", "undated-c");
    same_as_full(&root, &mut inbox, &[b.clone(), c]);
    // A removal in the middle, then an edit found by its file.
    let gone = inbox.messages[150].path.as_deref().unwrap().to_path_buf();
    std::fs::remove_file(&gone).unwrap();
    same_as_full(&root, &mut inbox, &[gone]);
    let edited = inbox.messages[40].path.as_deref().unwrap().to_path_buf();
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(&edited, text.replacen("Subject: ", "Subject: Re: ", 1)).unwrap();
    same_as_full(&root, &mut inbox, &[edited]);
    let dated = dated_mail(
        "dated-1",
        "GreenCastle",
        "BlueLake",
        "t-dated",
        "[t] NOTE",
        5,
    );
    write_and_match(
        &root,
        &mut inbox,
        root.join("GreenCastle/zz-dated.md"),
        dated,
    );
    std::fs::remove_file(&b).unwrap();
    same_as_full(&root, &mut inbox, &[b]);
    for (i, m) in inbox.messages.iter().enumerate() {
        let found = inbox.message_by_key(&m.key).expect("found by key");
        assert!(std::ptr::eq(found, &inbox.messages[i]), "{}", m.key);
    }
}

/// An inbox named by a folder above its mailbox reads the mailbox's own
/// ack journal (`stores::mailbox::homes`); an ack appended to that journal
/// (by `amail ack ID DIR/mail`, or an agent's tool) is seen on reload,
/// when the journal is new and when it grows, as a full load sees it.
#[test]
fn an_ack_in_the_journal_of_a_mailbox_below_the_root_is_seen_on_reload() {
    let (d, mail) = corpus(60);
    let above = d.path().to_path_buf();
    let mut inbox = load_mailbox(&above).unwrap();
    let owed: Vec<(String, String)> = inbox
        .messages
        .iter()
        .flat_map(|m| {
            m.recipients
                .iter()
                .filter(|r| r.ack_at.is_none())
                .map(move |r| (m.key.to_string(), r.agent.to_string()))
        })
        .take(2)
        .collect();
    assert_eq!(owed.len(), 2);
    let at = chrono::Utc.with_ymd_and_hms(2026, 1, 16, 9, 0, 0).unwrap();
    let journal_file = journal::journal_path(&mail);
    for (key, agent) in &owed {
        journal::append(
            &mail,
            journal::JournalEntry {
                key: key.clone(),
                id: None,
                agent: agent.clone(),
                ack_at: Some(at),
                read_at: at,
            },
        )
        .unwrap();
        reload_changed(&mut inbox, std::slice::from_ref(&journal_file)).unwrap();
        acked_as_a_full_load_says(&inbox, &above, key, agent, at);
    }
    // A mail file of the mailbox rewritten: its message is read again,
    // and keeps the ack its mailbox's journal records.
    let (key, agent) = &owed[0];
    let file = inbox
        .message_by_key(key)
        .unwrap()
        .path
        .clone()
        .unwrap()
        .to_path_buf();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n")).unwrap();
    reload_changed(&mut inbox, std::slice::from_ref(&file)).unwrap();
    acked_as_a_full_load_says(&inbox, &above, key, agent, at);
}

/// `agent`'s ack of `key` in `inbox` is at `at`, and `inbox` is what a
/// full load of `root` gives.
fn acked_as_a_full_load_says(
    inbox: &Inbox,
    root: &Path,
    key: &str,
    agent: &str,
    at: chrono::DateTime<chrono::Utc>,
) {
    let m = inbox.message_by_key(key).unwrap();
    let r = m.recipients.iter().find(|r| r.agent == agent).unwrap();
    assert_eq!(r.ack_at, Some(at), "{key} {agent}");
    let full = load_mailbox(root).unwrap();
    assert!(*inbox == full, "{}", first_difference(inbox, &full));
}
