//! A folder inside a mailbox that cannot be listed (found by a new user:
//! `amail parse m2` and `amail route m2`, with `m2/sub` mode 000, said
//! `amail: m2: cannot read directory: Permission denied` and `amail: m2:
//! Permission denied`). Both named the mailbox, not the folder, so the
//! user chmod-ed the wrong thing; and `parse` printed no message at all,
//! where it lists an unreadable *file* and goes on with the rest (exit 1),
//! as `threads` and `pending` go on past such a folder with a warning.
//! Now `parse` lists the folder in its place and parses everything else
//! (exit 1, counted with the unreadable files), and `route`, which routes
//! nothing unless it can read every input, names the folder.
//!
//! The folder here is one whose path is longer than the system allows
//! (`ENAMETOOLONG`), made by renaming a deep tree under a deep folder: a
//! folder that cannot be listed whoever runs the test, root included
//! (for root, mode 000 does not bind).

use std::fs;
use std::path::{Path, PathBuf};

use super::fx::{mail, stderr, stdout, Fx};

/// A mailbox `m` with one message.
fn one_message(fx: &Fx) -> PathBuf {
    let m = fx.path("m");
    mail(
        &m,
        "a.md",
        "a-1",
        "worker",
        1,
        "[ol-1] PROGRESS",
        "Status: ok",
    );
    m
}

/// A mailbox `m` with one message, and a folder under it whose path is
/// too long to list; returns the mailbox and that folder.
fn mailbox_with_unlistable_folder(fx: &Fx) -> (PathBuf, PathBuf) {
    let m = one_message(fx);
    let long = "d".repeat(250);
    let deep = |base: &Path, n: usize| {
        let mut p = base.to_path_buf();
        for _ in 0..n {
            p.push(&long);
        }
        fs::create_dir_all(&p).unwrap();
        p
    };
    // 15 levels beside the mailbox, then moved under 3 levels of it: each
    // path given to the system is short, the result is over 4,096 bytes.
    let chain = deep(&fx.path("t"), 15);
    let top = fx.path("t").join(&long);
    let under = deep(&m.join("sub"), 3);
    fs::rename(&top, under.join(&long)).unwrap();
    let moved = under.join(chain.strip_prefix(fx.path("t")).unwrap());
    assert!(moved.as_os_str().len() > 4096);
    assert!(fs::read_dir(&moved).is_err(), "the folder can be listed");
    // The first folder whose listing fails.
    let mut first = under.clone();
    while fs::read_dir(&first).is_ok() {
        first.push(&long);
    }
    (m, first)
}

#[test]
fn parse_names_the_folder_it_cannot_list_and_parses_the_rest() {
    let fx = Fx::new();
    let (m, folder) = mailbox_with_unlistable_folder(&fx);
    let out = fx.run(&["parse", m.to_str().unwrap(), "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: cannot list directory", folder.display())),
        "{err}"
    );
    assert!(
        !err.contains(&format!("{}: cannot", m.display())),
        "the mailbox named instead of the folder: {err}"
    );
    // The rest is parsed.
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("\"a-1\""), "{text}");
}

#[test]
fn route_names_the_folder_it_cannot_list_and_routes_nothing() {
    let fx = Fx::new();
    let (m, folder) = mailbox_with_unlistable_folder(&fx);
    let out = fx.route(&m);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: ", folder.display())),
        "the folder is not named: {err}"
    );
    assert!(!fx.path("store").exists(), "a store was made");
}

/// A link to mail that is gone, and two links that point at each other,
/// are named by every command that reads the mailbox (found by a new
/// user: `amail parse`, `threads` and `route` on a mailbox holding
/// `dangling.md -> /nonexistent/x.md` and `loop1.md <-> loop2.md` said
/// nothing of them and exited 0, as if the mailbox held one message: a
/// message whose file was moved away under its link was lost without a
/// word, where an unreadable file is named). `parse` names them and goes
/// on (exit 1); `threads` warns; `route` routes nothing and names one.
#[cfg(unix)]
#[test]
fn broken_links_are_named_not_skipped() {
    use std::os::unix::fs::symlink;
    let fx = Fx::new();
    let m = one_message(&fx);
    symlink(fx.path("gone/x.md"), m.join("dangling.md")).unwrap();
    symlink("loop2.md", m.join("loop1.md")).unwrap();
    symlink("loop1.md", m.join("loop2.md")).unwrap();
    // A link to a folder is still not entered, and says nothing.
    symlink(&m, m.join("self")).unwrap();
    let named = |err: &str| {
        ["dangling.md", "loop1.md", "loop2.md"]
            .iter()
            .all(|n| err.contains(&format!("{}: ", m.join(n).display())))
    };

    let out = fx.run(&["parse", m.to_str().unwrap(), "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(named(&stderr(&out)), "{}", stderr(&out));
    assert!(!stderr(&out).contains("self"), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));

    let out = fx.run(&["threads", m.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(named(&stderr(&out)), "{}", stderr(&out));

    let out = fx.route(&m);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("dangling.md"), "{}", stderr(&out));
    assert!(!fx.path("store").exists(), "a store was made");
}

/// A link whose target is gone, and a loop of links, are named alike by
/// every command, given on the command line or found in a walked folder:
/// `LINK: broken link to TARGET` (the target as the link holds it), `(a
/// loop of links)` after it for a loop. Before, a walked one was `cannot
/// follow the link: no such file or directory` to `parse` and `threads`,
/// and `route` said `LINK: no such file or directory (check the path and
/// its permissions)`, as did every command for a link named on the
/// command line: true of the target, not of the path named, which is
/// there (`ls` lists it). Each command's exit is as before: `parse`
/// names them and fails, `threads` warns and goes on, `route` routes
/// nothing.
#[cfg(unix)]
#[test]
fn a_broken_link_is_named_with_its_target_by_every_command() {
    use std::os::unix::fs::symlink;
    let fx = Fx::new();
    let m = one_message(&fx);
    let gone = fx.path("gone/x.md");
    let dangling = m.join("dangling.md");
    symlink(&gone, &dangling).unwrap();
    symlink("loop2.md", m.join("loop1.md")).unwrap();
    symlink("loop1.md", m.join("loop2.md")).unwrap();
    let broken = format!("{}: broken link to {}", dangling.display(), gone.display());
    let looped = format!(
        "{}: broken link to loop2.md (a loop of links)",
        m.join("loop1.md").display()
    );
    let said = |out: &std::process::Output, line: &str| {
        let err = stderr(out);
        assert!(err.contains(line), "{line:?} not in: {err}");
        assert!(!err.contains("check the path"), "{err}");
        assert!(!err.contains("no such file"), "{err}");
    };
    let mm = m.to_str().unwrap();

    // In a walked folder.
    let out = fx.run(&["parse", mm, "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    said(&out, &format!("amail: {broken}\n"));
    said(&out, &format!("amail: {looped}\n"));
    let out = fx.run(&["threads", mm]);
    assert!(out.status.success(), "{}", stderr(&out));
    said(&out, &format!("amail: warning: {broken}\n"));
    said(&out, &format!("amail: warning: {looped}\n"));
    let out = fx.route(&m);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    said(&out, &format!("amail: {broken}\n"));
    assert!(!fx.path("store").exists(), "a store was made");

    // Named on the command line.
    let d = dangling.to_str().unwrap();
    let l = m.join("loop1.md");
    let l = l.to_str().unwrap();
    for (path, line) in [(d, &broken), (l, &looped)] {
        for (args, out) in fx.each_reader(path) {
            assert_eq!(out.status.code(), Some(1), "{args}: {}", stderr(&out));
            said(&out, &format!("amail: {line}"));
        }
    }
}

/// What a mailbox's handoff folder cannot give is named as the mail
/// walk names its own problems: a handoff file that is a broken link
/// (left out without a word), and a handoff folder that is one (every
/// handoff in it gone without a word).
#[test]
fn what_the_handoff_folder_cannot_give_is_named() {
    use std::os::unix::fs::symlink;
    let fx = Fx::new();
    let m = one_message(&fx);
    std::fs::create_dir(m.join(".handoffs")).unwrap();
    let gone = fx.path("gone/h.json");
    let dangling = m.join(".handoffs/h.json");
    symlink(&gone, &dangling).unwrap();
    let other = fx.path("other");
    mail(
        &other,
        "b.md",
        "b-1",
        "worker",
        2,
        "[ol-2] PROGRESS",
        "Status: ok",
    );
    let gone_dir = fx.path("gone-handoffs");
    symlink(&gone_dir, other.join(".handoffs")).unwrap();
    for (mailbox, link, target) in [
        (&m, &dangling, &gone),
        (&other, &other.join(".handoffs"), &gone_dir),
    ] {
        let line = format!("{}: broken link to {}", link.display(), target.display());
        let mm = mailbox.to_str().unwrap();
        let out = fx.run(&["parse", mm, "--format", "jsonl"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("amail: {line}\n")),
            "{}",
            stderr(&out)
        );
        assert_eq!(
            stdout(&out).lines().count(),
            1,
            "the mail is read all the same"
        );
        let out = fx.run(&["threads", mm]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("amail: warning: {line}\n")),
            "{}",
            stderr(&out)
        );
    }
}
