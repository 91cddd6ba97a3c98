//! The demo's neighbouring-protocol files: a `.handoffs/` directory (one
//! handoff in each state, a re-offer history) and A2A task JSON under
//! `a2a/`, timed relative to the demo clock so they interleave with the
//! demo mail. Written only (the demo store holds the mail's beads);
//! `amail route DIR/mail --store DIR/store` puts them on the board too.

use std::io;
use std::path::Path;

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde_json::{json, Value};

fn t(now: DateTime<Utc>, minutes_ago: i64) -> String {
    (now - Duration::minutes(minutes_ago)).to_rfc3339_opts(SecondsFormat::Secs, true)
}

// One handoff snapshot: the eight fields in protocol order, flat on purpose.
#[allow(clippy::too_many_arguments)]
fn handoff(
    now: DateTime<Utc>,
    id: &str,
    from: &str,
    to: &str,
    status: &str,
    description: &str,
    created: i64,
    updated: i64,
    context: Value,
) -> Value {
    json!({
        "task_id": id,
        "from_agent": from,
        "to_agent": to,
        "status": status,
        "description": description,
        "context": context,
        "created_at": t(now, created),
        "updated_at": t(now, updated),
    })
}

fn write(path: &Path, v: &Value) -> io::Result<()> {
    let text = serde_json::to_string_pretty(v).map_err(io::Error::other)? + "\n";
    std::fs::write(path, text)
}

/// Writes `mailbox/.handoffs/*.json` and `mailbox/a2a/*.json[l]`.
pub fn write_protocol_demo(mailbox: &Path, now: DateTime<Utc>) -> io::Result<()> {
    let hd = mailbox.join(".handoffs");
    let a2a = mailbox.join("a2a");
    std::fs::create_dir_all(&hd)?;
    std::fs::create_dir_all(&a2a)?;
    let id = |n: u32| format!("7d3c9a10-0000-4000-8000-{n:012}");
    write(
        &hd.join(format!("{}.json", id(1))),
        &handoff(
            now,
            &id(1),
            "BlueLake",
            "",
            "offered",
            "Audit the feature flags for dead code",
            95,
            95,
            json!({"dir": "src/flags"}),
        ),
    )?;
    write(
        &hd.join(format!("{}.json", id(2))),
        &handoff(
            now,
            &id(2),
            "BlueLake",
            "Chiron",
            "accepted",
            "Review the rate limiter design note",
            120,
            70,
            json!({"doc": "docs/rate-limit.md"}),
        ),
    )?;
    write(
        &hd.join(format!("{}.json", id(3))),
        &handoff(
            now,
            &id(3),
            "BlueLake",
            "docs-bot",
            "completed",
            "Regenerate the API reference",
            200,
            110,
            json!({}),
        ),
    )?;
    write(
        &hd.join(format!("{}.json", id(4))),
        &handoff(
            now,
            &id(4),
            "BlueLake",
            "designer",
            "rejected",
            "Redraw the onboarding flow",
            150,
            140,
            json!({"reason": "no design capacity this week"}),
        ),
    )?;
    // A history: offered, accepted, failed, re-offered to someone else.
    let hist: Vec<Value> = [
        ("ci-bot", "offered", 170),
        ("ci-bot", "accepted", 160),
        ("ci-bot", "failed", 130),
        ("Chiron", "offered", 60),
    ]
    .iter()
    .map(|(to, st, ago)| {
        let ctx = if *st == "failed" {
            json!({"error": "runner out of disk"})
        } else {
            json!({})
        };
        handoff(
            now,
            &id(5),
            "BlueLake",
            to,
            st,
            "Bisect the nightly build failure",
            170,
            *ago,
            ctx,
        )
    })
    .collect();
    write(&hd.join(format!("{}.json", id(5))), &Value::Array(hist))?;

    write(
        &a2a.join("index-rebuild.json"),
        &json!({
            "task_id": "task_search.reindex_1",
            "task_type": "search.reindex",
            "parameters": {"index": "messages", "shards": 4},
            "requester_agent_id": "BlueLake",
            "responder_agent_id": "indexer",
            "deadline": t(now, -120),
            "priority": "PRIORITY_HIGH",
            "created_at": t(now, 100),
        }),
    )?;
    let lines = [
        json!({"task_id": "task_search.reindex_1", "status": "TASK_STATUS_IN_PROGRESS", "progress_message": "Re-indexing shard 3 of 4", "progress_percentage": 60, "executor_agent_id": "indexer", "updated_at": t(now, 20)}),
        json!({"task_id": "task_report.weekly_2", "task_type": "report.weekly", "requester_agent_id": "BlueLake", "responder_agent_id": "reporter", "priority": 1, "created_at": t(now, 180)}),
        json!({"task_id": "task_report.weekly_2", "status": 2, "progress_percentage": 50, "executor_agent_id": "reporter", "updated_at": t(now, 170)}),
        json!({"task_id": "task_report.weekly_2", "status": "COMPLETED", "result": {"report": "reports/weekly.md"}, "executor_agent_id": "reporter", "completed_at": t(now, 150)}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(a2a.join("updates.jsonl"), text)
}
