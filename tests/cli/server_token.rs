//! A token the server refuses, as a user meets it: the line names where
//! amail took the token from, so the stale one is found, not guessed at.

use std::path::Path;
use std::process::Command;

/// amail with `args`, the config file `config`, a home under `dir`, and
/// no token from the environment (the tests name where it comes from).
fn amail(dir: &Path, config: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_amail"));
    c.args(args)
        .env("AMAIL_CONFIG", config)
        .env("AMAIL_HOME", dir.join("home"))
        .env_remove("AMAIL_SERVER_TOKEN")
        .env_remove("AMAIL_AGENT_TOKENS_FILE");
    c
}

/// The token came from one of four places (`--token-file`,
/// `AMAIL_SERVER_TOKEN`, `server_token_file` in the config, a
/// `[[servers]]` entry's `token_file`), and a 401 said only "the server
/// refused the token ... give it with --token-file FILE, AMAIL_SERVER_TOKEN
/// or server_token_file": which one was sent, the user had to work out
/// from the precedence rules. The line names it; the token never.
#[test]
fn a_refused_token_names_where_it_came_from() {
    let url = amail_remote::testing::answering("401 Unauthorized", "/mcp/");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("server-token");
    std::fs::write(&file, "s3cr3t-from-file\n").unwrap();
    let config = dir.path().join("config.toml");
    let run = |args: &[&str], env: Option<&str>, config_text: Option<String>| {
        match &config_text {
            Some(t) => std::fs::write(&config, t).unwrap(),
            None => {
                let _ = std::fs::remove_file(&config);
            }
        }
        let mut c = amail(dir.path(), &config, args);
        if let Some(t) = env {
            c.env("AMAIL_SERVER_TOKEN", t);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("401") && !err.contains("s3cr3t"), "{err}");
        err
    };
    let f = file.display().to_string();
    let err = run(
        &["threads", "--server", &url, "--token-file", &f],
        Some("s3cr3t-from-env"),
        None,
    );
    assert!(
        err.contains(&format!("the token from {f} (--token-file)")),
        "{err}"
    );
    let err = run(
        &["threads", "--server", &url],
        Some("s3cr3t-from-env"),
        None,
    );
    assert!(err.contains("the token from AMAIL_SERVER_TOKEN"), "{err}");
    let err = run(
        &["pending", &url],
        None,
        Some(format!("server_token_file = \"{f}\"\n")),
    );
    assert!(
        err.contains(&format!(
            "the token from {f} (server_token_file in {})",
            config.display()
        )),
        "{err}"
    );
    // A storage root whose writes go through its server: the entry's file.
    let root = dir.path().join("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let r = root.display().to_string();
    let err = run(
        &["ack", "5", &r, "--as", "BlueLake"],
        Some("s3cr3t-from-env"),
        Some(format!(
            "[[servers]]\nstorage_root = \"{r}\"\nurl = \"{url}\"\ntoken_file = \"{f}\"\n"
        )),
    );
    assert!(
        err.contains(&format!(
            "the token from {f} (token_file of [[servers]] in {})",
            config.display()
        )),
        "{err}"
    );
}

/// The agents' tokens file (0.3.x servers) that does not parse, or holds
/// a token that is no string, named the file only: which of its lines,
/// the user had to find. The line says where, and never a token.
#[test]
fn a_bad_agent_tokens_file_names_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("agent-tokens.toml");
    let t = tokens.display().to_string();
    for (text, at) in [
        (
            &b"BlueLake = \"s3cr3t-a\"\nGreenCastle = s3cr3t-b\n"[..],
            "2:15",
        ),
        (b"BlueLake = \"s3cr3t-a\"\n\nGreenCastle = 42\n", "3:15"),
        // Saved in Latin-1: which byte, not "stream did not contain
        // valid UTF-8" for the whole file.
        (b"BlueLake = \"s3cr3t-\xe9\"\n", "1:20"),
    ] {
        std::fs::write(&tokens, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_amail"))
            .args(["threads", "--server", "http://127.0.0.1:1/mcp/"])
            .env("AMAIL_CONFIG", dir.path().join("no-config.toml"))
            .env("AMAIL_HOME", dir.path().join("home"))
            .env("AMAIL_AGENT_TOKENS_FILE", &tokens)
            .env_remove("AMAIL_SERVER_TOKEN")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("amail: {t}:{at}: ")), "{err}");
        assert!(!err.contains("s3cr3t"), "{err}");
    }
}

/// `--timeout 0` was taken as one second, without a word (a user asking
/// for no limit got the shortest): a usage error, for every command that
/// talks to a server, before anything is sent.
#[test]
fn a_zero_timeout_is_refused() {
    for command in [
        &["threads"][..],
        &["pending"][..],
        &["ack", "1", "--as", "BlueLake"][..],
        &["reply", "1", "--as", "BlueLake", "--body", "x"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_amail"))
            .args(command)
            .args(["--server", "http://127.0.0.1:1/mcp/", "--timeout", "0"])
            .env("AMAIL_CONFIG", "/nonexistent/config.toml")
            .env(
                "AMAIL_HOME",
                std::env::temp_dir().join("amail-test-home-unused"),
            )
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {err}");
        assert!(err.contains("--timeout"), "{command:?}: {err}");
    }
}

/// A relative path in the config file (`server_token_file = "token"`
/// beside it) was read against whatever folder amail ran in: the token
/// was found from the config's folder and "cannot read" from any other.
/// It is the config file's folder, as cargo reads the paths of its
/// config files.
#[test]
fn a_relative_path_in_the_config_is_beside_the_config() {
    let url = amail_remote::testing::answering("401 Unauthorized", "/mcp/");
    let dir = tempfile::tempdir().unwrap();
    let conf_dir = dir.path().join("conf");
    std::fs::create_dir(&conf_dir).unwrap();
    std::fs::write(conf_dir.join("token"), "t0ken\n").unwrap();
    let config = conf_dir.join("config.toml");
    std::fs::write(&config, "server_token_file = \"token\"\n").unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let out = amail(dir.path(), &config, &["threads", "--server", &url])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "the token from {} (server_token_file",
            conf_dir.join("token").display()
        )),
        "{err}"
    );
}

/// A token file holding what no bearer token can (a NUL byte: the wrong
/// file named; a second line; bytes that are not UTF-8) was sent, and
/// the HTTP client refused to build the request: the line said "not an
/// MCP Agent Mail server answer (Send message error Transport error:
/// Client error: builder error ...): check the URL's port and path",
/// blaming a server that was never asked; not UTF-8, it said "stream did
/// not contain valid UTF-8" with no place. Found by giving `--token-file`
/// a binary file. The line names the file, line and column of the first
/// such character, and what it is; never the token; no server is asked.
#[test]
fn a_token_file_with_what_no_token_holds_names_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("server-token");
    let f = file.display().to_string();
    for (bytes, at, what) in [
        (&b"s3cr3t\0rest\n"[..], "1:7", "a NUL byte"),
        (&b"s3cr3t\nsecond-line\n"[..], "1:7", "a line break"),
        (&b"\n  s3cr\xe9t\n"[..], "2:7", "not UTF-8"),
        (&b"s3cr3t\x07\n"[..], "1:7", "a control character"),
    ] {
        std::fs::write(&file, bytes).unwrap();
        let args = [
            "threads",
            "--server",
            "http://127.0.0.1:1/mcp/",
            "--token-file",
            &f,
        ];
        let config = dir.path().join("no-config.toml");
        let out = amail(dir.path(), &config, &args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("amail: {f}:{at}: ")) && err.contains(what),
            "{bytes:?}: {err}"
        );
        assert!(
            err.contains("--token-file") && !err.contains("s3cr") && !err.contains("127.0.0.1"),
            "{err}"
        );
    }
}

/// A token file saved with a byte-order mark (Notepad's "UTF-8 with BOM",
/// PowerShell's `Set-Content -Encoding utf8`) was refused as holding "a
/// character that is not ASCII" at 1:1: the mark is not part of the text,
/// and the token after it is sent (ripgrep and the toml reader skip it
/// the same way).
#[test]
fn a_token_file_s_byte_order_mark_is_not_part_of_the_token() {
    let url = amail_remote::testing::answering("401 Unauthorized", "/mcp/");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("server-token");
    std::fs::write(&file, b"\xef\xbb\xbfs3cr3t\r\n").unwrap();
    let f = file.display().to_string();
    let config = dir.path().join("no-config.toml");
    let out = amail(
        dir.path(),
        &config,
        &["threads", "--server", &url, "--token-file", &f],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("401") && err.contains(&format!("the token from {f} (--token-file)")),
        "sent, and refused by the server: {err}"
    );
}

/// `AMAIL_SERVER_TOKEN` holding bytes that are not UTF-8 was passed over
/// without a word and the config's `server_token_file` sent instead (or
/// no token at all), where the same bytes in a token file are refused
/// with their place. Found reading `token`'s precedence. The variable is
/// checked as a token file is: refused by name, before any request, and
/// the token never printed.
#[test]
fn a_server_token_variable_no_token_can_be_is_refused_by_name() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let file = dir.path().join("server-token");
    std::fs::write(&file, "from-the-config\n").unwrap();
    std::fs::write(
        &config,
        format!("server_token_file = \"{}\"\n", file.display()),
    )
    .unwrap();
    for (value, what) in [
        (&b"s3cr\xe9t"[..], "not UTF-8"),
        (&b"s3cr3t\x07"[..], "a control character"),
    ] {
        let out = amail(
            dir.path(),
            &config,
            &["threads", "--server", "http://127.0.0.1:1/mcp/"],
        )
        .env("AMAIL_SERVER_TOKEN", std::ffi::OsStr::from_bytes(value))
        .output()
        .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{value:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("AMAIL_SERVER_TOKEN") && err.contains(what),
            "{value:?}: {err}"
        );
        assert!(
            !err.contains("s3cr") && !err.contains("127.0.0.1"),
            "{value:?}: {err}"
        );
    }
}
