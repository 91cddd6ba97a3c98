//! A folder that holds an AOF task store beside its mail, as `amail demo
//! DIR` writes it (`DIR/mail`, `DIR/store`), or an agent team's project
//! does: every command that reads mail reads DIR as it reads DIR/mail.
//! The store's task files, run records and event logs carry mail's
//! extensions; read as mail they made 133 "threads" of the demo's root
//! and were routed into the store. A store named as a mailbox is an
//! error that says where its tasks are shown.

use std::path::Path;

use super::fx::{stderr, stdout, Fx};

fn demo(fx: &Fx) -> std::path::PathBuf {
    let root = fx.demo();
    assert!(root.join("store/tasks").is_dir(), "the demo writes a store");
    root
}

fn text(fx: &Fx, args: &[&str], dir: &Path) -> String {
    let mut args = args.to_vec();
    args.push(dir.to_str().unwrap());
    let out = fx.run(&args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn a_folder_holding_mail_and_a_store_reads_its_mail_files_only() {
    let fx = Fx::new();
    let root = demo(&fx);
    let mail = root.join("mail");
    // `amail parse` of the root parses the mail files and nothing else
    // (the mailbox's handoffs, `mail/.handoffs/`, are read from above).
    let records = |dir: &Path| {
        text(&fx, &["parse", "--format", "jsonl"], dir)
            .lines()
            .count()
    };
    let n = records(&mail);
    assert_eq!(records(&root), n);
    // Threads: the mail's, none made of a task file or a run record.
    let ids = |dir: &Path| -> Vec<String> {
        text(&fx, &["threads"], dir)
            .lines()
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    let whole = ids(&root);
    assert_eq!(whole, ids(&mail));
    assert!(whole.iter().any(|t| t == "ol-527.3"), "{whole:?}");
    let pending = text(&fx, &["pending"], &root);
    assert!(!pending.contains("TASK-"), "{pending}");
    // Routed, the root's mail is all there is: no task file, run record or
    // event log of the store is routed into it.
    let store = fx.path("s1");
    let out = fx.run(&[
        "route",
        root.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out) + &stderr(&out);
    assert!(
        said.contains(&format!(" of {n} messages")),
        "{n} mail records: {said}"
    );
}

#[test]
fn a_store_named_as_a_mailbox_says_where_its_tasks_are() {
    let fx = Fx::new();
    let root = demo(&fx);
    let store = root.join("store");
    let s = store.to_str().unwrap();
    for args in [vec!["threads", s], vec!["pending", s], vec!["inbox", s]] {
        let out = fx.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(s) && err.contains("task store") && err.contains("amail tasks --store"),
            "{args:?} must name the path and say what it is: {err}"
        );
    }
    // Named as mail to parse or route: refused the same way, before
    // anything is written.
    let fresh = fx.path("fresh");
    let f = fresh.to_str().unwrap();
    for args in [vec!["parse", s], vec!["route", s, "--store", f]] {
        let out = fx.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(s) && err.contains("task store") && !err.contains("permissions"),
            "{args:?}: {err}"
        );
    }
    assert!(!fresh.exists(), "route wrote a store for input it refused");
}

/// `amail route MAIL --store MAIL` made the mailbox itself a task store
/// (`tasks/`, `events/`, `state/` among the agents' folders): every
/// command then refused the mailbox as "an AOF task store, not mail",
/// the TUI included, until the user found and removed what route wrote.
/// A store that is a mailbox being routed is refused before anything is
/// written, however the path is spelled.
#[test]
fn a_store_named_as_the_mailbox_being_routed_is_refused() {
    let fx = Fx::new();
    let root = demo(&fx);
    let mail = root.join("mail");
    let before = super::fx::tree(&mail);
    let m = mail.to_str().unwrap();
    let spelled = format!("{}/../mail/", m);
    for store in [m, spelled.as_str()] {
        let out = fx.run(&["route", m, "--store", store]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("is the mailbox being routed"), "{err}");
        assert!(!err.contains("created a new task store"), "{err}");
        assert_eq!(super::fx::tree(&mail), before, "nothing was written");
    }
    // The mailbox reads as mail still.
    assert!(!text(&fx, &["threads"], &mail).is_empty());
    // A store beside it, as the demo writes, is routed into as before.
    let out = fx.run(&["route", m, "--store", root.join("store2").to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A reading command's `--store` naming the mailbox, the folder above
/// it, or a mail file said "route mail into a new store first: `amail
/// route MAIL --store <that path>`": for the mailbox, the command that
/// turns it into a task store; for a file, one that cannot work; for the
/// folder above, nothing of the store already beside the mail. The hint
/// now says what the path is and names the store that is there.
#[test]
fn a_missing_store_s_hint_says_what_the_path_is_and_where_the_store_is() {
    let fx = Fx::new();
    let root = demo(&fx);
    let mail = root.join("mail");
    let store = root.join("store");
    let file = std::fs::read_dir(mail.join("BlueLake"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for cmd in ["tasks", "events", "sweep", "doctor"] {
        for (path, want) in [
            (&mail, format!("--store {}`", store.display())),
            (&root, format!("--store {}`", store.display())),
            (&file, "is a file, not a task store".to_string()),
        ] {
            let out = fx.run(&[cmd, "--store", path.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(1), "{cmd} {}", path.display());
            let err = stderr(&out);
            assert!(err.contains(&want), "{cmd} {}: {err}", path.display());
            assert!(
                !err.contains(&format!("--store {}`", path.display())),
                "{cmd}: a hint to make a store at {}: {err}",
                path.display()
            );
        }
    }
    // A path with nothing there keeps the hint to start one.
    let typo = root.join("stroe");
    let out = fx.run(&["tasks", "--store", typo.to_str().unwrap()]);
    assert!(stderr(&out).contains(&format!("--store {}`", typo.display())));
}

/// `amail route ROOT --store ROOT/archive`, ROOT an mcp_agent_mail
/// storage root (its archive and database in one folder, as the server's
/// install and `amail demo --format mcp` lay it out): the store went into
/// the archive being routed, AOF's folders among the server's projects in
/// its Git work tree. The archive is that root's mail, as the root is:
/// refused as `--store ROOT` is, before anything is written.
#[test]
fn a_store_in_the_archive_of_a_root_being_routed_is_refused() {
    let fx = Fx::new();
    let root = fx.path("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let before = super::fx::tree(fx.dir.path());
    for store in [root.join("archive"), root.clone()] {
        let out = fx.run(&[
            "route",
            root.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", store.display());
        assert!(err.contains("nothing was written"), "{err}");
    }
    assert_eq!(
        super::fx::tree(fx.dir.path()),
        before,
        "route wrote something"
    );
}
