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
