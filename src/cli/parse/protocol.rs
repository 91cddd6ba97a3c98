//! `amail parse` for protocol files: each item printed as its own JSON
//! object with a `protocol` key (`handoff/0.1` or `a2a`), so the Agent Mail
//! JSON contract is unchanged. Diagnostics go to stderr as
//! `file:line:col: code: message`; `--strict` fails on the first one.

use std::io::Write;

use serde::Serialize;

use crate::cli::CliError;
use amail_core::bridge::protocol as bridge;
use amail_core::formats::{detect, Item};
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

/// Prints a protocol file in `format` (`Json`, `Jsonl`, `Text`, `Aof`, as
/// `amail parse` spells its formats). `Ok(false)`: not a protocol file,
/// nothing printed. `first` is the JSON array's "no element yet" flag.
/// `text` is the file's text, `None` when it is not UTF-8 (then it is no
/// protocol file): validated once by the caller, which parses it next.
pub fn print(
    out: &mut impl Write,
    name: &str,
    text: Option<&str>,
    format: &str,
    first: &mut bool,
    strict: bool,
) -> Result<bool, CliError> {
    let Some(text) = text else {
        return Ok(false);
    };
    let Some((_, parsed)) = detect(name, text) else {
        return Ok(false);
    };
    if strict {
        if let Some(d) = parsed.diags.first() {
            return Err(CliError::bad_input(d.to_string()));
        }
    }
    for d in &parsed.diags {
        eprintln!("amail: {d}");
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
