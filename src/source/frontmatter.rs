//! The `---json` front matter of mcp_agent_mail archive files, read directly.
//!
//! The parser also reads it, but the inbox needs the envelope (id,
//! recipients, thread) even when the parser's view is partial, and it
//! needs the exact keys (`bcc`, `project_slug`) the parser does not model.

use chrono::{DateTime, Utc};
use serde::Deserialize;

/// The envelope keys of an archive file, as the server writes them.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct FrontMatter {
    pub id: Option<serde_json::Value>,
    pub thread_id: Option<String>,
    pub project: Option<String>,
    pub project_slug: Option<String>,
    pub from: Option<String>,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub bcc: Vec<String>,
    pub subject: Option<String>,
    pub importance: Option<String>,
    pub ack_required: Option<serde_json::Value>,
    pub created: Option<String>,
}

impl FrontMatter {
    /// The id as decimal text (the server writes an integer).
    pub fn id_text(&self) -> Option<String> {
        match self.id.as_ref()? {
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::String(s) if !s.is_empty() => Some(s.clone()),
            _ => None,
        }
    }

    /// `true`, `1` or `"true"` all mean ack required.
    pub fn ack_required(&self) -> Option<bool> {
        match self.ack_required.as_ref()? {
            serde_json::Value::Bool(b) => Some(*b),
            serde_json::Value::Number(n) => Some(n.as_i64() != Some(0)),
            serde_json::Value::String(s) => Some(matches!(s.as_str(), "true" | "1" | "yes")),
            _ => None,
        }
    }

    pub fn created_at(&self) -> Option<DateTime<Utc>> {
        self.created
            .as_deref()
            .and_then(super::timestamps::parse_text)
    }
}

/// Splits a `---json` file into its front matter and body. `None` when the
/// text does not start with a `---json` fence or the JSON does not parse.
/// Accepts LF and CRLF and a UTF-8 BOM.
pub fn split(text: &str) -> Option<(FrontMatter, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---json\r\n")
        .or_else(|| text.strip_prefix("---json\n"))?;
    // The JSON ends at the first line that is exactly `---`.
    let mut offset = 0;
    let mut json_end = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            json_end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let (end, body_start) = json_end?;
    let fm: FrontMatter = serde_json::from_str(&rest[..end]).ok()?;
    let mut body = &rest[body_start..];
    // Exactly one blank line separates the fence from the body.
    body = body
        .strip_prefix("\r\n")
        .or_else(|| body.strip_prefix('\n'))
        .unwrap_or(body);
    Some((fm, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_server_file() {
        let t = "---json\n{\n  \"id\": 5,\n  \"to\": [\n    \"BlueLake\"\n  ],\n  \"ack_required\": true\n}\n---\n\nBead: x\n";
        let (fm, body) = split(t).unwrap();
        assert_eq!(fm.id_text().as_deref(), Some("5"));
        assert_eq!(fm.to, vec!["BlueLake"]);
        assert_eq!(fm.ack_required(), Some(true));
        assert_eq!(body, "Bead: x\n");
        assert!(split("Subject: x").is_none());
        assert!(split("---json\n{not json\n---\n").is_none());
    }
}
