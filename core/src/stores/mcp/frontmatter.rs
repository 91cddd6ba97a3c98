//! The `---json` front matter of mcp_agent_mail archive files.
//!
//! The parser reads it to frame the message, but the inbox needs the
//! envelope (id, recipients, thread) even when the parser's view is
//! partial, and it needs the exact keys (`bcc`, `project_slug`) the parser
//! does not model. The JSON is parsed once, by the parser, which hands the
//! object back ([`amail_parser::parse_with_front_matter`]); it is typed
//! here.

use chrono::{DateTime, Utc};
use serde::Deserialize;

/// The envelope keys of an archive file, as the server writes them.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct FrontMatter {
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
    pub(crate) fn id_text(&self) -> Option<String> {
        match self.id.as_ref()? {
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::String(s) if !s.is_empty() => Some(s.clone()),
            _ => None,
        }
    }

    /// `true`, `1` or `"true"` all mean ack required.
    pub(crate) fn ack_required(&self) -> Option<bool> {
        match self.ack_required.as_ref()? {
            serde_json::Value::Bool(b) => Some(*b),
            serde_json::Value::Number(n) => Some(n.as_i64() != Some(0)),
            serde_json::Value::String(s) => Some(matches!(s.as_str(), "true" | "1" | "yes")),
            _ => None,
        }
    }

    pub(crate) fn created_at(&self) -> Option<DateTime<Utc>> {
        self.created
            .as_deref()
            .and_then(super::timestamps::parse_text)
    }
}

/// Whether `text` is framed as an archive file: `---json` alone on its
/// first line (after a UTF-8 BOM), LF or CRLF.
pub(crate) fn is_archive_text(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.starts_with("---json\n") || text.starts_with("---json\r\n")
}

impl FrontMatter {
    /// The envelope keys of a front matter object, as the parser's framing
    /// read it ([`amail_parser::parse_with_front_matter`]): converted, not
    /// parsed again. `None` when a key has another type than the server
    /// writes.
    pub(crate) fn from_object(object: amail_parser::JsonObject) -> Option<Self> {
        serde_json::from_value(serde_json::Value::Object(object)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_server_file() {
        let t = "---json\n{\n  \"id\": 5,\n  \"to\": [\n    \"BlueLake\"\n  ],\n  \"ack_required\": true\n}\n---\n\nBead: x\n";
        let parse = |t| amail_parser::parse_with_front_matter(t, &Default::default()).unwrap();
        assert!(is_archive_text(t));
        let (messages, object) = parse(t);
        let fm = FrontMatter::from_object(object.unwrap()).unwrap();
        assert_eq!(fm.id_text().as_deref(), Some("5"));
        assert_eq!(fm.to, vec!["BlueLake"]);
        assert_eq!(fm.ack_required(), Some(true));
        assert_eq!(messages[0].body, "Bead: x");
        assert!(!is_archive_text("Subject: x"));
        assert!(parse("Subject: x").1.is_none());
        assert!(parse("---json\n{not json\n---\n").1.is_none());
        // A key of another type than the server writes: no front matter.
        let (_, object) = parse("---json\n{\"to\": 5}\n---\n\nx\n");
        assert!(FrontMatter::from_object(object.unwrap()).is_none());
    }
}
