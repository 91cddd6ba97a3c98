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
