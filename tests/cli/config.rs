//! The config file as a user meets it from the shell: a key amail does
//! not know is pointed out at its line and column, and the command runs.

use std::process::Command;

fn amail_with_config(config: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .env("AMAIL_CONFIG", config)
        .env(
            "AMAIL_HOME",
            std::env::temp_dir().join("amail-test-home-unused"),
        )
        .output()
        .unwrap()
}

/// `[key]` for `[keys]`, a misspelt top-level key and one in a
/// `[[servers]]` entry did nothing and said nothing: the rebinding, the
/// limit and the token file were silently not in force. Each is a warning
/// naming the file, line and column (and the key meant, when one is
/// near), as cargo warns of an unused manifest key; the command still
/// runs, as it did.
#[test]
fn unknown_config_keys_are_warned_of_at_their_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "color = \"never\"\nmax_mesage_size = \"1MiB\"\n\n[key]\nquit = \"Q\"\n\n[[servers]]\nstorage_root = \"/nowhere\"\nurl = \"http://127.0.0.1:8765/mcp/\"\n  tokenfile = \"/x\"\n",
    )
    .unwrap();
    let out = amail_with_config(&config, &["parse", "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let at =
        |line: usize, col: usize| format!("amail: warning: {}:{line}:{col}: ", config.display());
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].starts_with(&at(2, 1))
            && lines[0].contains("unknown key `max_mesage_size`")
            && lines[0].contains("did you mean `max_message_size`?"),
        "{err}"
    );
    assert!(
        lines[1].starts_with(&at(4, 2))
            && lines[1].contains("unknown key `key`")
            && lines[1].contains("did you mean `keys`?"),
        "{err}"
    );
    assert!(
        lines[2].starts_with(&at(10, 3))
            && lines[2].contains("unknown key `tokenfile` in [[servers]]")
            && lines[2].contains("did you mean `token_file`?"),
        "{err}"
    );
    // Every key amail reads: not a word.
    std::fs::write(
        &config,
        "color = \"auto\"\nmouse = false\nnotify = \"off\"\nmax_message_size = \"10MiB\"\n\
         server_token_file = \"/t\"\nagent_tokens_file = \"/a\"\n[theme]\nname = \"light\"\n\
         [keys]\nquit = \"Q\"\n[[servers]]\nstorage_root = \"/r\"\nurl = \"http://h/mcp/\"\n\
         token_file = \"/t\"\n",
    )
    .unwrap();
    let out = amail_with_config(&config, &["parse", "-"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// A config file amail cannot use stops the command (exit 2), and the
/// line said where in prose, over four lines ("bad config: TOML parse
/// error at line 2, column 9" and a drawing), or not at all: a bad
/// `max_message_size`, a `server_token_file` that is no path, a
/// `[[servers]]` entry without a url named only the file. Each is one
/// line starting `FILE:LINE:COL:`, as amail's other errors are.
#[test]
fn a_config_error_names_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let p = config.display().to_string();
    for (text, args, at) in [
        (
            "color = \"never\"\nmouse = tru\n",
            &["parse", "-"][..],
            "2:9",
        ),
        ("[keys]\nquit = \"Q\"\n[keys]\n", &["parse", "-"][..], "3:2"),
        (
            "\n\nmax_message_size = \"5 parsecs\"\n",
            &["parse", "-"][..],
            "3:20",
        ),
        ("\nmax_message_size = 0\n", &["parse", "-"][..], "2:20"),
        (
            "server_token_file = 5\n",
            &["threads", "--server", "http://127.0.0.1:1/mcp/"][..],
            "1:21",
        ),
        (
            "agent_tokens_file = [\"a\"]\n",
            &["threads", "--server", "http://127.0.0.1:1/mcp/"][..],
            "1:21",
        ),
    ] {
        std::fs::write(&config, text).unwrap();
        let out = amail_with_config(&config, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{text:?}: {err}");
        assert!(
            err.starts_with(&format!("amail: {p}:{at}: ")),
            "{text:?}: {err}"
        );
    }
}

/// A config file saved in another encoding (Latin-1 here) was "cannot
/// read config: stream did not contain valid UTF-8", with no line: the
/// first byte that is not UTF-8 is named by its line and column.
#[test]
fn a_config_that_is_not_utf8_names_the_byte_s_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, b"color = \"never\"\n# caf\xe9\n").unwrap();
    let out = amail_with_config(&config, &["parse", "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "amail: {}:2:6: invalid UTF-8 (byte 0xe9): the config file must be UTF-8 text",
            config.display()
        )
    );
}

/// A `[[servers]]` entry amail cannot use is met by the commands that
/// write to a storage root; its error named the file only.
#[test]
fn a_bad_servers_entry_names_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let root = dir.path().join("root");
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp-agent-mail-0.1.0");
    crate::support::fs::copy_dir(&fixture, &root);
    let r = root.display().to_string();
    let p = config.display().to_string();
    for (text, at) in [
        (
            format!("color = \"auto\"\n\n[[servers]]\nstorage_root = \"{r}\"\n"),
            "3:1",
        ),
        (
            format!("[[servers]]\nstorage_root = \"{r}\"\nurl = \"ftp://h/mcp/\"\n"),
            "3:7",
        ),
    ] {
        std::fs::write(&config, &text).unwrap();
        let out = amail_with_config(&config, &["ack", "5", &r, "--as", "BlueLake"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text:?}: {err}");
        assert!(
            err.starts_with(&format!("amail: {p}:{at}: ")),
            "{text:?}: {err}"
        );
    }
}

/// The config file is read once per run, and each warning said once:
/// its text was parsed up to three times at start-up (the binary's
/// values, its unknown keys, the inbox's keys), and a second reading of
/// the file would say a warning again or see another file. A named pipe
/// stands for the file here: it gives its text to one reader, so a
/// second read waits for a writer that never comes, and the run never
/// ends.
#[cfg(unix)]
#[test]
fn the_config_file_is_read_once_and_each_warning_said_once() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let made = Command::new("mkfifo").arg(&config).status().unwrap();
    assert!(made.success());
    let fifo = config.clone();
    std::thread::spawn(move || {
        // Opening for writing waits for the reader; then the text, once.
        std::fs::write(fifo, "colour = \"never\"\nmax_message_size = \"1MiB\"\n").unwrap();
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(["parse", "-"])
        .env("AMAIL_CONFIG", &config)
        .env("AMAIL_HOME", dir.path().join("home"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("amail read its config file a second time (it waited on the pipe)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [format!(
            "amail: warning: {}:1:1: unknown key `colour` (did you mean `color`?); amail ignores it",
            config.display()
        )],
        "{err}"
    );
}

/// A config path that is a folder said "cannot read config: Is a
/// directory (os error 21)": Rust's error type in a line every other
/// command words without it. Found by pointing AMAIL_CONFIG at a folder.
#[test]
fn a_config_that_is_a_folder_says_so_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let out = amail_with_config(dir.path(), &["parse", "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "amail: {}: cannot read config: is a directory",
            dir.path().display()
        )
    );
}
