//! `amail demo DIR` writes only into a fresh folder (found by a new user:
//! `amail demo DIR` where `DIR/store` already held a task store, with no
//! `DIR/mail`, wrote the demo's mail and routed it into that store,
//! moving its tasks (a `ready` task back to `blocked`) and adding to its
//! event log. The demo refused a `DIR/mail` that was not empty, but never
//! looked at `DIR/store`.) Now either folder not empty is refused before
//! anything is written.

use super::fx::{accepted, stderr, tree, Fx};

#[test]
fn the_demo_never_routes_into_a_store_already_there() {
    let fx = Fx::new();
    let dir = fx.path("d");
    // A store of the user's own at DIR/store.
    let m = fx.path("mine");
    accepted(&m, 1, "GreenCastle", 1, "ol-527.1", "My own task");
    let out = fx.run(&[
        "route",
        m.to_str().unwrap(),
        "--store",
        dir.join("store").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let before = tree(fx.dir.path());
    let store_files: Vec<(std::path::PathBuf, Vec<u8>)> =
        crate::support::walk::files_under(&dir.join("store"))
            .into_iter()
            .map(|p| {
                let b = std::fs::read(&p).unwrap();
                (p, b)
            })
            .collect();

    let out = fx.run(&["demo", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: not empty", dir.join("store").display())),
        "{err}"
    );
    assert_eq!(tree(fx.dir.path()), before, "the demo wrote something");
    for (p, b) in store_files {
        assert_eq!(std::fs::read(&p).unwrap(), b, "{} changed", p.display());
    }
}

/// `amail demo --messages N DIR` writes `DIR/mail` and no task store, by
/// design: it makes benchmark corpora up to a million messages, and
/// routing them (about a millisecond each, fsynced) would take longer
/// than writing them many times over; `bench/run.sh` routes a corpus into
/// a fresh store as a measurement of its own. But it said nothing of it,
/// while `amail demo DIR` prints the store it routed into and the help's
/// DIR promised one: `amail tasks --store DIR/store` then failed, and the
/// inbox over `DIR/mail` showed the default store's board. It says there
/// is none, and the command that makes one, which works as printed.
#[test]
fn a_corpus_says_it_wrote_no_task_store_and_how_to_make_one() {
    let fx = Fx::new();
    let dir = fx.path("corpus");
    let out = fx.run(&["demo", "--messages", "40", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = super::fx::stdout(&out);
    let route = format!(
        "amail route {} --store {}",
        dir.join("mail").display(),
        dir.join("store").display()
    );
    assert!(
        said.contains("no task store") && said.contains(&route),
        "{said}"
    );
    assert!(!dir.join("store").exists());
    let args: Vec<&str> = route.split(' ').skip(1).collect();
    let out = fx.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = fx.run(&["tasks", "--store", dir.join("store").to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `amail demo FILE` (a typo, or a file where the folder was meant) said
/// "cannot write the demo: FILE/mail/GreenCastle: Not a directory (os
/// error 20)", or for `--format mcp` "File exists (os error 17)", after
/// trying to write. Every form says FILE is a file, before writing.
#[test]
fn a_demo_into_a_file_says_it_is_a_file() {
    let fx = Fx::new();
    let file = fx.path("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    let f = file.to_str().unwrap();
    for args in [
        &["demo", f][..],
        &["demo", "--messages", "5", f][..],
        &["demo", "--messages", "5", "--format", "mcp", f][..],
    ] {
        let out = fx.run(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{f}: a file, not a folder")) && !err.contains("os error"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    }
}

/// `amail demo --messages N --big-body B DIR` wrote `DIR/big.md` over a
/// file of the user's already there (with a plain write, not the atomic
/// one), and `--format mcp` wrote the whole corpus before refusing a
/// `DIR/big` that held a database: exit 1 with the corpus written. Found
/// by running the big-body corpus into a folder that held a `big.md`.
/// Either is refused before anything is written, and the user's file is
/// kept.
#[test]
fn a_big_body_never_writes_over_what_is_there() {
    let fx = Fx::new();
    for (format, what) in [("plain", "big.md"), ("mcp", "big/storage.sqlite3")] {
        let dir = fx.path(format);
        let mine = dir.join(what);
        std::fs::create_dir_all(mine.parent().unwrap()).unwrap();
        std::fs::write(&mine, "mine\n").unwrap();
        let before = tree(&dir);
        let out = fx.run(&[
            "demo",
            "--messages",
            "5",
            "--big-body",
            "100",
            "--format",
            format,
            dir.to_str().unwrap(),
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{format}: {err}");
        assert!(err.contains("nothing was written"), "{format}: {err}");
        assert_eq!(tree(&dir), before, "{format}: {err}");
        assert_eq!(std::fs::read_to_string(&mine).unwrap(), "mine\n");
    }
}
