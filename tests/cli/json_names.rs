//! Issue 12 item 12: one JSON name per concept across every `--json`
//! output, so a script written against one command works on the next:
//! `amail parse` called a message's id `id`, `amail pending --json` called
//! it `key`, and `threads --json` used `id` for the thread.
//!
//! The names are `amail parse`'s (the oldest contract, shared with the
//! agentops parser): `id` is always a message's id, `thread_id` a thread's,
//! `bead_id` a bead's, `timestamp` when a message was written, `type` its
//! protocol type. Objects that are not messages name their own id by what
//! it is (`thread_id`, `task_id`). The README's "JSON field names" table
//! lists every top-level field each command prints; this test holds the
//! commands to it.

use std::collections::BTreeSet;

use serde_json::Value;

use super::fx::{stderr, Fx};

/// The demo mailbox and its routed store, in `fx`.
fn demo(fx: &Fx) -> (String, String) {
    fx.demo();
    (
        fx.path("d/mail").display().to_string(),
        fx.path("d/store").display().to_string(),
    )
}

fn json(fx: &Fx, args: &[&str]) -> Vec<Value> {
    let out = fx.run(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(rows)) => rows,
        Ok(v) => vec![v],
        // JSON Lines
        Err(_) => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    }
}

fn keys(rows: &[Value]) -> BTreeSet<String> {
    rows.iter()
        .flat_map(|r| r.as_object().unwrap().keys().cloned())
        .collect()
}

#[test]
fn a_message_a_thread_and_a_bead_have_one_name_in_every_output() {
    let fx = Fx::new();
    let (mail, store) = demo(&fx);
    let parsed = json(&fx, &["parse", &mail, "--format", "jsonl"]);
    let pending = json(&fx, &["pending", &mail, "--json"]);
    let threads = json(&fx, &["threads", &mail, "--json"]);
    let tasks = json(&fx, &["tasks", "--store", &store, "--json"]);
    assert!(!pending.is_empty() && !threads.is_empty() && !tasks.is_empty());

    // Old names are gone: one name per concept.
    for (what, rows, gone) in [
        ("pending", &pending, &["key", "thread", "created"][..]),
        ("threads", &threads, &["id", "bead", "messages"][..]),
        ("tasks", &tasks, &["id", "bead"][..]),
    ] {
        let k = keys(rows);
        for g in gone {
            assert!(!k.contains(*g), "{what} still prints `{g}`: {k:?}");
        }
    }

    // A script joins the outputs on those names.
    let parsed_ids: BTreeSet<&str> = parsed.iter().filter_map(|m| m["id"].as_str()).collect();
    for p in &pending {
        let id = p["id"].as_str().expect("pending row has an id");
        assert!(parsed_ids.contains(id), "pending id {id} not in parse");
        let m = parsed.iter().find(|m| m["id"] == id).unwrap();
        assert_eq!(p["timestamp"], m["timestamp"], "{id}");
        assert_eq!(p["type"], m["type"], "{id}");
        let t = p["thread_id"].as_str().unwrap();
        let thread = threads
            .iter()
            .find(|x| x["thread_id"] == t)
            .unwrap_or_else(|| panic!("pending thread_id {t} not in threads"));
        assert!(
            thread["message_ids"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x == id),
            "{id} not among its thread's message_ids"
        );
    }
    let thread_beads: BTreeSet<&str> = threads
        .iter()
        .filter_map(|t| t["bead_id"].as_str())
        .collect();
    assert!(!thread_beads.is_empty());
    // The demo's handoff and A2A files are routed too: their tasks keep
    // those protocols' own ids (a record's id, the thread amail files it
    // under), or are `handoffs:AGENT` / `a2a:AGENT`, gathering an
    // agent's.
    let from_protocol = |b: &str| {
        b.starts_with("handoffs:")
            || b.starts_with("a2a:")
            || threads.iter().any(|t| t["thread_id"] == b)
            || parsed
                .iter()
                .filter(|m| m.get("protocol").is_some())
                .any(|m| m.as_object().unwrap().values().any(|v| v == b))
    };
    for t in &tasks {
        assert!(t["task_id"].is_string(), "{t}");
        if let Some(b) = t["bead_id"].as_str() {
            assert!(
                parsed.iter().any(|m| m["parsed"]["bead_id"] == b) || from_protocol(b),
                "task bead_id {b} is no message's parsed.bead_id nor a record's"
            );
        }
    }
}

/// The README's table, as (command, field) pairs.
fn readme_table() -> BTreeSet<(String, String)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("### JSON field names")
        .expect("README has a \"JSON field names\" section");
    let mut out = BTreeSet::new();
    for line in readme[start..].lines().skip(1) {
        if line.starts_with('#') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | `field`, `field` | means | `command`, `command` |
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        for field in cells[1].split(',') {
            let field = field.trim().trim_matches('`');
            for cmd in cells[3].split(',') {
                let cmd = cmd.trim().trim_matches('`');
                out.insert((cmd.to_string(), field.to_string()));
            }
        }
    }
    out
}

#[test]
fn the_readme_table_lists_every_field_each_command_prints() {
    let fx = Fx::new();
    let (mail, store) = demo(&fx);
    let table = readme_table();
    for (cmd, args) in [
        ("parse", vec!["parse", &mail, "--format", "jsonl"]),
        ("pending", vec!["pending", &mail, "--json"]),
        ("threads", vec!["threads", &mail, "--json"]),
        ("tasks", vec!["tasks", "--store", &store, "--json"]),
        (
            "tasks",
            vec!["tasks", "--store", &store, "--agent", "BlueLake", "--json"],
        ),
        (
            "doctor",
            vec!["doctor", "--store", &store, "--check", "--json"],
        ),
    ] {
        // Handoff and A2A records keep their own protocols' names (the
        // README says so); the table is amail's own.
        let rows: Vec<Value> = json(&fx, &args)
            .into_iter()
            .filter(|r| r.get("protocol").is_none())
            .collect();
        assert!(!rows.is_empty(), "{cmd} printed nothing");
        for k in keys(&rows) {
            assert!(
                table.contains(&(cmd.to_string(), k.clone())),
                "`amail {cmd} --json` prints `{k}`, which the README's JSON field names table does not list for {cmd}"
            );
        }
    }
}

/// `amail tasks depend|approve|reject --json` named the task `task` (and
/// the task waited for `dependsOn`, AOF's file key) while `tasks --json`
/// names it `task_id`: a script joining the two on `task_id` found
/// nothing. Found by approving a task of the demo store with `--json`.
/// They print `task_id` (and `depends_on`), each a field the README's
/// table lists for `tasks`.
#[test]
fn the_task_commands_name_a_task_as_the_board_does() {
    let fx = Fx::new();
    let (_, store) = demo(&fx);
    let table = readme_table();
    let tasks = json(&fx, &["tasks", "--store", &store, "--json"]);
    let with = |status: &str| {
        tasks
            .iter()
            .filter(|t| t["status"] == status)
            .map(|t| t["task_id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let review = with("review");
    let a = review[0].as_str();
    let other = tasks
        .iter()
        .map(|t| t["task_id"].as_str().unwrap())
        .find(|t| *t != a)
        .unwrap();
    for args in [
        vec![
            "tasks", "--store", &store, "--json", "depend", other, "--on", a,
        ],
        vec![
            "tasks", "--store", &store, "--json", "reject", a, "--reason", "no",
        ],
    ] {
        let rows = json(&fx, &args);
        assert_eq!(rows.len(), 1, "{args:?}");
        let row = &rows[0];
        assert!(row["task_id"].is_string(), "{args:?}: {row}");
        for k in keys(&rows) {
            assert!(
                table.contains(&("tasks".to_string(), k.clone())),
                "{args:?} prints `{k}`, which the README's table does not list for tasks"
            );
        }
    }
    // Back in review (reject sent it to work): approve.
    let rows = json(
        &fx,
        &[
            "tasks",
            "--store",
            &store,
            "--json",
            "approve",
            review.last().unwrap(),
        ],
    );
    assert!(rows[0]["task_id"].is_string(), "{}", rows[0]);
    for k in keys(&rows) {
        assert!(
            table.contains(&("tasks".to_string(), k.clone())),
            "approve prints `{k}`"
        );
    }
}
