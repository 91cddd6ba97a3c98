//! A new message's rows, as the server's `send_message` and
//! `reply_message` write them: the `messages` row with only the columns
//! this database has (the Rust port adds `recipients_json`, the 0.3.x
//! server `topic`), one `message_recipients` row per recipient, and the
//! sender marked active. Replies and new messages both come here, so the
//! two can never write different rows for the same kind of message.

use rusqlite::{params, Connection};

use super::db as mcp_db;

/// What a new message's rows hold.
pub(crate) struct NewRow<'a> {
    pub project_id: i64,
    pub sender_id: i64,
    pub thread_id: Option<&'a str>,
    pub subject: &'a str,
    pub body_md: &'a str,
    pub importance: &'a str,
    pub ack_required: bool,
    /// `created_ts`, already in the database's timestamp dialect.
    pub ts: &'a rusqlite::types::Value,
    /// Written only where the schema has `messages.topic`.
    pub topic: Option<&'a str>,
    /// The recipients (agent id, name), all `to`.
    pub to: &'a [(i64, String)],
}

/// Inserts the rows inside the caller's transaction; returns the new id.
pub(crate) fn insert(tx: &Connection, row: &NewRow<'_>) -> rusqlite::Result<i64> {
    let has = |column: &str| mcp_db::column_type(tx, "messages", column).map(|t| t.is_some());
    let mut cols = vec![
        "project_id",
        "sender_id",
        "thread_id",
        "subject",
        "body_md",
        "importance",
        "ack_required",
        "created_ts",
        "attachments",
    ];
    let mut values: Vec<rusqlite::types::Value> = vec![
        row.project_id.into(),
        row.sender_id.into(),
        row.thread_id.map(str::to_string).into(),
        row.subject.to_string().into(),
        row.body_md.to_string().into(),
        row.importance.to_string().into(),
        i64::from(row.ack_required).into(),
        row.ts.clone(),
        "[]".to_string().into(),
    ];
    if has("topic")? {
        cols.push("topic");
        values.push(row.topic.map(str::to_string).into());
    }
    if has("recipients_json")? {
        let names: Vec<&str> = row.to.iter().map(|(_, n)| n.as_str()).collect();
        cols.push("recipients_json");
        values.push(
            serde_json::json!({"to": names, "cc": [], "bcc": []})
                .to_string()
                .into(),
        );
    }
    let placeholders: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
    tx.execute(
        &format!(
            "INSERT INTO messages ({}) VALUES ({})",
            cols.join(", "),
            placeholders.join(", ")
        ),
        rusqlite::params_from_iter(values.iter()),
    )?;
    let new_id = tx.last_insert_rowid();
    for (id, _) in row.to {
        tx.execute(
            "INSERT INTO message_recipients (message_id, agent_id, kind, read_ts, ack_ts)
             VALUES (?1, ?2, 'to', NULL, NULL)",
            params![new_id, id],
        )?;
    }
    // The server marks the sender active when it sends.
    tx.execute(
        "UPDATE agents SET last_active_ts = ?1 WHERE id = ?2",
        params![row.ts, row.sender_id],
    )?;
    Ok(new_id)
}
