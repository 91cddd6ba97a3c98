//! Where a command works when the user names a server: the server's URL
//! as SOURCE, a SOURCE (or `--db`) beside `--server`, and a reply body
//! read from stdin whose send failed. Against a real server (PyPI
//! `mcp-agent-mail==0.1.0`) started here on 127.0.0.1.
//!
//! Found by using amail against a live server as a new user would:
//! - `amail threads http://127.0.0.1:8765/mcp/` (and `inbox`, `pending`,
//!   `ack`, `reply` with the URL where the SOURCE goes) said
//!   "http://127.0.0.1:8765/mcp/: no such file or directory", naming no
//!   fix: the URL was read as a path.
//! - `amail reply 2 ./elsewhere --server URL --as BlueLake --body hi`
//!   posted the reply to the server and said nothing of `./elsewhere`
//!   (a mistyped path too); `amail threads ./mail --server URL` listed the
//!   server's threads: of two places named, one was dropped unsaid.
//! - `amail reply 1 --server URL --as BlueLake`, the answer typed on the
//!   terminal (no prompt said amail was reading it), the server down: the
//!   error line, and the typed answer gone.
//!
//! Skipped, with the reason printed, only where the Python is missing.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use amail_remote::session::Session;
use amail_remote::ServerConfig;
use serde_json::{json, Map, Value};

use crate::support::interop::{release_python, LiveServer, Release};

const PROJECT: &str = "/home/dev/source-repo";

fn call(tools: &Session, tool: &str, args: Value) -> Value {
    let args: Map<String, Value> = args.as_object().unwrap().clone();
    tools
        .call(tool, args)
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// PurpleBear's bodies as the server's own fetch_inbox returns them.
fn purple_bodies(tools: &Session) -> Vec<String> {
    call(
        tools,
        "fetch_inbox",
        json!({"project_key": PROJECT, "agent_name": "PurpleBear", "limit": 1000,
               "include_bodies": true}),
    )
    .as_array()
    .unwrap()
    .iter()
    .map(|m| m["body_md"].as_str().unwrap_or_default().to_string())
    .collect()
}

/// The ids the server's ack view still lists for `agent`.
fn unacked(tools: &Session, agent: &str) -> Vec<String> {
    let slug = PROJECT.trim_start_matches('/').replace('/', "-");
    tools
        .read(&format!(
            "resource://views/ack-required/{agent}?project={slug}"
        ))
        .unwrap()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].to_string())
        .collect()
}

struct Run<'a> {
    /// The server's folder: the commands' working directory and config.
    dir: std::path::PathBuf,
    token: &'a str,
    home: std::path::PathBuf,
}

impl Run<'_> {
    fn amail(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_amail"))
            .args(args)
            .env("AMAIL_SERVER_TOKEN", self.token)
            .env("AMAIL_HOME", &self.home)
            .env("AMAIL_CONFIG", self.dir.join("no-config.toml"))
            .current_dir(&self.dir)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(text) = stdin {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }
        child.wait_with_output().unwrap()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_server_is_named_once_and_a_failed_reply_keeps_its_body() {
    let Some(python) = release_python(Release::V010) else {
        return;
    };
    let token = "source-t0ken-4e7a";
    let mut server = LiveServer::start(&python, token);
    let tools = Session::new(ServerConfig {
        url: server.url.clone(),
        token: Some(token.into()),
        project: None,
        timeout: Duration::from_secs(60),
        agent_tokens: Default::default(),
    })
    .unwrap();
    call(&tools, "ensure_project", json!({"human_key": PROJECT}));
    for name in ["BlueLake", "PurpleBear"] {
        call(
            &tools,
            "register_agent",
            json!({"project_key": PROJECT, "program": "x", "model": "y", "name": name,
                   "task_description": "source"}),
        );
    }
    let sent = call(
        &tools,
        "send_message",
        json!({"project_key": PROJECT, "sender_name": "PurpleBear", "to": ["BlueLake"],
               "subject": "[s1] HELP_REQUEST", "thread_id": "s1", "ack_required": true,
               "body_md": "Bead: s1\nIssue Type: STUCK\n\n## Question\nWhich index?"}),
    );
    let id = sent["deliveries"][0]["payload"]["id"].to_string();
    let run = Run {
        dir: server.dir.path().to_path_buf(),
        token,
        home: server.dir.path().join("amail-home"),
    };
    let url = server.url.clone();
    // A folder that exists, to be named beside the server.
    let elsewhere = server.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let elsewhere = elsewhere.display().to_string();

    // The URL where the SOURCE goes is the server, as with --server.
    for cmd in ["threads", "pending"] {
        let by_flag = run.amail(&[cmd, "--server", &url], None);
        let by_source = run.amail(&[cmd, &url], None);
        assert_eq!(
            by_source.status.code(),
            Some(0),
            "{cmd} URL: {}",
            text(&by_source.stderr)
        );
        assert_eq!(text(&by_source.stdout), text(&by_flag.stdout), "{cmd}");
        assert!(text(&by_source.stdout).contains("s1"), "{cmd}");
    }
    // With a token file, which belongs to the server named as SOURCE.
    let token_file = server.dir.path().join("token");
    std::fs::write(&token_file, token).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(["threads", &url, "--token-file"])
        .arg(&token_file)
        .env_remove("AMAIL_SERVER_TOKEN")
        .env("AMAIL_HOME", &run.home)
        .env("AMAIL_CONFIG", server.dir.path().join("no-config.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The inbox takes it too (here without a terminal: it says it needs
    // one, not that the URL is no file).
    let out = run.amail(&["inbox", &url, "--as", "BlueLake"], None);
    assert!(
        text(&out.stderr).contains("needs a terminal")
            && !text(&out.stderr).contains("no such file"),
        "{}",
        text(&out.stderr)
    );

    // A SOURCE beside --server, or --db, or the URL twice: a usage error
    // naming both, and nothing is written anywhere.
    let before = purple_bodies(&tools);
    for args in [
        vec![
            "reply",
            id.as_str(),
            elsewhere.as_str(),
            "--server",
            url.as_str(),
            "--as",
            "BlueLake",
            "--body",
            "lost?",
        ],
        vec![
            "reply",
            id.as_str(),
            url.as_str(),
            "--server",
            url.as_str(),
            "--as",
            "BlueLake",
            "--body",
            "twice?",
        ],
        vec![
            "reply",
            id.as_str(),
            "--server",
            url.as_str(),
            "--db",
            "storage.sqlite3",
            "--as",
            "BlueLake",
            "--body",
            "db?",
        ],
        vec![
            "ack",
            id.as_str(),
            elsewhere.as_str(),
            "--server",
            url.as_str(),
            "--as",
            "BlueLake",
        ],
        vec!["threads", elsewhere.as_str(), "--server", url.as_str()],
        vec!["pending", elsewhere.as_str(), "--server", url.as_str()],
        vec!["inbox", elsewhere.as_str(), "--server", url.as_str()],
    ] {
        let out = run.amail(&args, None);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains(&url) && err.contains("not both"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(purple_bodies(&tools), before, "a refused reply was sent");
    assert_eq!(
        unacked(&tools, "BlueLake"),
        std::slice::from_ref(&id),
        "a refused ack was made"
    );

    // ack and reply with the URL as SOURCE go to that server.
    let out = run.amail(&["ack", &id, &url, "--as", "BlueLake"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(unacked(&tools, "BlueLake").is_empty());
    let out = run.amail(
        &[
            "reply",
            &id,
            &url,
            "--as",
            "BlueLake",
            "--body",
            "Use the partial index.",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(purple_bodies(&tools)
        .iter()
        .any(|b| b.ends_with("Use the partial index.")));

    // A reply typed on the terminal: amail says it is reading it (it sat
    // silent, waiting), and sends what was typed.
    if crate::support::tmux::present() {
        typed_reply(&run, &url, &id, &tools);
    }

    // The server goes away: a reply read from stdin is kept in a file the
    // error names, to be sent again from it.
    server.stop();
    let answer = "Rebuild the index concurrently.\n\n  -- keep this line's indent\n";
    let out = run.amail(&["reply", &id, &url, "--as", "BlueLake"], Some(answer));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no server answers"), "{err}");
    let kept = err
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '`' || c == ';' || c == ',' || c == ':'))
        .find(|w| w.starts_with(&run.home.display().to_string()))
        .unwrap_or_else(|| panic!("no kept file named: {err}"));
    assert_eq!(std::fs::read_to_string(kept).unwrap(), answer, "{err}");
    assert!(
        err.contains(&format!("< {kept}")),
        "how to send it again: {err}"
    );
}

/// `amail reply ID URL --as BlueLake` on a terminal (tmux): the prompt,
/// then the typed answer ended with Ctrl-D reaches PurpleBear.
fn typed_reply(run: &Run, url: &str, id: &str, tools: &Session) {
    use crate::support::tmux::run as tmux;
    let session = format!("amail-typed-reply-{}", std::process::id());
    let cmd = format!(
        "AMAIL_HOME={} AMAIL_CONFIG={} AMAIL_SERVER_TOKEN={} {} reply {id} {url} --as BlueLake; sleep 60",
        run.home.display(),
        run.dir.join("no-config.toml").display(),
        run.token,
        env!("CARGO_BIN_EXE_amail"),
    );
    assert!(
        crate::support::tmux::new_session(&session, &["-x", "150", "-y", "20", "sh", "-c", &cmd]),
        "tmux new-session failed"
    );
    let screen = || {
        String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &session]).stdout).into_owned()
    };
    let wait_for = |needle: &str| {
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if screen().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };
    let prompted = wait_for("type the reply, then Ctrl-D");
    if prompted {
        tmux(&["send-keys", "-t", &session, "-l", "Typed on the terminal."]);
        tmux(&["send-keys", "-t", &session, "Enter", "C-d"]);
    }
    let sent = prompted && wait_for("replied to");
    let shown = screen();
    tmux(&["kill-session", "-t", &session]);
    assert!(prompted, "no prompt on the terminal:\n{shown}");
    assert!(sent, "the typed reply was not sent:\n{shown}");
    assert!(purple_bodies(tools)
        .iter()
        .any(|b| b.ends_with("Typed on the terminal.")));
}
