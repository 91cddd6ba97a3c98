//! `amail tasks --agent NAME` with a name no task knows (found by a new
//! user: `amail tasks --agent Nobody` on the demo's store printed three
//! empty queues and exited 0, exactly what a real agent with nothing to do
//! gets, so a mistyped name, `greencastle` for `GreenCastle`, read as
//! "nothing queued"). The inbox warns for an `--as` it does not know;
//! `tasks --agent` now warns the same way, naming the agents the store
//! knows, and still prints the (empty) view.

use super::fx::{accepted, stderr, stdout, Fx};

#[test]
fn an_agent_no_task_names_is_warned_about() {
    let fx = Fx::new();
    let m = fx.path("mail");
    accepted(&m, 1, "GreenCastle", 1, "ol-1", "Wire the API");
    accepted(&m, 2, "PurpleBear", 2, "ol-2", "Migrate users");
    assert!(fx.route(&m).status.success());
    let store = fx.store();

    let out = fx.run(&["tasks", "--agent", "greencastle", "--store", &store]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("warning"), "{err}");
    assert!(err.contains("greencastle"), "{err}");
    assert!(err.contains("GreenCastle, PurpleBear"), "{err}");
    // The one agent the name is a slip from is named, as `--as` names it.
    assert!(err.contains("(did you mean `GreenCastle`?)"), "{err}");
    assert!(stdout(&out).contains("inbox (0)"), "{}", stdout(&out));

    // A real agent, queues empty or not, gets no warning.
    let out = fx.run(&["tasks", "--agent", "GreenCastle", "--store", &store]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    // --json keeps stdout JSON; the warning is on stderr.
    let out = fx.run(&["tasks", "--agent", "Nobody", "--store", &store, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("Nobody"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("did you mean"), "{}", stderr(&out));
    serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap();
}
