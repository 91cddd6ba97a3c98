//! `amail parse` for protocol files: each item printed as its own JSON
//! object with a `protocol` key (`handoff/0.1` or `a2a`), so the Agent Mail
//! JSON contract is unchanged. Diagnostics go to stderr as
//! `file:line:col: code: message`; `--strict` fails on the first one.

use std::io::Write;

use serde::Serialize;

use crate::cli::CliError;
use amail_core::bridge::protocol as bridge;
use amail_core::formats::{detect_in, opens_like_json, Item};
use amail_core::inbox::protocol_items as inbox;

#[derive(Serialize)]
struct Located<'a> {
    source: String,
    state: String,
    #[serde(flatten)]
    item: &'a Item,
}

fn write(out: &mut impl Write, b: &[u8]) -> Result<(), CliError> {
    out.write_all(b)
        .map_err(|e| CliError::bad_input(format!("cannot write output: {e}")))
}

/// Whether [`print`] would print nothing for this file: `detect` reads a
/// file as a protocol file only if it opens like JSON
/// ([`opens_like_json`], nearly always decided by the first byte) or lies
/// under a `.handoffs` folder; `in_handoff_dir` is asked only when the
/// text does not (see `Folders` in `parse.rs`).
/// `false`: not decided, [`print`] decides. Every mail file comes here
/// before it is parsed: `print`'s own test (the whole path searched twice
/// for `.handoffs`, the text trimmed) was 350 instructions a file over the
/// 10,000 small files; this one is a byte test and the folder's answer
/// (126 with `Folders`' search of the file name).
pub fn surely_not(text: Option<&str>, in_handoff_dir: impl FnOnce() -> bool) -> bool {
    let Some(text) = text else {
        // Not UTF-8: never a protocol file.
        return true;
    };
    !opens_like_json(text) && !in_handoff_dir()
}

/// Prints a protocol file in `format` (`Json`, `Jsonl`, `Text`, `Aof`, as
/// `amail parse` spells its formats). `Ok(false)`: not a protocol file,
/// nothing printed. `first` is the JSON array's "no element yet" flag.
/// `text` is the file's text, `None` when it is not UTF-8 (then it is no
/// protocol file): validated once by the caller, which parses it next.
/// `handoff`: one of a named mailbox's handoff files (`walk::mailbox`),
/// wherever its folder is, or a path under a `.handoffs` folder
/// (`Settings::is_handoff` in `parse.rs` asks both).
pub fn print(
    out: &mut impl Write,
    (name, handoff): (&str, bool),
    text: Option<&str>,
    format: &str,
    first: &mut bool,
    strict: bool,
) -> Result<bool, CliError> {
    let Some(text) = text else {
        return Ok(false);
    };
    let Some((_, parsed)) = detect_in(name, text, handoff) else {
        return Ok(false);
    };
    if strict {
        if let Some(d) = parsed.diags.first() {
            return Err(CliError::bad_input(d.to_string()));
        }
    }
    for d in &parsed.diags {
        crate::errln!("amail: {d}");
    }
    for item in &parsed.items {
        let located = Located {
            source: format!("{}:{}", name, item.source().line),
            state: inbox::state(item),
            item,
        };
        let json = || serde_json::to_string(&located).unwrap_or_default();
        match format {
            "Json" => {
                if !*first {
                    write(out, b",")?;
                }
                write(out, b"\n")?;
                let pretty = serde_json::to_string_pretty(&located).unwrap_or_default();
                write(out, pretty.as_bytes())?;
            }
            "Text" => {
                let m = inbox::to_message(item);
                // Every part is agent-written (names, ids, the file name):
                // the whole line goes through the one sanitiser.
                let line = format!(
                    "{}  {}  {}  {} -> {}  {}",
                    located.source,
                    inbox::raw_type(item),
                    located.state,
                    m.from.as_deref().unwrap_or("?"),
                    if m.to.is_empty() {
                        "anyone".to_string()
                    } else {
                        m.to.join(", ")
                    },
                    m.subject
                );
                write(out, amail_core::safe_text::clean_line(&line).as_bytes())?;
                write(out, b"\n")?;
            }
            "Aof" => {
                let env = bridge::to_envelope_standalone(item);
                write(out, env.to_json_line().as_bytes())?;
                write(out, b"\n")?;
            }
            _ => {
                write(out, json().as_bytes())?;
                write(out, b"\n")?;
            }
        }
        *first = false;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::cli::parse::tests::every_file;

    use amail_core::formats::{detect, in_handoff_dir};

    use super::*;

    /// `surely_not` says "nothing to print" only where `detect` finds no
    /// protocol file; how many files it decided.
    fn holds(path: &str, text: &str) -> bool {
        let decided = surely_not(Some(text), || in_handoff_dir(path));
        if decided {
            assert!(detect(path, text).is_none(), "{path}: {text:?}");
        }
        decided
    }

    #[test]
    fn the_fast_decision_agrees_with_detect_on_every_fixture() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut paths = Vec::new();
        every_file(&root.join("tests/data"), &mut paths);
        every_file(&root.join("parser/fixtures"), &mut paths);
        let (mut decided, mut texts) = (0, 0);
        for path in &paths {
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            texts += 1;
            let name = path.to_str().unwrap();
            // Where it is, and moved under a handoff folder or beside one.
            for p in [
                name.to_string(),
                format!(".handoffs/{name}"),
                format!("mail/.handoffs\\{name}"),
                format!("mail/x.handoffs.md/{name}"),
            ] {
                decided += usize::from(holds(&p, &text));
            }
        }
        // Mail is decided (JSON and handoff folders go to `detect`).
        assert!(texts > 300 && decided > texts, "{decided} of {texts}");
        assert!(surely_not(None, || unreachable!()));
    }

    #[test]
    fn every_first_character_is_decided_as_detect_decides() {
        let handoff = r#"{"from_agent":"a","status":"offered","task_id":"t"}"#;
        let a2a = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/a2a/valid/task.json"),
        )
        .unwrap();
        let lead: Vec<String> = (0u8..0x80)
            .map(|b| char::from(b).to_string())
            .chain(
                [
                    "\u{feff}",
                    "\u{a0}",
                    "\u{85}",
                    "\u{2028}",
                    "\u{3000}",
                    "é",
                    "\u{feff} ",
                ]
                .map(String::from),
            )
            .collect();
        for first in &lead {
            for body in [
                handoff,
                a2a.as_str(),
                "Subject: x\n\nBody:\nhi\n",
                "[1]",
                "",
            ] {
                let text = format!("{first}{body}");
                for path in ["m/a.md", "m/.handoffs/a.json", "a\\.handoffs\\b"] {
                    holds(path, &text);
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_and_path_are_decided_as_detect_decides(
            lead in "[ \t\r\n\u{b}\u{c}\u{feff}\u{a0}{\\[a-zA-Z#>*-]{0,3}",
            body in prop_bodies(),
            path in "(([a-z]|\\.handoffs|x\\.handoffs)[/\\\\]){0,3}[a-z]{1,3}\\.(md|json)",
        ) {
            holds(&path, &format!("{lead}{body}"));
        }
    }

    fn prop_bodies() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            Just(r#"{"from_agent":"a","status":"offered","task_id":"t"}"#.to_string()),
            Just(r#"[{"from_agent":"a","status":"done","task_id":"t"}]"#.to_string()),
            Just(r#"{"protocol":"aof/1"}"#.to_string()),
            Just("Subject: [b-1] PROGRESS\nBody:\nx\n".to_string()),
            ".{0,40}",
        ]
    }
}
