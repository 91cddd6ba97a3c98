//! Compact JSON for `amail parse --format jsonl`, byte for byte what
//! `serde_json::to_writer` prints, with a faster string escaper, and a
//! section of the body escaped once however often it is printed.
//!
//! Almost all of a message's JSON is its body, printed twice (as `body`
//! and usually again, whole or in part, inside `parsed`), and serde_json
//! escapes a string one byte at a time through a table: on a 10.8 MB body
//! that loop was two thirds of the whole process. Here:
//!
//! - Strings are escaped by [`escape`]: sixteen bytes scanned at a time
//!   for the three things JSON must escape (control characters, `"` and
//!   `\`) with one byte mask per block (SSE2 on x86_64), clean stretches
//!   copied whole. A string under sixteen bytes, and an object key with
//!   its quotes and colon, is one fixed-size block: most strings of a
//!   small message are keys.
//! - Output goes into one `Vec<u8>`, not through `io::Write`: a body with
//!   an escape every 30 bytes made a buffered-writer call for each run
//!   and each escape. With a sink, the `Vec` goes out every 256 KiB
//!   ([`FLUSH_AT`]): growing it to a 21 MB output cost more in page faults
//!   than all the escaping. A string over 64 KiB goes to the sink straight
//!   from the escaper's buffer ([`escape::stream`]), not through the `Vec`
//!   (the log shape's escaping 16.5 M -> 14.0 M instructions).
//! - A string that is a slice of the message's body (a section such as a
//!   `## Summary` is borrowed from it) is not escaped again while the
//!   body's escaped bytes are still in the buffer (bodies under 256 KiB,
//!   that is nearly all): they are copied from there. Escaping is byte by
//!   byte and context free, so the escaped slice is a slice of the escaped
//!   body; only where it starts and ends has to be counted.
//!
//! Figures (callgrind, whole `amail parse --format jsonl`): the 10.8 MB
//! summary shape 180.5 M -> 130.6 M instructions, the log shape 80.5 M ->
//! 71.5 M, 10,000 small files 335 M -> 298 M (with the reader and UTF-8
//! changes beside this module). Tried and slower: a speculative 16-byte
//! store per step with the output grown by `resize` (the clean step went
//! from 19 to 32 instructions), and OR-ing two flag words into one test
//! (LLVM then combines them byte by byte: a key cost 3x more).
//!
//! A parsed message, which is what `amail parse` writes, does not go
//! through serde at all: [`message`] writes its members directly with
//! this module's strings and integers. A serde serializer over the same
//! strings (`generic`, test builds only) lets the tests hold the escaper
//! to serde_json on arbitrary values, keys and body slices.
//!
//! Everything else mirrors serde_json's compact output; numbers other than
//! integers are handed to serde_json itself, so they cannot drift. The
//! output is checked against serde_json on every message of the test
//! corpora (`tests` below, and the `tests/cli/parse.rs` tests through the
//! binary) and on arbitrary strings, keys and body slices (property tests).

use std::io;
use std::ops::Range;

#[cfg(test)]
use serde::Serialize;

mod escape;
#[cfg(test)]
mod generic;
mod message;

use escape::{escape_into, growth};

type Error = serde_json::Error;
type Result<T> = std::result::Result<T, Error>;

/// Appends message `m` of the file `name` as compact JSON to `out`,
/// exactly as `serde_json::to_writer` would write it as a
/// [`Located`](super::Located) with the source `name:line`, member by
/// member (see [`message`]); its body is the text its sections are slices
/// of. `sink` as in [`to_vec`].
pub fn message_to_vec<'w>(
    out: &'w mut Vec<u8>,
    sink: Option<&'w mut dyn io::Write>,
    name: &str,
    m: &amail_parser::Message<'_>,
) -> Result<()> {
    Serializer {
        out,
        sink,
        shared: Shared {
            text: &m.body,
            escaped: None,
        },
    }
    .message(name, m)
}

/// Appends `value` as compact JSON to `out`, exactly as
/// `serde_json::to_writer` would write it. `shared` is the text other
/// strings of `value` may be slices of (the message's body): once it has
/// been written, such slices are copied from its escaped bytes.
///
/// With a `sink`, `out` is written to it and emptied whenever it passes
/// [`FLUSH_AT`], so a huge body goes out in pieces through one small
/// buffer instead of growing `out` to its size: fresh memory costs a page
/// fault per 4 KiB (about 3.4 µs each on the machines measured, 0.85 ms a
/// MB), more than escaping the bytes. A slice of a body that has gone out
/// is then escaped again.
// Only the tests write arbitrary values: `amail parse` writes messages
// through [`message_to_vec`].
#[cfg(test)]
pub fn to_vec<'w, T: ?Sized + Serialize>(
    out: &'w mut Vec<u8>,
    sink: Option<&'w mut dyn io::Write>,
    value: &T,
    shared: &str,
) -> Result<()> {
    value.serialize(&mut Serializer {
        out,
        sink,
        shared: Shared {
            text: shared,
            escaped: None,
        },
    })
}

/// How much output is gathered before it goes to the sink. A section of a
/// body that has gone out is escaped again: on the 10.8 MB summary shape,
/// keeping the whole escaped body to copy its `## Summary` from (this at
/// 64 MiB) ran 53.2 M instructions against 75.2 M, but 50-62 ms of CPU
/// against 27-34 ms (`perf stat -r 10`, load 7): the kept body's fresh
/// pages cost more than escaping 10.8 MB again.
pub const FLUSH_AT: usize = 256 * 1024;

/// With a sink, strings longer than this go to it straight from the
/// escaper ([`escape::stream`]) instead of through the output buffer.
const SEGMENT: usize = 64 * 1024;

struct Serializer<'w, 's> {
    out: &'w mut Vec<u8>,
    sink: Option<&'w mut dyn io::Write>,
    shared: Shared<'s>,
}

/// The text whose slices are escaped once, and where in the output its
/// escaped form is once it has been written.
struct Shared<'s> {
    text: &'s str,
    escaped: Option<Range<usize>>,
}

/// Strings shorter than this are escaped, not looked up: the lookup and
/// the counting would cost more than the escaping.
const SHARE_MIN: usize = 256;

impl Serializer<'_, '_> {
    fn raw(&mut self, b: &[u8]) -> Result<()> {
        self.out.extend_from_slice(b);
        Ok(())
    }

    fn string(&mut self, s: &str) -> Result<()> {
        self.out.push(b'"');
        if let (true, Some(sink)) = (s.len() > SEGMENT, self.sink.as_mut()) {
            // What is gathered goes first, then the string straight from
            // the escaper (a section of a body this big cannot be in the
            // buffer: the body went out the same way).
            sink.write_all(self.out).map_err(Error::io)?;
            self.out.clear();
            self.shared.escaped = None;
            escape::stream(&mut **sink, s.as_bytes()).map_err(Error::io)?;
        } else if !(s.len() >= SHARE_MIN && self.copy_shared(s)) {
            let start = self.out.len();
            escape_into(self.out, s);
            let text = self.shared.text;
            if self.shared.escaped.is_none()
                && s.len() == text.len()
                && std::ptr::eq(s.as_ptr(), text.as_ptr())
            {
                self.shared.escaped = Some(start..self.out.len());
            }
        }
        self.out.push(b'"');
        Ok(())
    }

    /// Writes `s` from the escaped shared text if it is a slice of it
    /// (its bytes lie inside the shared text's: two live strings cannot
    /// overlap otherwise). `false`: not a slice, or the shared text not
    /// written yet; nothing written.
    fn copy_shared(&mut self, s: &str) -> bool {
        let Some(escaped) = self.shared.escaped.clone() else {
            return false;
        };
        let text = self.shared.text.as_bytes();
        let (t, a) = (text.as_ptr() as usize, s.as_ptr() as usize);
        if a < t || a + s.len() > t + text.len() {
            return false;
        }
        let from = a - t;
        let to = from + s.len();
        let len = escaped.len();
        let range = escaped.start + escaped_offset(text, len, from)
            ..escaped.start + escaped_offset(text, len, to);
        self.out.extend_from_within(range);
        true
    }

    /// Integers as serde_json prints them: through `itoa`, as it does.
    fn integer(&mut self, v: impl itoa::Integer) -> Result<()> {
        self.raw(itoa::Buffer::new().format(v).as_bytes())
    }
}

/// Where byte `i` of `text` starts in its escaped form (`escaped_len`
/// bytes long), counted from the nearer end: a section near the end of a
/// long body costs a count over its few bytes to either end.
fn escaped_offset(text: &[u8], escaped_len: usize, i: usize) -> usize {
    if i <= text.len() - i {
        i + growth(&text[..i])
    } else {
        escaped_len - (text.len() - i) - growth(&text[i..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn ours<T: Serialize>(v: &T) -> String {
        let mut out = Vec::new();
        to_vec(&mut out, None, v, "").unwrap();
        String::from_utf8(out).unwrap()
    }

    fn same<T: Serialize>(v: &T) {
        assert_eq!(ours(v), serde_json::to_string(v).unwrap());
    }

    #[test]
    fn every_byte_escapes_as_serde_json_does() {
        let all: String = (0u8..=0x7f).map(char::from).collect();
        same(&all);
        // At every offset and length, so the block scan and the padded
        // tail both meet each escape.
        let text = "ab\"c\\d\u{1}e\u{1f}f\tg\nh\u{7f}i é😀 j\u{0}k  ";
        for start in 0..text.len() {
            for end in start..=text.len() {
                if let Some(s) = text.get(start..end) {
                    same(&s);
                }
            }
        }
        // High bytes next to escapes: the borrow tricks must not misfire.
        same(&"\u{a0}\u{ff}\u{100}\"\u{1}\u{80}\\ÿ\u{9f}\u{1f}");
    }

    #[test]
    fn escapes_in_long_strings_match_serde_json() {
        // Every escape kind at every position of strings long enough for
        // the sixteen-byte blocks and the tail, one escape or two.
        for esc in ['"', '\\', '\n', '\u{1}', '\u{1f}'] {
            for len in [15, 16, 17, 31, 32, 33, 47, 64, 65, 100] {
                for at in 0..len {
                    let mut s: String = "a".repeat(len);
                    s.replace_range(at..at + 1, &esc.to_string());
                    same(&s);
                    s.push_str(&"é".repeat(at));
                    s.push(esc);
                    same(&s);
                }
            }
        }
        let long: String = (0..2000)
            .map(|i| if i % 97 == 0 { '\n' } else { 'x' })
            .collect();
        same(&long);
    }

    #[test]
    fn values_and_containers_match_serde_json() {
        #[derive(serde::Serialize)]
        enum E {
            Unit,
            New(u8),
            Tuple(u8, &'static str),
            Struct { a: Option<u8>, b: f64 },
        }
        #[derive(serde::Serialize)]
        struct Inner {
            x: Vec<u8>,
            y: Option<bool>,
            z: (),
        }
        #[derive(serde::Serialize)]
        struct Outer {
            s: String,
            #[serde(flatten)]
            inner: Inner,
            e: Vec<E>,
            f: [f64; 4],
            m: BTreeMap<u32, char>,
            n: i64,
            c: char,
            empty: Vec<String>,
        }
        same(&Outer {
            s: "line\nnext".into(),
            inner: Inner {
                x: vec![1, 2, 255],
                y: None,
                z: (),
            },
            e: vec![
                E::Unit,
                E::New(7),
                E::Tuple(1, "t"),
                E::Struct { a: None, b: 0.1 },
            ],
            f: [1e300, -0.0, f64::NAN, 45.0],
            m: [(1, 'a'), (20, '"')].into_iter().collect(),
            n: i64::MIN,
            c: '\n',
            empty: vec![],
        });
        same(&chrono::DateTime::<chrono::Utc>::from_timestamp(1_700_000_000, 5).unwrap());
    }

    #[test]
    fn keys_of_every_length_match_serde_json() {
        // Around the one-block key's limits (16 and 30 bytes), clean and
        // with an escape at either end; first in the object and not.
        for n in 0..40 {
            for esc in ["", "\"", "\n", "\\"] {
                let plain = "k".repeat(n);
                for key in [
                    plain.clone(),
                    format!("{esc}{plain}"),
                    format!("{plain}{esc}"),
                ] {
                    let map: BTreeMap<&str, u8> =
                        [("", 0), (key.as_str(), 1)].into_iter().collect();
                    same(&map);
                    same(&[(key.as_str(), 1)].into_iter().collect::<BTreeMap<_, _>>());
                }
            }
        }
    }

    #[test]
    fn integers_and_map_keys_match_serde_json() {
        same(&(
            i8::MIN,
            i16::MIN,
            i32::MIN,
            i64::MIN,
            i128::MIN,
            -1i64,
            0i64,
        ));
        same(&(
            u8::MAX,
            u16::MAX,
            u32::MAX,
            u64::MAX,
            u128::MAX,
            0u64,
            10u64,
        ));
        same(&[(i128::MIN, 1u8)].into_iter().collect::<BTreeMap<_, _>>());
        same(&[(u64::MAX, 1u8)].into_iter().collect::<BTreeMap<_, _>>());
        same(
            &[(true, 1u8), (false, 0)]
                .into_iter()
                .collect::<BTreeMap<_, _>>(),
        );
    }

    /// A message-like value whose later fields are slices of its body,
    /// as a parsed message's sections are.
    #[derive(serde::Serialize)]
    struct Sliced<'a> {
        before: &'a str,
        body: &'a str,
        parts: Vec<&'a str>,
    }

    /// `value` written with `shared` after some earlier output, as a
    /// worker's chunk holds the messages before it.
    fn ours_shared<T: Serialize>(v: &T, shared: &str) -> String {
        let mut out = b"earlier output\n".to_vec();
        to_vec(&mut out, None, v, shared).unwrap();
        String::from_utf8(out.split_off(15)).unwrap()
    }

    #[test]
    fn slices_of_the_body_are_copied_as_serde_json_escapes_them() {
        let body: String = (0..200)
            .map(|i| format!("line {i}: \"quoted\"\t\\ é\u{1}\n"))
            .collect();
        let n = body.len();
        let cuts = [0, 1, 16, 300, n / 2, n - 300, n - 1, n];
        let mut parts = Vec::new();
        for &a in &cuts {
            for &b in &cuts {
                if a <= b && body.is_char_boundary(a) && body.is_char_boundary(b) {
                    parts.push(&body[a..b]);
                }
            }
        }
        let v = Sliced {
            before: &body[n - 400..],
            body: &body,
            parts,
        };
        assert_eq!(ours_shared(&v, &body), serde_json::to_string(&v).unwrap());
        // An equal text elsewhere is not a slice: escaped on its own.
        let copy = body.clone();
        assert_eq!(ours_shared(&v, &copy), serde_json::to_string(&v).unwrap());
    }

    #[test]
    fn a_huge_body_streams_through_the_sink_and_its_slices_are_escaped_again() {
        // Past FLUSH_AT and several segments, with escapes across the
        // segment edges.
        let body: String = (0..40_000)
            .map(|i| format!("{i} \"q\"\t\\ é\u{1}\n"))
            .collect();
        assert!(body.len() > FLUSH_AT + 3 * SEGMENT);
        let n = body.len();
        let v = Sliced {
            before: "x",
            body: &body,
            parts: vec![&body[n - 1000..], &body[10..SEGMENT + 20], &body],
        };
        let mut sink = Vec::new();
        let mut out = b"earlier\n".to_vec();
        to_vec(&mut out, Some(&mut sink), &v, &body).unwrap();
        // Everything went out in order, what was in the buffer first too.
        assert!(sink.len() >= FLUSH_AT && out.len() < FLUSH_AT + SEGMENT * 6);
        sink.extend_from_slice(&out);
        let expected = format!("earlier\n{}", serde_json::to_string(&v).unwrap());
        assert!(String::from_utf8(sink).unwrap() == expected);
    }

    proptest::proptest! {
        #[test]
        fn any_string_escapes_as_serde_json_does(
            s in "(?s)[a-z \"\\\\\\x00-\\x1f\\x7f-\\u{3ff}😀]{0,80}|.{0,300}"
        ) {
            proptest::prop_assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
        }

        #[test]
        fn any_map_keys_are_written_as_serde_json_writes_them(
            map in proptest::collection::btree_map(
                "(?s)[a-z_ \"\\\\\\x00-\\x1f é]{0,40}",
                proptest::option::of(0u8..3),
                0..8,
            )
        ) {
            proptest::prop_assert_eq!(ours(&map), serde_json::to_string(&map).unwrap());
        }

        #[test]
        fn any_slice_of_the_body_is_written_as_serde_json_writes_it(
            body in "(?s)[a-z \"\\\\\\x00-\\x1f é]{0,700}",
            cuts in proptest::collection::vec((0usize..800, 0usize..800), 0..6),
        ) {
            let parts: Vec<&str> = cuts
                .iter()
                .filter_map(|&(a, b)| body.get(a.min(b)..a.max(b)))
                .collect();
            let v = Sliced { before: "", body: &body, parts };
            proptest::prop_assert_eq!(ours_shared(&v, &body), serde_json::to_string(&v).unwrap());
        }
    }
}
