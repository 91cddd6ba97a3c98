//! An id that is not in the SOURCE: the error names the command that
//! lists the ids of that SOURCE, and that command lists them.

use crate::fx::{assert_hint, stderr, Fx};

/// `amail ack 999 fx --as BlueLake` said "no message 999 in
/// fx/storage.sqlite3; `amail threads` lists the ids": a bare `amail
/// threads` reads the default mailbox (or says there is none), never
/// the SOURCE the user named, so the hint led elsewhere. Found by acking
/// a mistyped id in the mcp_agent_mail fixture and in a demo mailbox;
/// `reply` and a batch of ids said the same. Each now names `amail
/// threads SOURCE` (with `--db` when the root alone would not lead to
/// the database), SOURCE as it was named, and that command lists the
/// ids.
#[test]
fn an_unknown_id_names_the_threads_command_of_its_source() {
    let fx = Fx::new();
    let demo = fx.demo();
    for (source, extra) in &sources(&fx, &demo.join("mail")) {
        let source = source.as_str();
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let extra = &extra[..];
        for args in [
            &["ack", "999", source, "--as", "BlueLake"][..],
            &["ack", "999", "998", source, "--as", "BlueLake"][..],
            &["reply", "999", source, "--as", "BlueLake", "--body", "x"][..],
        ] {
            let args = [args, extra].concat();
            let out = fx.run(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("no message 999"), "{args:?}: {err}");
            let listing = lister(&err, "amail threads");
            // The SOURCE as it was named: a storage root named as the
            // folder holding `archive/` was listed as its archive
            // (`amail threads ROOT/archive`), a path the user never gave.
            assert!(
                listing.len() > 1 && listing[1] == source,
                "{args:?}: {listing:?}"
            );
            // Run as named: the text `amail threads SOURCE` prints names
            // threads, not message ids, so a hint naming it led nowhere.
            let out = fx.run(&listing);
            assert!(out.status.success(), "{listing:?}: {}", stderr(&out));
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("\"message_ids\""),
                "{listing:?}"
            );
        }
    }
}

/// An id one slip away from exactly one id of the SOURCE names it
/// (`Demo-17` for `demo-17`); one as near several (`demo-71`: `demo-11`,
/// `demo-17`, `demo-21`) names none, as a hint that picked one would
/// guess. `ack` (a batch too) and `reply` alike; nothing is written.
#[test]
fn a_mistyped_id_names_the_one_id_it_is_nearest() {
    let fx = Fx::new();
    let mail = fx.demo().join("mail");
    let mail = mail.to_str().unwrap();
    for (id, hint) in [("Demo-17", Some("demo-17")), ("demo-71", None)] {
        for args in [
            &["ack", id, mail, "--as", "BlueLake"][..],
            &["ack", "demo-17", id, mail, "--as", "BlueLake"][..],
            &["reply", id, mail, "--as", "BlueLake", "--body", "x"][..],
        ] {
            let out = fx.run(args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains(&format!("no message {id}")), "{args:?}: {err}");
            assert_hint(&err, hint, &args);
        }
    }
    let out = fx.run(&["pending", mail, "--as", "BlueLake"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("demo-17"),
        "nothing acked: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `amail reply 5 ROOT --as NOT_AN_AGENT` exited 2, a usage error, where
/// the README's exit codes make "replying as someone who neither sent nor
/// received the message" bad input (1), as `ack` as a stranger already
/// was: whether a name is an agent depends on what the store holds, not
/// on how the command is written. Each store, each writing command: 1, and
/// the message names the agent.
#[test]
fn an_unknown_agent_is_bad_input_like_an_unknown_id() {
    let fx = Fx::new();
    let mailbox = fx.path("mail");
    crate::fx::message_5(&mailbox);
    for (source, extra) in &sources(&fx, &mailbox) {
        let source = source.as_str();
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let extra = &extra[..];
        for args in [
            &["ack", "5", source, "--as", "NOT_AN_AGENT"][..],
            &["reply", "5", source, "--as", "NOT_AN_AGENT", "--body", "x"][..],
        ] {
            let args = [args, extra].concat();
            let out = fx.run(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("NOT_AN_AGENT"), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        }
    }
    // The same family in the reply rule: a message with no one to answer.
    let mailbox = mailbox.display().to_string();
    std::fs::write(
        std::path::Path::new(&mailbox).join("solo.md"),
        "Subject: note to self\nFrom: boss\nTo: boss\nId: solo\n\nBody:\nx\n",
    )
    .unwrap();
    std::fs::write(
        std::path::Path::new(&mailbox).join("anon.md"),
        "Subject: who?\nTo: boss\nId: anon\n\nBody:\nx\n",
    )
    .unwrap();
    for (id, says) in [("solo", "no one else"), ("anon", "no sender")] {
        let out = fx.run(&["reply", id, &mailbox, "--as", "boss", "--body", "x"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{id}: {err}");
        assert!(err.contains(says), "{id}: {err}");
    }
}

/// The three kinds of SOURCE a writing command takes, each with what
/// names it on the command line: the mailbox `mailbox`, a copy of the
/// server's storage root, and a second copy whose database lies elsewhere,
/// named with `--db`.
fn sources(fx: &Fx, mailbox: &std::path::Path) -> Vec<(String, Vec<String>)> {
    let text = |p: &std::path::Path| p.display().to_string();
    let root = fx.path("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let apart = fx.path("apart");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &apart);
    let db = fx.path("elsewhere.sqlite3");
    std::fs::rename(apart.join("storage.sqlite3"), &db).unwrap();
    vec![
        (text(mailbox), vec![]),
        (text(&root), vec![]),
        (text(&apart), vec!["--db".into(), text(&db)]),
    ]
}

/// `amail events --store S --task T` with a task the log does not hold
/// warned "(`amail tasks` lists the task ids)": a bare `amail tasks`
/// reads the default store, never the one named, the same misdirection
/// as the unknown message id's. It names `amail tasks --store S` now,
/// whose output holds the ids, and the one task id a slip is near.
#[test]
fn an_unknown_task_names_the_tasks_command_of_its_store() {
    let fx = Fx::new();
    let store = fx.demo().join("store");
    let store = store.to_str().unwrap();
    let id = task_ids(&fx, store).swap_remove(0);
    let slip = slip_of(&id);
    for (task, hint) in [("TASK-nope", None), (slip.as_str(), Some(id.as_str()))] {
        let out = fx.run(&["events", "--store", store, "--task", task]);
        let err = stderr(&out);
        assert!(out.status.success(), "{task}: {err}");
        assert!(err.contains(&format!("no event of task {task}")), "{err}");
        assert_hint(&err, hint, &task);
        let listing = lister(&err, "amail tasks");
        assert_eq!(listing, ["tasks", "--store", store], "{err}");
        let out = fx.run(&listing);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&id),
            "{listing:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // A type is one of a few the log names at once; a slip of one is
    // named too.
    let out = fx.run(&["events", "--store", store, "--type", "task.creatd"]);
    let err = stderr(&out);
    assert!(
        err.contains("no event of type task.creatd (did you mean `task.created`?)"),
        "{err}"
    );
}

/// The command an error names in backticks that starts with `command`,
/// as the words to run it with (without `amail`).
fn lister<'e>(err: &'e str, command: &str) -> Vec<&'e str> {
    err.split('`')
        .find(|s| s.starts_with(command))
        .unwrap_or_else(|| panic!("names no `{command}`: {err}"))
        .split(' ')
        .skip(1)
        .collect()
}

/// A reply on an mcp_agent_mail storage root reads only the rows it
/// answers, so an unknown id there named no near one where `ack` (which
/// reads the inbox first) did: the database's ids are asked for once the
/// id is not found. Numbered ids: `1199` is a slip from `119` alone;
/// `1011` is as near `101` as `111`, and names neither.
#[test]
fn a_reply_on_a_storage_root_names_the_id_it_is_a_slip_from() {
    let fx = Fx::new();
    let root = fx.path("root");
    let r = root.to_str().unwrap();
    let out = fx.run(&["demo", "--messages", "120", "--format", "mcp", r]);
    assert!(out.status.success(), "{}", stderr(&out));
    let before = super::fx::tree(&root);
    for (id, hint) in [("1199", Some("119")), ("1011", None)] {
        for verb in ["reply", "ack"] {
            let mut args = vec![verb, id, r, "--as", "BlueLake"];
            if verb == "reply" {
                args.extend(["--body", "x"]);
            }
            let out = fx.run(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains(&format!("no message {id}")), "{args:?}: {err}");
            assert_hint(&err, hint, &args);
        }
    }
    assert_eq!(super::fx::tree(&root), before, "nothing written");
}

/// `amail tasks approve|reject|depend` with a task id the store does not
/// hold said only "no task T in the store": neither the id it is a slip
/// from nor what lists the ids, where `events --task` names both. The
/// family is every task id these commands take (`depend`'s `--on` too),
/// and nothing is written when one is unknown.
#[test]
fn a_task_command_names_the_task_id_it_is_a_slip_from() {
    let fx = Fx::new();
    let store_dir = fx.demo().join("store");
    let store = store_dir.to_str().unwrap();
    let ids = task_ids(&fx, store);
    let (id, other) = (ids[0].clone(), ids[1].clone());
    let slip = slip_of(&id);
    let before = super::fx::tree(&store_dir);
    for (task, hint) in [("TASK-nope", None), (slip.as_str(), Some(id.as_str()))] {
        let commands: [Vec<&str>; 4] = [
            vec!["tasks", "--store", store, "approve", task],
            vec!["tasks", "--store", store, "reject", task, "--reason", "r"],
            vec!["tasks", "--store", store, "depend", task, "--on", &other],
            vec!["tasks", "--store", store, "depend", &other, "--on", task],
        ];
        for args in commands {
            let out = fx.run(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains(&format!("no task {task}")), "{args:?}: {err}");
            assert!(err.contains("in the store"), "{args:?}: {err}");
            assert_hint(&err, hint, &args);
            let listing = lister(&err, "amail tasks");
            assert_eq!(listing, ["tasks", "--store", store], "{args:?}: {err}");
        }
    }
    assert_eq!(super::fx::tree(&store_dir), before, "nothing written");
}

/// `id` with its last two letters swapped: a slip from it alone.
fn slip_of(id: &str) -> String {
    let mut slip: Vec<char> = id.chars().collect();
    let n = slip.len();
    slip.swap(n - 1, n - 2);
    let slip: String = slip.into_iter().collect();
    assert_ne!(slip, id);
    slip
}

/// The task ids of `store`, as `amail tasks --store STORE --json` lists
/// them.
fn task_ids(fx: &Fx, store: &str) -> Vec<String> {
    let out = fx.run(&["tasks", "--store", store, "--json"]);
    let tasks: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    tasks
        .iter()
        .map(|t| t["task_id"].as_str().unwrap().to_string())
        .collect()
}
