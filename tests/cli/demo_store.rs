//! The demo's task store is its mailbox routed.

use crate::fx::{stderr, stdout, Fx};

/// `amail demo DIR` writes handoff and A2A files into `DIR/mail` beside
/// the Agent Mail (the inbox shows their threads), but routed only the
/// Agent Mail into `DIR/store`: the board had none of their tasks, and
/// `amail route DIR/mail --store DIR/store` afterwards "created 7 tasks"
/// in the demo's own store. Found by routing the demo mailbox into its
/// store. The demo routes what `amail route` routes, so routing it again
/// changes nothing.
#[test]
fn routing_the_demo_mailbox_again_changes_nothing() {
    let fx = Fx::new();
    let demo = fx.demo();
    let (mail, store) = (demo.join("mail"), demo.join("store"));
    let out = fx.run(&[
        "route",
        mail.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ]);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", stderr(&out));
    assert!(
        said.contains(": 0 tasks created, 0 transitions,"),
        "the demo's store lacked what its mailbox routes to: {said}"
    );
}
