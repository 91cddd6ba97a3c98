//! Guarantee: one bad file never hides the rest of a mailbox, and no file
//! over the message size limit is read.
//!
//! A mailbox holds good messages plus one unreadable file, one binary file,
//! one invalid-UTF-8 file and one file over the limit. Every good message
//! loads; the unreadable, binary and oversize files are reported with their
//! paths (`Inbox::problems`, and `amail: warning: <path>: ...` from the
//! CLI); the invalid-UTF-8 file is loaded lossily (U+FFFD) with an
//! `invalid-utf8` diagnostic, so its text is not lost, and is named in
//! `Inbox::problems` too. The limit is 10 MiB
//! by default, `max_message_size` in the config file or `--max-size`; it
//! applies to `parse`, `route`, `threads`/`pending`/`inbox` and stdin.
//!
//! "Unreadable" must bind root too (tests run as root in CI containers,
//! where chmod 000 does not stop reads): the file is a symlink to
//! `/proc/self/mem`, which every reader fails on with EIO at offset 0. As
//! non-root a chmod-000 file is added.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use amail_core::stores::{self, LoadOptions};

fn good(dir: &Path, i: usize) {
    fs::write(
        dir.join(format!("good-{i}.md")),
        format!("Subject: [b{i}] PROGRESS\nFrom: w{i}\nTo: boss\nId: good-{i}\nDate: 2026-11-22T02:0{i}:00Z\n\nBody:\nBead: b{i}\nfine\n"),
    )
    .unwrap();
}

fn bad_mailbox(dir: &Path) -> Vec<&'static str> {
    fs::create_dir_all(dir).unwrap();
    for i in 0..3 {
        good(dir, i);
    }
    let mut bad = vec!["binary.md", "big.md"];
    fs::write(dir.join("binary.md"), b"Subject: x\n\0\0\0\x01\x02").unwrap();
    // Over a 2 KiB limit, under the default.
    let big = format!(
        "Subject: big\nFrom: w\nTo: boss\nId: big\n\nBody:\n{}\n",
        "y".repeat(4096)
    );
    fs::write(dir.join("big.md"), big).unwrap();
    fs::write(
        dir.join("latin1.md"),
        b"Subject: caf\xe9\nFrom: w9\nTo: boss\nId: latin1\n\nBody:\nna\xefve \xff\xfe\n",
    )
    .unwrap();
    #[cfg(target_os = "linux")]
    {
        std::os::unix::fs::symlink("/proc/self/mem", dir.join("unreadable.md")).unwrap();
        bad.push("unreadable.md");
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n");
    if matches!(root, Ok(false)) {
        use std::os::unix::fs::PermissionsExt;
        fs::write(dir.join("noperm.md"), "Subject: x\n").unwrap();
        fs::set_permissions(dir.join("noperm.md"), fs::Permissions::from_mode(0o000)).unwrap();
        bad.push("noperm.md");
    } else {
        eprintln!("running as root: chmod 000 does not bind, /proc/self/mem stands in");
    }
    bad
}

fn amail(args: &[&str], config: Option<&Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_amail"));
    c.args(args)
        .env("AMAIL_HOME", "/nonexistent-amail-home")
        .env(
            "AMAIL_CONFIG",
            config.unwrap_or(Path::new("/nonexistent-amail.toml")),
        );
    c.output().unwrap()
}

#[test]
fn every_good_message_loads_and_each_bad_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    let bad = bad_mailbox(&mail);
    let opts = LoadOptions {
        max_bytes: 2048,
        ..LoadOptions::default()
    };
    let loaded = stores::load(&mail, &opts).unwrap();
    let keys: Vec<&str> = loaded.messages.iter().map(|m| m.key.as_str()).collect();
    for k in ["good-0", "good-1", "good-2", "latin1"] {
        assert!(keys.contains(&k), "{k} missing from {keys:?}");
    }
    let latin = loaded.messages.iter().find(|m| m.key == "latin1").unwrap();
    assert!(
        latin
            .message
            .diagnostics
            .iter()
            .any(|d| d.code == "invalid-utf8"),
        "{:?}",
        latin.message.diagnostics
    );
    assert!(latin.message.body.contains('\u{fffd}'));
    for b in &bad {
        let (_, why) = loaded
            .problems
            .iter()
            .find(|(p, _)| p.ends_with(b))
            .unwrap_or_else(|| panic!("{b} not reported: {:?}", loaded.problems));
        if *b == "big.md" {
            assert!(
                why.contains("over the message size limit of 2048 bytes"),
                "{why}"
            );
        }
    }
    // The invalid-UTF-8 file loads, and is also named with the damaged ones.
    let (_, why) = loaded
        .problems
        .iter()
        .find(|(p, _)| p.ends_with("latin1.md"))
        .unwrap_or_else(|| panic!("latin1.md not reported: {:?}", loaded.problems));
    assert!(why.starts_with("invalid UTF-8 at 1:13"), "{why}");
    assert_eq!(
        loaded.problems.len(),
        bad.len() + 1,
        "{:?}",
        loaded.problems
    );
}

#[test]
fn the_limit_comes_from_the_flag_or_the_config_file_and_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    bad_mailbox(&mail);
    let m = mail.to_str().unwrap();
    let big = mail.join("big.md");
    let b = big.to_str().unwrap();

    // Default 10 MiB: big.md reads.
    let out = amail(&["threads", m], None);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("big.md"));

    // The flag.
    let out = amail(&["threads", m, "--max-size", "2KiB"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "{b}: {} bytes, over",
            std::fs::metadata(&big).unwrap().len()
        )) && err.contains("over the message size limit of 2048 bytes"),
        "{err}"
    );
    for name in ["binary.md", "unreadable.md"] {
        assert!(err.contains(name), "{name} not reported: {err}");
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("b1"));

    // The config file.
    let cfg = dir.path().join("config.toml");
    fs::write(&cfg, "max_message_size = \"2KiB\"\n").unwrap();
    let out = amail(&["parse", "--format", "text", b], Some(&cfg));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(b) && err.contains("over the message size limit of 2048"),
        "{err}"
    );
    // ... which the flag overrides.
    let out = amail(
        &["parse", "--format", "text", b, "--max-size", "1MiB"],
        Some(&cfg),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Routing refuses the oversize input by name, before routing anything.
    let store = dir.path().join("store");
    let out = amail(
        &["route", b, "--store", store.to_str().unwrap()],
        Some(&cfg),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(b) && err.contains("message size limit"),
        "{err}"
    );
    // The limit is amail's, not the filesystem's: no hint to look at the
    // file's permissions.
    assert!(!err.contains("permissions"), "{err}");
    // ... where a file the system cannot open gets it.
    let gone = dir.path().join("gone.md");
    let out = amail(
        &[
            "route",
            gone.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
        Some(&cfg),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("gone.md") && err.contains("check the path and its permissions"),
        "{err}"
    );

    // A bad config value is a clear error naming the file.
    fs::write(&cfg, "max_message_size = \"lots\"\n").unwrap();
    let out = amail(&["threads", m], Some(&cfg));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("config.toml") && err.contains("max_message_size"),
        "{err}"
    );
}
