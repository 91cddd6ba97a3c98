//! Run artifacts under `state/runs/<TASK-ID>/` (AOF keeps them outside the
//! status directories so they never move): `run.json` when a worker takes
//! the task, `run_heartbeat.json` refreshed by its messages, and
//! `run_result.json` written by a completion report.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::aof::{Outcome, TestReport};

/// Heartbeat time-to-live: 5 minutes, AOF's default.
pub(crate) const HEARTBEAT_TTL_MS: i64 = 300_000;
/// Lease time-to-live: 10 minutes, AOF's default.
pub(crate) const LEASE_TTL_MS: i64 = 600_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ArtifactPaths {
    pub inputs: String,
    pub work: String,
    /// AOF writes `output/` here although the directory is `outputs/`; kept
    /// for file compatibility.
    pub output: String,
}

impl Default for ArtifactPaths {
    fn default() -> Self {
        ArtifactPaths {
            inputs: "inputs/".into(),
            work: "work/".into(),
            output: "output/".into(),
        }
    }
}

/// `run.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunArtifact {
    pub task_id: String,
    pub agent_id: String,
    pub started_at: String,
    /// running | completed | failed | abandoned
    pub status: String,
    #[serde(default)]
    pub artifact_paths: ArtifactPaths,
    /// In written order: AOF adds `completedAt`, `expiredAt` after what
    /// is there (`{...metadata, completedAt}`), and keeps what it found.
    #[serde(default)]
    pub metadata: IndexMap<String, Value>,
}

/// `run_heartbeat.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunHeartbeat {
    pub task_id: String,
    pub agent_id: String,
    pub last_heartbeat: String,
    pub beat_count: u64,
    pub expires_at: String,
}

/// `run_result.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunResult {
    pub task_id: String,
    pub agent_id: String,
    pub completed_at: String,
    pub outcome: Outcome,
    pub summary_ref: String,
    pub handoff_ref: String,
    #[serde(default)]
    pub deliverables: Vec<String>,
    pub tests: TestReport,
    #[serde(default)]
    pub blockers: Vec<String>,
    pub notes: String,
}

/// Pretty JSON, 2-space indent as AOF's artifacts are (reference §5.3),
/// ending with a newline: the reference does not say whether AOF's files
/// end with one, so amail keeps the one it always wrote.
pub(crate) fn to_pretty<T: Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}
