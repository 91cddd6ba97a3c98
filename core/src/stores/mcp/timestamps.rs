//! The two SQLite timestamp dialects of mcp_agent_mail: TEXT
//! `YYYY-MM-DD HH:MM:SS.ffffff` naive UTC (Python server) and INTEGER
//! microseconds since the epoch (Rust port).

use std::fmt::Write;
use std::sync::LazyLock;

use chrono::format::{Item, Parsed, StrftimeItems};
use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Timelike, Utc};
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
    let mut out = String::with_capacity(32);
    python_iso_into(t, &mut out);
    out
}

/// [`python_iso`], appended to `out` (an mcp root's load writes one into
/// every row's file).
pub fn python_iso_into(t: DateTime<Utc>, out: &mut String) {
    // Written by the parser's RFC 3339 writer (the model's JSON form, `Z`
    // and 3, 6 or 9 digits as needed), then put in Python's form: chrono's
    // formatting, even with its format parsed once, was ~2,600
    // instructions a time of the ~50,000 a row of an mcp root costs its
    // load. Python keeps microseconds, so the time is cut to them first.
    let micros = t.timestamp_subsec_micros();
    let cut = t.with_nanosecond(micros * 1_000).unwrap_or(t);
    let mut buf = [0u8; 31];
    match amail_parser::rfc3339_text(&cut, &mut buf) {
        Some(text) => {
            out.push_str(text.strip_suffix('Z').unwrap_or(text));
            if micros != 0 && micros % 1_000 == 0 {
                out.push_str("000");
            }
            out.push_str("+00:00");
        }
        // Years outside 0..=9999 and leap seconds: chrono's own writing.
        None => python_iso_by_chrono(t, out),
    }
}

/// [`python_iso_into`] for the times the parser's writer leaves to chrono.
fn python_iso_by_chrono(t: DateTime<Utc>, out: &mut String) {
    // The formats parsed once: parsing the format string on each call was
    // over a third of writing a time (4,100 -> 2,600 instructions).
    static WHOLE: LazyLock<Vec<Item<'static>>> = LazyLock::new(|| items("%Y-%m-%dT%H:%M:%S+00:00"));
    static MICROS: LazyLock<Vec<Item<'static>>> =
        LazyLock::new(|| items("%Y-%m-%dT%H:%M:%S%.6f+00:00"));
    let items = match t.timestamp_subsec_micros() {
        0 => &WHOLE,
        _ => &MICROS,
    };
    let _ = write!(out, "{}", t.format_with_items(items.iter()));
}

fn items(format: &str) -> Vec<Item<'static>> {
    StrftimeItems::new(format)
        .parse_to_owned()
        .expect("a valid format")
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
    if let Some(t) = server_text(s.as_bytes()) {
        return Some(t);
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    // `NaiveDateTime::parse_from_str` with each format, the formats
    // parsed once (see `python_iso_into`).
    static NAIVE: LazyLock<[Vec<Item<'static>>; 4]> = LazyLock::new(|| {
        [
            "%Y-%m-%d %H:%M:%S%.f",
            "%Y-%m-%dT%H:%M:%S%.f",
            "%Y-%m-%d %H:%M:%S",
            "%Y-%m-%dT%H:%M:%S",
        ]
        .map(items)
    });
    for items in NAIVE.iter() {
        let mut parsed = Parsed::new();
        let naive = chrono::format::parse(&mut parsed, s, items.iter())
            .and_then(|()| parsed.to_naive_datetime_with_offset(0));
        if let Ok(n) = naive {
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

/// The Python server's own text, `YYYY-MM-DD HH:MM:SS.ffffff` (SQLAlchemy
/// writes all six digits), read by hand: it is every time of every row of
/// such a root, and chrono's general reading (an RFC 3339 attempt, then
/// the first naive format) was ~1,900 instructions a row. `None` for any
/// other text, and for a date or time that does not exist (a leap second
/// among them): [`parse_text`] then reads it as before. Not the parser's
/// reader of that spelling (`amail_parser::parse_timestamp`): it also
/// takes an offset after the fraction (`6375-09-10 15:05:27.8+0000`),
/// which `parse_text`'s formats do not, so a database's text would read
/// otherwise (`the_server_form_changed_is_read_as_chrono_reads_it`).
fn server_text(s: &[u8]) -> Option<DateTime<Utc>> {
    let marks = [
        (4, b'-'),
        (7, b'-'),
        (10, b' '),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
    ];
    if s.len() != 26 || marks.iter().any(|&(i, b)| s[i] != b) {
        return None;
    }
    let number = |at: usize, len: usize| {
        s[at..at + len].iter().try_fold(0u32, |n, &b| {
            b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
        })
    };
    let date = NaiveDate::from_ymd_opt(
        i32::try_from(number(0, 4)?).ok()?,
        number(5, 2)?,
        number(8, 2)?,
    )?;
    let time = NaiveTime::from_hms_micro_opt(
        number(11, 2)?,
        number(14, 2)?,
        number(17, 2)?,
        number(20, 6)?,
    )?;
    Some(Utc.from_utc_datetime(&date.and_time(time)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

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

    proptest::proptest! {
        /// Written as chrono writes the format each time (years of four
        /// digits and not, whole seconds and not).
        #[test]
        fn python_iso_is_the_format_written(
            micros in proptest::prop_oneof![
                -62_135_596_800_000_000i64..253_402_300_799_999_999,
                (0i64..4_000_000_000).prop_map(|s| s * 1_000_000),
                proptest::num::i64::ANY.prop_map(|m| m / 1_000),
            ]
        ) {
            let Some(t) = from_micros(micros) else { return Ok(()) };
            let format = match t.timestamp_subsec_micros() {
                0 => "%Y-%m-%dT%H:%M:%S+00:00",
                _ => "%Y-%m-%dT%H:%M:%S%.6f+00:00",
            };
            proptest::prop_assert_eq!(python_iso(t), t.format(format).to_string());
        }

        /// Read as `NaiveDateTime::parse_from_str` reads each format in
        /// turn, after RFC 3339 (the server's text, ISO forms, and text
        /// that is neither).
        #[test]
        fn text_is_read_as_chrono_reads_its_formats(
            micros in -62_135_596_800_000_000i64..253_402_300_799_999_999,
            form in 0usize..6,
            noise in proptest::sample::select(vec!["", " ", "Z", "+01:00", "x", ".", "\t"]),
        ) {
            let t = from_micros(micros).unwrap();
            let forms = [
                format_text(t),
                t.format("%Y-%m-%dT%H:%M:%S%.f").to_string(),
                t.format("%Y-%m-%d %H:%M:%S").to_string(),
                t.format("%Y-%m-%dT%H:%M").to_string(),
                python_iso(t),
                t.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
            ];
            let text = format!("{}{noise}", forms[form]);
            proptest::prop_assert_eq!(parse_text(&text), by_chrono(&text));
        }

        /// The server's own form with one byte changed (a digit, a mark,
        /// a letter): read as chrono reads it, whether it still is that
        /// form or not (out-of-range fields, leap seconds, `T`).
        #[test]
        fn the_server_form_changed_is_read_as_chrono_reads_it(
            micros in -62_135_596_800_000_000i64..253_402_300_799_999_999,
            at in 0usize..26,
            byte in proptest::sample::select(b"0123456789 -:.Tx+Z".to_vec()),
        ) {
            let mut text = format_text(from_micros(micros).unwrap()).into_bytes();
            text[at] = byte;
            let text = String::from_utf8(text).unwrap();
            proptest::prop_assert_eq!(parse_text(&text), by_chrono(&text));
        }

        /// Any time in nanoseconds: Python's form keeps microseconds,
        /// as chrono's `%.6f` writes them.
        #[test]
        fn python_iso_cuts_to_microseconds(
            secs in -62_135_596_800i64..253_402_300_799,
            nanos in proptest::prop_oneof![0u32..1_000_000_000, (0u32..1_000).prop_map(|m| m * 1_000_000)],
        ) {
            let t = DateTime::from_timestamp(secs, nanos).unwrap();
            let format = match t.timestamp_subsec_micros() {
                0 => "%Y-%m-%dT%H:%M:%S+00:00",
                _ => "%Y-%m-%dT%H:%M:%S%.6f+00:00",
            };
            proptest::prop_assert_eq!(python_iso(t), t.format(format).to_string());
        }
    }

    /// Leap seconds, which the hand-written paths leave to chrono.
    #[test]
    fn leap_seconds_are_chronos() {
        let text = "2026-12-31 23:59:60.500000";
        assert_eq!(parse_text(text), by_chrono(text));
        let leap = chrono::NaiveDate::from_ymd_opt(2026, 12, 31)
            .unwrap()
            .and_hms_micro_opt(23, 59, 59, 1_500_000)
            .unwrap()
            .and_utc();
        assert_eq!(
            python_iso(leap),
            leap.format("%Y-%m-%dT%H:%M:%S%.6f+00:00").to_string()
        );
    }

    /// The test's oracle: `NaiveDateTime::parse_from_str` with each
    /// format in turn, after RFC 3339, then the space-and-offset form.
    fn by_chrono(text: &str) -> Option<DateTime<Utc>> {
        let s = text.trim();
        if let Ok(t) = DateTime::parse_from_rfc3339(s) {
            return Some(t.with_timezone(&Utc));
        }
        [
            "%Y-%m-%d %H:%M:%S%.f",
            "%Y-%m-%dT%H:%M:%S%.f",
            "%Y-%m-%d %H:%M:%S",
            "%Y-%m-%dT%H:%M:%S",
        ]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(s, f).ok())
        .map(|n| Utc.from_utc_datetime(&n))
        .or_else(|| {
            let t = s.get(..10)?.to_string() + "T" + s.get(11..)?;
            let t = DateTime::parse_from_rfc3339(&t).ok()?;
            (s.as_bytes()[10] == b' ').then(|| t.with_timezone(&Utc))
        })
    }
}
