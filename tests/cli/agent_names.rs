//! `--as` names an agent the same way in every command on one store (found
//! today: on the mcp_agent_mail fixture `amail ack 10 ROOT --as bluelake`
//! acked BlueLake's row, as the server matches names without regard to
//! ASCII case, while `amail pending ROOT --as bluelake` warned of no agent
//! named bluelake and said nothing pending; and `amail reply` printed the
//! name as typed, `as greencastle`, where the store wrote GreenCastle). On
//! an mcp storage root (and through a server) every command matches as the
//! server does and prints the store's spelling; a plain mailbox matches
//! exactly, as it always has.

use super::fx::{stderr, stdout, Fx};

fn root(fx: &Fx) -> std::path::PathBuf {
    let root = fx.path("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    root
}

/// `pending --json --as AGENT` as (id, agent) pairs, and its stderr.
fn pending_as(fx: &Fx, source: &std::path::Path, agent: &str) -> (Vec<(String, String)>, String) {
    let out = fx.run(&["pending", source.to_str().unwrap(), "--json", "--as", agent]);
    assert!(out.status.success(), "{}", stderr(&out));
    (
        crate::support::pending::id_agent_pairs(&stdout(&out)),
        stderr(&out),
    )
}

#[test]
fn pending_on_an_mcp_store_matches_as_as_ack_does() {
    let fx = Fx::new();
    let root = root(&fx);
    let (exact, _) = pending_as(&fx, &root, "BlueLake");
    assert_eq!(
        exact,
        [
            ("5".into(), "BlueLake".into()),
            ("10".into(), "BlueLake".into())
        ]
    );
    for typed in ["bluelake", "BLUELAKE"] {
        let (rows, err) = pending_as(&fx, &root, typed);
        assert_eq!(rows, exact, "--as {typed}");
        assert!(!err.contains("no agent named"), "--as {typed}: {err}");
    }
    // The text table names the agent as the store spells it too.
    let out = fx.run(&["pending", root.to_str().unwrap(), "--as", "greencastle"]);
    let text = stdout(&out);
    assert!(text.contains("GreenCastle (cc)"), "{text}");
    assert!(!text.contains("nothing pending"), "{text}");
}

#[test]
fn a_plain_mailbox_matches_as_exactly_in_pending_ack_and_reply() {
    let fx = Fx::new();
    let m = fx.path("mail");
    super::fx::write_help_request(&m, "h.md", "h1", "Boss");
    let (rows, err) = pending_as(&fx, &m, "boss");
    assert!(rows.is_empty(), "{rows:?}");
    // The name it is a slip from (here its case) is named.
    assert!(
        err.contains("no agent named boss (did you mean `Boss`?)"),
        "{err}"
    );
    let out = fx.run(&["ack", "h1", m.to_str().unwrap(), "--as", "boss"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // A reply matches as ack does: `--as boss` wrote a reply from Boss
    // where the ack beside it was refused.
    let before = super::fx::tree(fx.dir.path());
    let out = fx.run(&[
        "reply",
        "h1",
        m.to_str().unwrap(),
        "--as",
        "boss",
        "--body",
        "hi",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stderr(&out).contains("Boss"), "{}", stderr(&out));
    assert_eq!(super::fx::tree(fx.dir.path()), before, "the reply wrote");
    let (rows, _) = pending_as(&fx, &m, "Boss");
    assert_eq!(rows, [("h1".into(), "Boss".into())]);
    let out = fx.run(&[
        "reply",
        "h1",
        m.to_str().unwrap(),
        "--as",
        "Boss",
        "--body",
        "hi",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn an_mcp_reply_names_the_agent_as_the_store_spells_it() {
    let fx = Fx::new();
    let root = root(&fx);
    // GreenCastle is a cc of 10 (PurpleBear's OFFERING_READY).
    let out = fx.run(&[
        "reply",
        "10",
        root.to_str().unwrap(),
        "--as",
        "greencastle",
        "--body",
        "Seen.",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("replied to 10 as GreenCastle: "), "{text}");
    assert!(!text.contains("greencastle"), "{text}");
}

#[test]
fn an_mcp_batch_ack_with_another_case_acks_every_id_under_the_store_s_name() {
    let fx = Fx::new();
    let root = root(&fx);
    let out = fx.run(&["ack", "5", "10", root.to_str().unwrap(), "--as", "bluelake"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("acked 5 as BlueLake at "), "{text}");
    assert!(lines[1].starts_with("acked 10 as BlueLake at "), "{text}");
    let (rows, _) = pending_as(&fx, &root, "bluelake");
    assert!(rows.is_empty(), "{rows:?}");
}

/// `ack` and `reply --as` a slip of a recipient's name (`Bos` for `Boss`,
/// `BlueLak` for `BlueLake`) listed the recipients but did not name the
/// one it is a slip from, where `pending --as` and the inbox's footer
/// do. In a plain mailbox and on a storage root alike (a server's refusal
/// is made by the same constructor); an unrelated name gets no hint, and
/// nothing is written.
#[test]
fn an_ack_or_reply_as_a_slip_names_the_agent_it_is_a_slip_from() {
    let fx = Fx::new();
    let m = fx.path("mail");
    super::fx::write_help_request(&m, "h.md", "h1", "Boss");
    let root = root(&fx);
    let before = super::fx::tree(fx.dir.path());
    let (m, r) = (m.to_str().unwrap(), root.to_str().unwrap());
    let cases = [
        (m, "h1", "boss", Some("Boss")),
        (m, "h1", "Bos", Some("Boss")),
        (m, "h1", "Nobody", None),
        (r, "10", "BlueLak", Some("BlueLake")),
        (r, "10", "greencastel", Some("GreenCastle")),
        (r, "10", "Nobody", None),
    ];
    for (source, id, agent, hint) in cases {
        for verb in ["ack", "reply"] {
            let mut args = vec![verb, id, source, "--as", agent];
            if verb == "reply" {
                args.extend(["--body", "hi"]);
            }
            let out = fx.run(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            // A reply on a storage root refuses a name that is none of
            // the project's agents before it asks who the parties are.
            let refused = match verb {
                "ack" => err.contains("is not a recipient"),
                _ => {
                    err.contains("is neither the sender nor a recipient")
                        || err.contains("is not an agent of project")
                }
            };
            assert!(refused, "{args:?}: {err}");
            super::fx::assert_hint(&err, hint, &args);
        }
    }
    assert_eq!(super::fx::tree(fx.dir.path()), before, "nothing written");
}
