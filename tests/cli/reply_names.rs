//! The name of the file a reply is written to. A message with no `Id:` is
//! keyed by its path, and a reply's file name ends with `re-` and the key
//! it answers: the key's own `.md` then stood before the reply's
//! (`...__re-sp-ace.md.md`, found replying to such a message by hand).

use std::fs;

use super::fx::{stderr, Fx};

const HELP: &str = "Subject: [ol-1] HELP_REQUEST\nFrom: Alice\nTo: Bob\n\nBody:\nIssue Type: STUCK\n## Problem\np\n## Question\nq?\n";

/// The one file `amail reply KEY` wrote under `replies/`.
fn reply_name(file: &str) -> String {
    let fx = Fx::new();
    let mailbox = fx.path("mb");
    fs::create_dir_all(&mailbox).unwrap();
    fs::write(mailbox.join(file), HELP).unwrap();
    let out = fx.run(&[
        "reply",
        file,
        mailbox.to_str().unwrap(),
        "--as",
        "Bob",
        "--body",
        "Use the index.",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names: Vec<String> = fs::read_dir(mailbox.join("replies"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    names.into_iter().next().unwrap()
}

#[test]
fn a_reply_to_a_message_keyed_by_its_path_has_one_extension() {
    for (file, ends) in [
        ("sp ace.md", "__re-sp-ace.md"),
        ("NOTE.MARKDOWN", "__re-note.md"),
        ("plain", "__re-plain.md"),
        ("ol-1.2.txt", "__re-ol-1.2.md"),
    ] {
        let name = reply_name(file);
        assert!(name.ends_with(ends), "{file}: {name}");
        assert_eq!(name.matches(".md").count(), 1, "{file}: {name}");
    }
}
