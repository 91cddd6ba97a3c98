//! A storage root whose server the config names (`[[servers]]`) is
//! written only through that server, however the user names the root: the
//! folder that holds the archive and the database (as the fixture, and
//! `amail demo --format mcp`, lay it out), or the archive itself. The CLI
//! matched the config against the archive it found inside the folder the
//! user gave, the inbox against the folder as given: with `storage_root`
//! naming the folder, `amail ack` and `amail reply` wrote into the
//! server's files behind its back while the inbox wrote through it (and
//! the other way round with `storage_root` naming the archive).

use std::path::Path;
use std::process::{Command, Output};

use super::support::copy::fixture_copy;
use super::support::tree::store_bytes as snapshot;

fn amail(config: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .env("AMAIL_CONFIG", config)
        .env("AMAIL_HOME", home)
        .env("AMAIL_SERVER_TOKEN", "t0ken")
        .output()
        .unwrap()
}

#[test]
fn writes_go_through_the_configured_server_however_the_root_is_named() {
    let dir = fixture_copy();
    let root = dir.path().to_path_buf();
    let archive = root.join("archive");
    let (root_s, archive_s) = (root.display().to_string(), archive.display().to_string());
    let db = root.join("storage.sqlite3").display().to_string();
    // Nothing listens on port 9: a write that goes to the server fails,
    // one that goes to the files succeeds and changes them.
    let url = "http://127.0.0.1:9/mcp/";
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    // A first read leaves SQLite's `-wal` beside the database (a
    // reader's, not a write): made before the snapshots.
    assert!(amail(&config, home.path(), &["threads", &root_s])
        .status
        .success());
    let cases: [(&str, Vec<&str>); 3] = [
        (&root_s, vec![&root_s]),
        (&archive_s, vec![&root_s]),
        (&root_s, vec![&archive_s, "--db", &db]),
    ];
    for (named, source) in cases {
        std::fs::write(
            &config,
            format!("[[servers]]\nstorage_root = \"{named}\"\nurl = \"{url}\"\n"),
        )
        .unwrap();
        let before = snapshot(&root);
        for write in [
            vec!["ack", "5", "--as", "BlueLake"],
            vec![
                "reply",
                "5",
                "--as",
                "BlueLake",
                "--body",
                "Keep the index.",
            ],
        ] {
            let args: Vec<&str> = write.iter().chain(&source).copied().collect();
            let out = amail(&config, home.path(), &args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(1),
                "config {named}, {args:?}: {}{err}",
                String::from_utf8_lossy(&out.stdout)
            );
            assert!(err.contains(url) && err.contains("[[servers]]"), "{err}");
            let now = snapshot(&root);
            let changed: Vec<_> = now
                .iter()
                .filter(|(p, b)| before.get(*p) != Some(*b))
                .map(|(p, _)| p.display().to_string())
                .collect();
            assert!(
                changed.is_empty(),
                "config {named}, {args:?}: wrote into the server's files: {changed:?}"
            );
        }
    }
}
