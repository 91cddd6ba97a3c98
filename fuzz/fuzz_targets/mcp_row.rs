//! SQLite-row decoding of the mcp_agent_mail store: the fuzzer chooses
//! the SQLite type and bytes of every decoded column (ids, names, thread,
//! subject, body, importance, ack flag, timestamps) of one message with one
//! recipient in an in-memory database, beside a second message and a
//! recipient whose `message_id` it chooses too; `read_messages`,
//! `timestamps::decode` and `truthy` must return a value or an error,
//! never panic. The messages are read both ways a load reads them (the
//! first page's recipients by a join, the later pages' from one walk of
//! the table): the same rows, or an error both ways. A blob may be made
//! text of its bytes, so texts that are not UTF-8 are read too.
#![no_main]

use amail_core::stores::mcp::{db as mcp_db, timestamps};
use libfuzzer_sys::fuzz_target;
use rusqlite::types::{Value, ValueRef};
use rusqlite::Connection;

fn take(data: &mut &[u8]) -> Value {
    let Some((&tag, rest)) = data.split_first() else {
        return Value::Null;
    };
    *data = rest;
    let len = (rest.first().copied().unwrap_or(0) as usize % 24).min(rest.len().saturating_sub(1));
    let bytes = if rest.is_empty() { &[][..] } else { &rest[1..1 + len] };
    *data = if rest.is_empty() { rest } else { &rest[1 + len..] };
    let mut n = [0u8; 8];
    n[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
    match tag % 5 {
        0 => Value::Null,
        1 => Value::Integer(i64::from_le_bytes(n)),
        2 => Value::Real(f64::from_le_bytes(n)),
        3 => Value::Text(String::from_utf8_lossy(bytes).into_owned()),
        _ => Value::Blob(bytes.to_vec()),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut d = data;
    let vals: Vec<Value> = (0..15).map(|_| take(&mut d)).collect();
    for v in &vals {
        let r = ValueRef::from(v);
        let _ = timestamps::decode(r);
        let _ = mcp_db::truthy(r);
    }
    let conn = Connection::open_in_memory().unwrap();
    // Untyped columns: SQLite stores whatever type the fuzzer chose.
    conn.execute_batch(mcp_db::UNTYPED_SCHEMA).unwrap();
    conn.execute("INSERT INTO projects VALUES (1, ?1, ?2)", rusqlite::params![vals[0], vals[1]]).unwrap();
    conn.execute("INSERT INTO agents VALUES (1, ?1)", rusqlite::params![vals[2]]).unwrap();
    conn.execute(
        "INSERT INTO messages VALUES (1, 1, 1, ?1, ?2, ?3, ?4, ?5, ?6)",
        rusqlite::params![vals[3], vals[4], vals[5], vals[6], vals[7], vals[8]],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO messages VALUES (2, 1, 1, NULL, 's', 'b', 'normal', 0, ?1)",
        rusqlite::params![vals[12]],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO message_recipients VALUES (1, 1, ?1, ?2, ?3), (?4, 1, ?5, NULL, NULL)",
        rusqlite::params![vals[9], vals[10], vals[11], vals[13], vals[14]],
    )
    .unwrap();
    // Where the fuzzer asks, each blob becomes text of the same bytes:
    // SQLite keeps text that is not UTF-8 as a tool gave it.
    if d.first().is_some_and(|b| b & 1 == 1) {
        for (table, column) in [
            ("projects", "slug"),
            ("projects", "human_key"),
            ("agents", "name"),
            ("messages", "thread_id"),
            ("messages", "subject"),
            ("messages", "body_md"),
            ("messages", "importance"),
            ("message_recipients", "kind"),
        ] {
            conn.execute_batch(&format!(
                "UPDATE {table} SET {column} = CAST({column} AS TEXT) WHERE typeof({column}) = 'blob'"
            ))
            .unwrap();
        }
    }
    let joined = mcp_db::read_messages(&conn);
    let walked = mcp_db::read_messages_from_a_page_of(&conn, 1);
    match (joined, walked) {
        (Ok(joined), Ok(walked)) => {
            assert_eq!(joined.len(), 2);
            assert_eq!(joined, walked);
        }
        (Err(_), Err(_)) => {}
        (joined, walked) => panic!("the join read {joined:?}, the walk {walked:?}"),
    }
});
