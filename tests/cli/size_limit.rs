//! A file over the message size limit, as each reading command says it.

use crate::fx::{amail_in, stderr};

/// A mailbox file over the limit was "warning: PATH: file is 11534385
/// bytes is over the message size limit of 10485760 bytes (...);
/// skipped" in `threads`, `pending` and the inbox (the loader's "file
/// is" before the reader's own "N bytes is over"), while `parse` and
/// `route` said "N bytes is over": two verbs in one sentence, and three
/// wordings of one refusal. Found by running `threads` on a folder
/// holding an 11 MiB message. Every command now says "N bytes, over the
/// message size limit of M bytes" after the path.
#[test]
fn an_over_limit_file_is_one_sentence_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let mail = dir.path().join("mail");
    std::fs::create_dir(&mail).unwrap();
    let file = mail.join("big.md");
    let text = "Subject: [x-1] PROGRESS\nBody:\nBead: x-1\nStatus: a long status line\n";
    std::fs::write(&file, text).unwrap();
    let (m, f) = (mail.display().to_string(), file.display().to_string());
    let store = dir.path().join("store").display().to_string();
    let said = format!(
        "{f}: {} bytes, over the message size limit of 16 bytes",
        text.len()
    );
    for args in [
        &["parse", &f][..],
        &["parse", &m][..],
        &["threads", &m][..],
        &["pending", &m][..],
        &["route", &f, "--store", &store][..],
    ] {
        let args = [args, &["--max-size", "16"][..]].concat();
        let err = stderr(&amail_in(&home, &args, None));
        let line = err
            .lines()
            .find(|l| l.contains("over the message size limit"))
            .unwrap_or_else(|| panic!("{args:?}: {err}"));
        assert!(
            line.contains(&said) && !line.contains("is over") && !line.contains("file is"),
            "{args:?}: {line}"
        );
    }
}
