//! `amail ack ID... --as AGENT` is all or nothing (found by a new user:
//! `amail ack demo-07 demo-11 --as BlueLake` on the demo acked demo-07,
//! then refused demo-11, which is addressed to Chiron alone, and exited 1
//! with the first ack already written). The README promises that `ack`
//! checks every id before it acks any of them; the check asked only
//! whether each id exists, so an agent who owes only some of the acks got
//! the rest of the batch half done. Every id is now checked for both
//! before the first ack: an unknown id or one not addressed to the agent
//! acks nothing, in a plain mailbox and in an mcp_agent_mail store.

use std::fs;
use std::path::Path;

use super::fx::{stderr, stdout, tree, Fx};

/// A mailbox of two ack-required messages: `to-boss` to `boss`,
/// `to-other` to `other`.
fn mailbox(fx: &Fx) -> std::path::PathBuf {
    let m = fx.path("mail");
    for (id, to) in [("to-boss", "boss"), ("to-other", "other")] {
        super::fx::write_help_request(&m, &format!("{id}.md"), id, to);
    }
    m
}

fn pending(fx: &Fx, source: &Path) -> String {
    let out = fx.run(&["pending", source.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn a_batch_with_an_id_not_addressed_to_the_agent_acks_nothing() {
    let fx = Fx::new();
    let m = mailbox(&fx);
    let before = tree(fx.dir.path());
    let pending_before = pending(&fx, &m);
    for order in [["to-boss", "to-other"], ["to-other", "to-boss"]] {
        let out = fx.run(&[
            "ack",
            order[0],
            order[1],
            m.to_str().unwrap(),
            "--as",
            "boss",
        ]);
        assert_eq!(out.status.code(), Some(1), "{order:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("to-other"), "{err}");
        assert!(err.contains("nothing was acked"), "{err}");
        assert!(stdout(&out).is_empty(), "{order:?}: {}", stdout(&out));
        assert_eq!(tree(fx.dir.path()), before, "{order:?} wrote something");
        assert_eq!(pending(&fx, &m), pending_before);
    }
    // Each alone, as the right agent, still acks.
    for (id, agent) in [("to-boss", "boss"), ("to-other", "other")] {
        let out = fx.run(&["ack", id, m.to_str().unwrap(), "--as", agent]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

#[test]
fn an_mcp_store_batch_with_an_id_not_addressed_to_the_agent_acks_nothing() {
    let fx = Fx::new();
    let root = fx.path("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let db = root.join("storage.sqlite3");
    let before = fs::read(&db).unwrap();
    let pending_before = pending(&fx, &root);
    // 5 is BlueLake's; 7 is PurpleBear's alone.
    let out = fx.run(&["ack", "5", "7", root.to_str().unwrap(), "--as", "BlueLake"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("message 7"), "{err}");
    assert!(err.contains("nothing was acked"), "{err}");
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    assert_eq!(pending(&fx, &root), pending_before);
    assert!(fs::read(&db).unwrap() == before, "the database changed");
}

/// The server's names are unique without regard to case, and an ack in
/// its database matches `--as` so, as the server's own does: the ack is
/// the agent's, and says so under the agent's name (it said `acked 10 as
/// bluelake`, a name `amail pending` had just called unknown).
#[test]
fn an_mcp_ack_names_the_agent_as_the_store_spells_it() {
    let fx = Fx::new();
    let root = fx.path("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let out = fx.run(&["ack", "10", root.to_str().unwrap(), "--as", "bluelake"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("acked 10 as BlueLake at "), "{text}");
    let out = fx.run(&["ack", "10", root.to_str().unwrap(), "--as", "BLUELAKE"]);
    let text = stdout(&out);
    assert!(
        text.starts_with("10 was already acked by BlueLake at "),
        "{text}"
    );
}
