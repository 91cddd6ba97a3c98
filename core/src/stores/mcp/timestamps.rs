//! The two SQLite timestamp dialects of mcp_agent_mail: TEXT
//! `YYYY-MM-DD HH:MM:SS.ffffff` naive UTC (Python server) and INTEGER
//! microseconds since the epoch (Rust port).

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use rusqlite::types::ValueRef;

/// How a database stores its timestamps. Writers must use the database's
/// own dialect so the server keeps reading what we wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `YYYY-MM-DD HH:MM:SS.ffffff`, naive UTC.
    Text,
    /// Microseconds since the Unix epoch.
    IntegerMicros,
}

impl Dialect {
    /// The SQL value for `t` in this dialect.
    pub(crate) fn encode(self, t: DateTime<Utc>) -> rusqlite::types::Value {
        match self {
            Dialect::Text => rusqlite::types::Value::Text(format_text(t)),
            Dialect::IntegerMicros => rusqlite::types::Value::Integer(t.timestamp_micros()),
        }
    }
}

/// Python's `str(datetime)` for a naive UTC datetime with microseconds.
/// SQLAlchemy always writes the six fraction digits.
pub fn format_text(t: DateTime<Utc>) -> String {
    t.naive_utc().format("%Y-%m-%d %H:%M:%S%.6f").to_string()
}

/// Python's `datetime.isoformat()` of an aware UTC datetime: microseconds
/// only when non-zero, `+00:00` offset.
pub fn python_iso(t: DateTime<Utc>) -> String {
    if t.timestamp_subsec_micros() == 0 {
        t.format("%Y-%m-%dT%H:%M:%S+00:00").to_string()
    } else {
        t.format("%Y-%m-%dT%H:%M:%S%.6f+00:00").to_string()
    }
}

/// Reads a timestamp in either dialect (and tolerates ISO 8601 text with a
/// `T` or an offset). `None` for NULL or anything unreadable.
pub fn decode(v: ValueRef<'_>) -> Option<DateTime<Utc>> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => from_micros(i),
        ValueRef::Real(f) => from_micros(f as i64),
        ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(parse_text),
        ValueRef::Blob(_) => None,
    }
}

fn from_micros(i: i64) -> Option<DateTime<Utc>> {
    Utc.timestamp_micros(i).single()
}

/// Parses the text forms seen in the wild.
pub fn parse_text(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
    ] {
        if let Ok(n) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(Utc.from_utc_datetime(&n));
        }
    }
    // "2026-11-22 03:23:50.433893+00:00" (space instead of T, with offset)
    if s.len() > 10 && s.as_bytes()[10] == b' ' {
        let mut t = s.to_string();
        t.replace_range(10..11, "T");
        if let Ok(t) = DateTime::parse_from_rfc3339(&t) {
            return Some(t.with_timezone(&Utc));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects_round_trip() {
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 3, 23, 50).unwrap()
            + chrono::Duration::microseconds(433_893);
        assert_eq!(format_text(t), "2026-11-22 03:23:50.433893");
        assert_eq!(parse_text("2026-11-22 03:23:50.433893"), Some(t));
        assert_eq!(decode(ValueRef::Integer(t.timestamp_micros())), Some(t));
        assert_eq!(parse_text("2026-11-22T03:23:50.433893+00:00"), Some(t));
        assert_eq!(parse_text("garbage"), None);
    }
}
