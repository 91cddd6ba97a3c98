//! Commands amail suggests are commands a user can paste, whatever the
//! path (found in session 26 as a new user would: `amail tasks DIR`).
//!
//! - The store commands take the store as `--store DIR`, and clap's own
//!   "unrecognized subcommand" (for `tasks`, whose words are
//!   sub-commands) or "unexpected argument" did not say so. A path given
//!   that way is a usage error that names the `--store` form.
//! - Every suggested command quotes its paths for the shell: `amail demo`'s
//!   "try:" lines and the hints of a `--store` that is no store printed a
//!   folder with a space as two words.

use super::fx::{stderr, stdout, Fx};

/// The words of the first suggested command in `text` that starts with
/// `start` (inside backticks, after `tip: `, or a line of its own), as
/// a POSIX shell would split it.
fn suggested(text: &str, start: &str) -> Vec<String> {
    let at = text
        .find(start)
        .unwrap_or_else(|| panic!("no `{start}` in: {text}"));
    let rest = &text[at..];
    let end = rest.find(['`', '\n']).unwrap_or(rest.len());
    shlex::split(&rest[..end]).unwrap_or_else(|| panic!("not shell words: {}", &rest[..end]))
}

#[test]
fn a_path_given_to_a_store_command_is_pointed_to_store() {
    let fx = Fx::new();
    let dir = fx.path("my store's");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    for cmd in ["tasks", "events", "sweep", "doctor"] {
        let out = fx.run(&[cmd, d]);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(
            suggested(&err, &format!("amail {cmd} --store")),
            ["amail", cmd, "--store", d],
            "{cmd}: {err}"
        );
        // Not clap's tip for a value that looks like an option.
        assert!(!err.contains("use '--"), "{cmd}: {err}");
        assert!(dir.read_dir().unwrap().next().is_none());
    }
    // A sub-command's arguments and options are kept, the path given
    // its option where it was (`--store` is taken anywhere after `tasks`).
    for (args, want) in [
        (
            vec!["tasks", "approve", "TASK-1", d],
            vec!["amail", "tasks", "approve", "TASK-1", "--store", d],
        ),
        (
            vec!["events", "--json", d],
            vec!["amail", "events", "--json", "--store", d],
        ),
    ] {
        let out = fx.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(suggested(&err, &want[..3].join(" ")), want, "{err}");
    }
    // A path typed twice, or once more after its `--store`, is given the
    // option once: the tip is a command that runs, not `--store --store`.
    let with_eq = format!("--store={d}");
    for (args, want) in [
        (
            vec!["tasks", "--store", d, d],
            vec!["amail", "tasks", "--store", d],
        ),
        (vec!["tasks", d, d], vec!["amail", "tasks", "--store", d]),
        (
            vec!["tasks", "approve", "TASK-1", d, d],
            vec!["amail", "tasks", "approve", "TASK-1", "--store", d],
        ),
        (
            vec!["events", &with_eq, d],
            vec!["amail", "events", &with_eq],
        ),
    ] {
        let out = fx.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        // (`amail CMD ` with its space: the tip's command, not its "`amail CMD`
        // takes"; a path with a space quotes `--store=PATH` whole.)
        let start = format!("{} ", want[..2].join(" "));
        assert_eq!(suggested(&err, &start), want, "{args:?}: {err}");
    }
    // A word that is no path is still clap's own error (a typo of a
    // sub-command gets its "similar subcommand" tip there).
    let out = fx.run(&["tasks", "aprove"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("--store"), "{}", stderr(&out));
}

#[test]
fn suggested_commands_quote_their_paths() {
    let fx = Fx::new();
    let root = fx.path("two words");
    let r = root.to_str().unwrap();
    let out = fx.run(&["demo", r]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let tries: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("amail "))
        .collect();
    assert!(tries.len() >= 4, "{text}");
    for line in tries {
        let words = shlex::split(line).unwrap();
        let paths: Vec<&String> = words.iter().filter(|w| w.starts_with(r)).collect();
        assert_eq!(paths.len(), 1, "{line}");
        assert!(std::path::Path::new(paths[0]).exists(), "{line}");
    }

    // A mailbox named as the store: the route it suggests names it whole.
    let mail = root.join("mail");
    let m = mail.to_str().unwrap();
    let out = fx.run(&["tasks", "--store", m]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let words = suggested(&stderr(&out), "--store ");
    assert_eq!(
        words[1],
        root.join("store").to_str().unwrap(),
        "{}",
        stderr(&out)
    );
    let lone = fx.path("lone folder");
    std::fs::create_dir_all(&lone).unwrap();
    let out = fx.run(&["tasks", "--store", lone.to_str().unwrap()]);
    let words = suggested(&stderr(&out), "amail route");
    assert_eq!(words[2], lone.to_str().unwrap(), "{}", stderr(&out));
}
