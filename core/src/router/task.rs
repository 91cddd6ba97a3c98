//! The task file: YAML front matter between `---` fences, then a markdown
//! body, exactly as AOF writes it (`---\n<yaml>---\n\n<body>\n`).
//!
//! Front-matter keys are declared in AOF's schema order so serialisation
//! writes them in that order; keys this crate does not model are kept in
//! `extra` and written back (AOF strips them; keeping them loses nothing).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::utf8_text::{self, NotUtf8};

/// `routing`: who the task is for. `agent` is the assignee.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Routing {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
}

/// `lease`: the agent holding the task while it is in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    pub agent: String,
    pub acquired_at: String,
    pub expires_at: String,
    #[serde(default)]
    pub renew_count: u32,
}

fn default_priority() -> String {
    "normal".into()
}

/// AOF's `TaskFrontmatter`, in schema order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frontmatter {
    pub schema_version: u32,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    pub title: String,
    pub status: String,
    #[serde(default = "default_priority")]
    pub priority: String,
    #[serde(default)]
    pub routing: Routing,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sla: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
    pub created_at: String,
    pub updated_at: String,
    pub last_transition_at: String,
    pub created_by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub depends_on: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    #[serde(default)]
    /// In the order written (AOF's objects keep insertion order).
    pub metadata: IndexMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tier: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<Value>,
    #[serde(default)]
    pub gate_history: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_context: Option<Value>,
    #[serde(default)]
    pub tests: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<Value>,
    /// Keys AOF may add that we do not model; written back after ours.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

/// A task: front matter plus body (trimmed, without the trailing newline).
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub fm: Frontmatter,
    pub body: String,
}

/// Why a task file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskParseError {
    #[error("1:1: task file must start with YAML frontmatter (---)")]
    NoFrontmatter,
    #[error("1:1: unterminated YAML frontmatter: add a closing --- line")]
    Unterminated,
    #[error("{line}:{column}: bad front matter: {message}")]
    Yaml {
        line: usize,
        column: usize,
        message: String,
    },
    /// A byte that is not UTF-8 (another program's, or a hand edit's).
    #[error("{0}")]
    NotUtf8(#[from] NotUtf8),
}

impl Task {
    /// A new task with AOF's defaults (schema 1, priority normal, empty
    /// routing and metadata), all three timestamps `at`.
    pub fn new(id: &str, title: &str, status: &str, at: &str) -> Task {
        let fm = Frontmatter {
            schema_version: 1,
            id: id.to_string(),
            project: None,
            title: title.to_string(),
            status: status.to_string(),
            priority: "normal".into(),
            routing: Routing::default(),
            sla: None,
            lease: None,
            created_at: at.to_string(),
            updated_at: at.to_string(),
            last_transition_at: at.to_string(),
            created_by: "amail".into(),
            parent_id: None,
            depends_on: vec![],
            content_hash: None,
            metadata: IndexMap::new(),
            context_tier: None,
            gate: None,
            gate_history: vec![],
            review_context: None,
            tests: vec![],
            tests_file: None,
            workflow: None,
            extra: IndexMap::new(),
        };
        let mut t = Task {
            fm,
            body: String::new(),
        };
        t.set_body(String::new());
        t
    }

    /// Parses a task file's bytes as read: one that is not UTF-8 is the
    /// file's error, at its line and column.
    pub fn parse_bytes(bytes: Vec<u8>) -> Result<Task, TaskParseError> {
        Task::parse(&utf8_text::text(bytes)?)
    }

    /// Parses a task file's text.
    pub fn parse(text: &str) -> Result<Task, TaskParseError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.split_inclusive('\n');
        let first = lines.next().unwrap_or("");
        if first.trim() != "---" {
            return Err(TaskParseError::NoFrontmatter);
        }
        let mut offset = first.len();
        let yaml_start = offset;
        let mut yaml_end = None;
        for line in lines {
            if line.trim_end_matches(['\n', '\r']) == "---" {
                yaml_end = Some(offset);
                offset += line.len();
                break;
            }
            offset += line.len();
        }
        let yaml_end = yaml_end.ok_or(TaskParseError::Unterminated)?;
        let yaml = &text[yaml_start..yaml_end];
        let fm: Frontmatter = serde_norway::from_str(yaml).map_err(|e| {
            let at = e.location();
            let (line, column) = at
                .as_ref()
                .map(|l| (l.line() + 1, l.column()))
                .unwrap_or((2, 1));
            // The reader ends its message with its own position, counted
            // inside the front matter (a line off the file's): the file's
            // comes first in the error, once.
            let mut message = e.to_string();
            if let Some(l) = at {
                let own = format!(" at line {} column {}", l.line(), l.column());
                if let Some(cut) = message.strip_suffix(&own).map(str::len) {
                    message.truncate(cut);
                }
            }
            TaskParseError::Yaml {
                line,
                column,
                message,
            }
        })?;
        let body = text[offset..].trim().to_string();
        Ok(Task { fm, body })
    }

    /// The file text: `---`, YAML, `---`, blank line, body, newline.
    pub fn render(&self) -> String {
        let yaml = serde_norway::to_string(&self.fm).unwrap_or_default();
        format!("---\n{yaml}---\n\n{}\n", self.body)
    }

    /// First 16 hex characters of the body's SHA-256 (AOF's `contentHash`).
    pub fn content_hash(body: &str) -> String {
        let digest = Sha256::digest(body.as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    /// Sets the body and refreshes `contentHash`.
    pub(crate) fn set_body(&mut self, body: String) {
        self.fm.content_hash = Some(Task::content_hash(&body));
        self.body = body;
    }

    pub fn bead(&self) -> Option<&str> {
        self.fm.metadata.get("beadId").and_then(Value::as_str)
    }

    /// `metadata.reviewRequired`: anything but a literal `false` means yes.
    pub(crate) fn review_required(&self) -> bool {
        self.fm.metadata.get("reviewRequired") != Some(&Value::Bool(false))
    }

    /// `metadata.delegationDepth` when it is a number, else 0.
    /// (Any JSON number, as AOF's `typeof === "number"`: `1.0`, `0.5` and
    /// `-1` count as themselves.)
    pub fn delegation_depth(&self) -> f64 {
        self.fm
            .metadata
            .get("delegationDepth")
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    }
}

/// Appends a Work Log entry to a body.
///
/// AOF adds a new `## Work Log` heading for every entry; the seed says the
/// entry goes into the Work Log section. We follow the seed: one section,
/// entries appended to it, the heading created when missing. Both forms
/// parse the same for AOF.
pub(crate) fn append_work_log(body: &str, entry: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return format!("## Work Log\n{entry}");
    }
    let lines: Vec<&str> = body.lines().collect();
    if let Some(start) = lines.iter().rposition(|l| l.trim_end() == "## Work Log") {
        // The section runs to the next level-1 or level-2 heading.
        let end = lines[start + 1..]
            .iter()
            .position(|l| l.starts_with("# ") || l.starts_with("## "))
            .map(|p| start + 1 + p)
            .unwrap_or(lines.len());
        // Insert after the last non-blank line of the section.
        let mut at = end;
        while at > start + 1 && lines[at - 1].trim().is_empty() {
            at -= 1;
        }
        let mut out: Vec<&str> = Vec::with_capacity(lines.len() + 1);
        out.extend_from_slice(&lines[..at]);
        out.push(entry);
        out.extend_from_slice(&lines[at..]);
        return out.join("\n");
    }
    format!("{body}\n\n## Work Log\n{entry}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "---\nschemaVersion: 1\nid: TASK-2026-11-22-D4j2t7Vy\nproject: demo\ntitle: Probe task\nstatus: review\npriority: normal\nrouting:\n  agent: swe-backend\n  tags: []\nlease:\n  agent: swe-backend\n  acquiredAt: 2026-11-22T03:13:33.909Z\n  expiresAt: 2026-11-22T03:23:33.909Z\n  renewCount: 0\ncreatedAt: 2026-11-22T03:13:33.874Z\nupdatedAt: 2026-11-22T03:13:33.989Z\nlastTransitionAt: \"2026-11-22T03:13:33.989Z\"\ncreatedBy: main\ndependsOn: []\ncontentHash: ee3489a0a8406ca7\nmetadata:\n  reviewRequired: true\ngateHistory: []\ntests: []\nfancy: kept\n---\n\n## Instructions\n\nDo it.\n";

    #[test]
    fn reads_aof_file_and_round_trips() {
        let t = Task::parse(SAMPLE).unwrap();
        assert_eq!(t.fm.id, "TASK-2026-11-22-D4j2t7Vy");
        assert_eq!(t.fm.routing.agent.as_deref(), Some("swe-backend"));
        assert_eq!(t.fm.lease.as_ref().unwrap().renew_count, 0);
        assert_eq!(t.fm.last_transition_at, "2026-11-22T03:13:33.989Z");
        assert!(t.review_required());
        assert_eq!(t.body, "## Instructions\n\nDo it.");
        let again = Task::parse(&t.render()).unwrap();
        assert_eq!(again, t);
        let text = t.render();
        let keys: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(' ') && l.contains(':'))
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert_eq!(
            &keys[..8],
            &[
                "schemaVersion",
                "id",
                "project",
                "title",
                "status",
                "priority",
                "routing",
                "lease"
            ]
        );
        assert!(text.contains("fancy: kept"));
        assert!(
            text.contains("\ncreatedAt: 2026-11-22T03:13:33.874Z\n"),
            "{text}"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(Task::parse("hello"), Err(TaskParseError::NoFrontmatter));
        assert_eq!(
            Task::parse("---\nid: x\n"),
            Err(TaskParseError::Unterminated)
        );
        assert!(matches!(
            Task::parse("---\nid: [\n---\n"),
            Err(TaskParseError::Yaml { .. })
        ));
    }

    /// The error names the file's line and column once: the YAML reader's
    /// own "at line 2 column 8" (counted inside the front matter, one line
    /// off the file's) came after the file's `3:8:` and contradicted it.
    #[test]
    fn a_yaml_error_gives_the_file_s_position_once() {
        let e = Task::parse("---\nschemaVersion: 1\ntitle: [unclosed\n---\n").unwrap_err();
        let TaskParseError::Yaml {
            line,
            column,
            message,
        } = &e
        else {
            panic!("{e:?}");
        };
        assert_eq!((*line, *column), (3, 8), "{e}");
        assert!(!message.contains(" at line "), "{e}");
        assert!(e.to_string().starts_with("3:8: bad front matter: "), "{e}");
    }

    #[test]
    fn work_log_appends_into_one_section() {
        let b = append_work_log("", "- a");
        assert_eq!(b, "## Work Log\n- a");
        let b = append_work_log(&b, "- b");
        assert_eq!(b, "## Work Log\n- a\n- b");
        let b = append_work_log("## Instructions\n\nDo it.", "- a");
        assert_eq!(b, "## Instructions\n\nDo it.\n\n## Work Log\n- a");
        let b = append_work_log("## Work Log\n- a\n\n## Notes\nx", "- b");
        assert_eq!(b, "## Work Log\n- a\n- b\n\n## Notes\nx");
    }
}
