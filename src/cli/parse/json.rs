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
//! - A document of 1 MiB or more that `amail parse` mapped (one big
//!   file) is escaped on a second thread while this one validates and
//!   parses it ([`start_escaping`]): the thread fills 4 MiB maps of huge
//!   pages and hands each over when full; the first message stops it and
//!   takes what it has handed over, and the body and its sections are
//!   written from those pieces (one `write` each) plus what is left,
//!   escaped here as before. Nothing waits for the thread (it holds the
//!   file's map itself, so it is not joined): a thread that got no core
//!   costs the parse only its start. On the summary shape the section is
//!   then not escaped a second time. `bench/run.sh`'s two 10.8 MB shapes,
//!   best of 5 wall as it takes them, runs at real-time priority to
//!   stand in for a free second core on the shared machine (load 4-6):
//!   log 5.37 -> 4.72 ms (`cat` 2.80 ms: 1.91x -> 1.68x), summary 6.51 ->
//!   5.03 ms (2.70 ms: 2.41x -> 1.86x); CPU (task-clock, best of 8 x 10
//!   runs) log 3.77 -> 4.53 ms, summary 4.96 -> 5.06 ms: the pieces'
//!   fresh pages are zeroed by the kernel, about 0.1 ms a MB, which the
//!   log shape does not win back on one core. A first form kept the
//!   whole escaped document in one map and waited for the thread: as
//!   fast with a free core, but at load 4 on both cores the wait for a
//!   thread that had lost its core made the log shape 5.20 -> 5.66 ms
//!   (minimum of 30 runs); stopping it and taking its pieces without a
//!   wait is what is kept.
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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

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
    whole: Option<&'w Escaped<'_>>,
) -> Result<()> {
    Serializer {
        out,
        sink,
        shared: Shared {
            text: &m.body,
            escaped: None,
        },
        whole,
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
    to_vec_whole(out, sink, value, shared, None)
}

/// [`to_vec`] with the document escaped in advance, as
/// [`start_escaping`] hands it over.
#[cfg(test)]
fn to_vec_whole<'w, T: ?Sized + Serialize>(
    out: &'w mut Vec<u8>,
    sink: Option<&'w mut dyn io::Write>,
    value: &T,
    shared: &str,
    whole: Option<&'w Escaped<'_>>,
) -> Result<()> {
    value.serialize(&mut Serializer {
        out,
        sink,
        shared: Shared {
            text: shared,
            escaped: None,
        },
        whole,
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
    /// The whole document escaped in advance, when it was worth it.
    whole: Option<&'w Escaped<'w>>,
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
        if s.len() >= SHARE_MIN {
            if let Some((escaped, rest)) = self.whole.and_then(|w| w.slice_of(s)) {
                return self.whole_string(escaped, rest);
            }
        }
        self.out.push(b'"');
        if s.len() > SEGMENT && self.sink.is_some() {
            // Straight from the escaper to the sink (a section of a body
            // this big cannot be in the buffer: the body went out the
            // same way).
            self.bytes_piece(s.as_bytes())?;
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

    /// A string that is a slice of the document escaped in advance: its
    /// escaped parts, then the rest of it escaped here. Apart from
    /// [`Serializer::string`], which every key and value goes through.
    #[inline(never)]
    fn whole_string(&mut self, escaped: Vec<&[u8]>, rest: &[u8]) -> Result<()> {
        self.out.push(b'"');
        for piece in escaped {
            self.escaped_piece(piece)?;
        }
        self.bytes_piece(rest)?;
        self.out.push(b'"');
        Ok(())
    }

    /// Writes `escaped`, bytes already escaped: a big piece goes out as
    /// it is, with one write, after what is gathered.
    fn escaped_piece(&mut self, escaped: &[u8]) -> Result<()> {
        match self.sink.as_mut() {
            Some(sink) if escaped.len() > SEGMENT => {
                flush_gathered(self.out, &mut self.shared, &mut **sink)?;
                sink.write_all(escaped).map_err(Error::io)?;
            }
            _ => self.out.extend_from_slice(escaped),
        }
        Ok(())
    }

    /// Escapes `bytes`, a piece of a string: a big one straight from the
    /// escaper to the sink.
    fn bytes_piece(&mut self, bytes: &[u8]) -> Result<()> {
        match self.sink.as_mut() {
            Some(sink) if bytes.len() > SEGMENT => {
                flush_gathered(self.out, &mut self.shared, &mut **sink)?;
                escape::stream(&mut **sink, bytes).map_err(Error::io)?;
            }
            _ => escape::escape_bytes(self.out, bytes),
        }
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
        let Some(from) = offset_in(text, s.as_bytes()) else {
            return false;
        };
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

/// Sends what is gathered in `out` to `sink`, ahead of a big piece
/// written straight to it; the shared text's escape leaves with it.
fn flush_gathered(
    out: &mut Vec<u8>,
    shared: &mut Shared<'_>,
    sink: &mut dyn io::Write,
) -> Result<()> {
    sink.write_all(out).map_err(Error::io)?;
    out.clear();
    shared.escaped = None;
    Ok(())
}

/// Where `s` starts in `outer`, if its bytes lie inside `outer`'s (two
/// live slices cannot overlap otherwise: `s` is then a slice of it).
fn offset_in(outer: &[u8], s: &[u8]) -> Option<usize> {
    let (t, a) = (outer.as_ptr() as usize, s.as_ptr() as usize);
    (a >= t && a + s.len() <= t + outer.len()).then(|| a - t)
}

/// Documents at least this long are escaped on a second thread while
/// they are parsed ([`start_escaping`]).
const WHOLE_MIN: usize = 1 << 20;

/// The escaping thread's output comes in maps of this size (two 2 MiB
/// huge pages): each is handed over as soon as it is full.
const PIECE: usize = 4 << 20;

/// A stretch of the document escaped by the thread: `len` bytes of `buf`
/// are the escape of the document's bytes `start..end`.
pub struct Piece {
    buf: memmap2::MmapMut,
    len: usize,
    start: usize,
    end: usize,
}

impl Piece {
    fn escaped(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// The start of a document escaped on a second thread while this one
/// parsed it: any string of a message that is a slice of the document
/// (the body, a section) is, as far as it lies in that start, the
/// matching slices of the pieces, found by counting what the escapes add
/// before its ends; the rest of it is escaped as any string.
pub struct Escaped<'t> {
    whole: &'t [u8],
    /// In order, from the document's start, each starting where the last
    /// ended.
    pieces: Vec<Piece>,
}

impl<'t> Escaped<'t> {
    /// How much of the document the pieces cover.
    fn done(&self) -> usize {
        self.pieces.last().map_or(0, |p| p.end)
    }

    /// `whole` with its first `done` bytes escaped into pieces of
    /// `piece` bytes, as a thread stopped there leaves it.
    #[cfg(test)]
    fn stopped_at(whole: &'t [u8], done: usize, piece: usize) -> Self {
        let mut pieces = Vec::new();
        escape_pieces(&whole[..done], piece, &AtomicBool::new(false), |p| {
            pieces.push(p);
            true
        });
        Escaped { whole, pieces }
    }

    /// `s`, if it is a slice of the document: the escaped forms of its
    /// parts in the pieces (maybe none), and its bytes after them. Asked
    /// only of strings of [`SHARE_MIN`] bytes or more.
    fn slice_of<'s>(&self, s: &'s str) -> Option<(Vec<&[u8]>, &'s [u8])> {
        let from = offset_in(self.whole, s.as_bytes())?;
        let to = from + s.len();
        let mut parts = Vec::new();
        for p in &self.pieces {
            let (a, b) = (from.max(p.start), to.min(p.end));
            if a >= b {
                continue;
            }
            let text = &self.whole[p.start..p.end];
            let (a, b) = (a - p.start, b - p.start);
            let range = escaped_offset(text, p.len, a)..escaped_offset(text, p.len, b);
            parts.push(p.escaped().get(range)?);
        }
        let rest = &s.as_bytes()[self.done().clamp(from, to) - from..];
        Some((parts, rest))
    }
}

/// Starts escaping the document `text` (JSON Lines to a sink) on a
/// second thread, when `text` is at least [`WHOLE_MIN`] long, `owner` holds it (the thread is not waited for, so it holds the
/// document itself: a map of the file) and there is a second core. The
/// caller asks for it with [`Pending::get`] when it writes its first
/// message, which stops the thread and takes the pieces it has handed
/// over: the rest, the caller escapes faster than the thread (which
/// writes fresh memory). Nothing waits for the thread: a thread that did
/// not get a core meanwhile costs the caller nothing but its start.
pub fn start_escaping(text: &[u8], owner: Option<Arc<memmap2::Mmap>>) -> Pending<'_> {
    let owner = owner.filter(|o| std::ptr::eq(&o[..], text));
    let (Some(owner), true) = (owner, text.len() >= WHOLE_MIN) else {
        return Pending::Done(None);
    };
    if amail_core::source::parallel::cores() < 2 {
        return Pending::Done(None);
    }
    let (tx, rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let thread_stop = Arc::clone(&stop);
    let spawned = std::thread::Builder::new()
        .name("escape".into())
        .spawn(move || escape_pieces(&owner, PIECE, &thread_stop, |p| tx.send(p).is_ok()));
    match spawned {
        Ok(_) => Pending::Running { text, rx, stop },
        Err(_) => Pending::Done(None),
    }
}

/// The escaping thread: `text` into pieces of `piece` bytes, each handed
/// to `put` once full, until done, stopped, or `put` takes no more.
fn escape_pieces(text: &[u8], piece: usize, stop: &AtomicBool, mut put: impl FnMut(Piece) -> bool) {
    let mut at = 0;
    while at < text.len() && !stop.load(Ordering::Relaxed) {
        let Ok(mut buf) = memmap2::MmapOptions::new().len(piece).map_anon() else {
            return;
        };
        // Where the kernel gives them: the two pages are two faults, not
        // a thousand.
        #[cfg(target_os = "linux")]
        buf.advise(memmap2::Advice::HugePage).ok();
        let (len, end) = escape::escape_fill(&mut buf, text, at, stop);
        if end == at {
            return;
        }
        let piece = Piece {
            buf,
            len,
            start: at,
            end,
        };
        if !put(piece) {
            return;
        }
        at = end;
    }
}

/// [`start_escaping`]'s document, being escaped or taken.
pub enum Pending<'t> {
    Running {
        text: &'t [u8],
        rx: mpsc::Receiver<Piece>,
        stop: Arc<AtomicBool>,
    },
    Done(Option<Escaped<'t>>),
}

impl<'t> Pending<'t> {
    /// The escaped start of the document: the thread is told to stop
    /// the first time, and what it has handed over is taken as it is.
    // Inline, the taking apart: nearly every document never had a
    // thread, and the call was more than its test.
    #[inline]
    pub fn get(&mut self) -> Option<&Escaped<'t>> {
        if matches!(self, Pending::Running { .. }) {
            self.take();
        }
        match self {
            Pending::Done(e) => e.as_ref(),
            Pending::Running { .. } => None,
        }
    }

    #[cold]
    #[inline(never)]
    fn take(&mut self) {
        if let Pending::Running { text, rx, stop } = self {
            stop.store(true, Ordering::Relaxed);
            let pieces: Vec<Piece> = rx.try_iter().collect();
            let done = (!pieces.is_empty()).then(|| Escaped {
                whole: text,
                pieces,
            });
            *self = Pending::Done(done);
        }
    }
}

impl Drop for Pending<'_> {
    /// A document that was never asked for (its parse failed): the
    /// thread stops at its next window.
    fn drop(&mut self) {
        if let Pending::Running { stop, .. } = self {
            stop.store(true, Ordering::Relaxed);
        }
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

    /// `v` written with its document `body` escaped in advance up to
    /// `done`, through a sink (big pieces go out as they are) or not.
    fn ours_whole<T: Serialize>(v: &T, body: &str, done: usize, sink: bool) -> String {
        let escaped = Escaped::stopped_at(body.as_bytes(), done, escape::FILL_WINDOW * 2);
        let mut out = b"earlier\n".to_vec();
        let mut to = Vec::new();
        let sink = sink.then_some(&mut to as &mut dyn io::Write);
        to_vec_whole(&mut out, sink, v, body, Some(&escaped)).unwrap();
        to.extend_from_slice(&out);
        String::from_utf8(to.split_off(8)).unwrap()
    }

    #[test]
    fn slices_of_a_document_escaped_in_advance_match_serde_json_wherever_it_stopped() {
        // Big enough for the pieces that go straight to the sink, with
        // escapes of every length across the places it stops at.
        let body: String = (0..9_000)
            .map(|i| format!("{i}: \"q\"\t\\ é\u{1}\n"))
            .collect();
        let n = body.len();
        assert!(n > 2 * SEGMENT);
        let cut = |i: usize| (i..n).find(|&j| body.is_char_boundary(j)).unwrap_or(n);
        let parts = [
            &body[..],
            &body[cut(100)..],
            &body[cut(10)..cut(SHARE_MIN + 20)],
            &body[cut(n / 2)..cut(n / 2 + SEGMENT + 5)],
            &body[cut(n - 300)..],
            &body[cut(7)..cut(7 + SHARE_MIN - 1)],
        ];
        let v = Sliced {
            before: "x",
            body: &body,
            parts: parts.to_vec(),
        };
        let theirs = serde_json::to_string(&v).unwrap();
        // Stopped anywhere: at a byte inside a character or an escape's
        // growth counted from either end.
        for done in [0, 1, 63, 64, 65, 4096, n / 2 - 1, n / 2, n - 64, n - 1, n] {
            for sink in [false, true] {
                let ours = ours_whole(&v, &body, done, sink);
                assert!(ours == theirs, "stopped at {done}, sink {sink}");
            }
        }
        // A copy of the document is not a slice of it.
        let copy = body.clone();
        let v = Sliced {
            before: "",
            body: &copy,
            parts: vec![&copy[5..400]],
        };
        assert!(ours_whole(&v, &body, n, true) == serde_json::to_string(&v).unwrap());
    }

    #[test]
    fn start_escaping_hands_over_what_the_thread_escaped_or_nothing() {
        let text = "line \"one\"\t\u{1}\n".repeat(WHOLE_MIN / 8);
        let mut map = memmap2::MmapOptions::new()
            .len(text.len())
            .map_anon()
            .unwrap();
        map.copy_from_slice(text.as_bytes());
        let owner = Arc::new(map.make_read_only().unwrap());
        for _ in 0..20 {
            // Whatever the thread handed over by the time it is asked
            // for: pieces from the start, each the escape of its bytes.
            let mut pending = start_escaping(&owner, Some(Arc::clone(&owner)));
            let Some(e) = pending.get() else { continue };
            let mut at = 0;
            for piece in &e.pieces {
                assert_eq!(piece.start, at);
                let mut theirs = Vec::new();
                escape::escape_bytes(&mut theirs, &owner[piece.start..piece.end]);
                assert!(piece.escaped() == &theirs[..]);
                at = piece.end;
            }
            assert!(e.done() == at && at <= text.len());
        }
        // Small, or not held by the map: nothing, no thread.
        let none = |mut p: Pending<'_>| matches!(p, Pending::Done(None)) && p.get().is_none();
        assert!(none(start_escaping(
            &owner[..100],
            Some(Arc::clone(&owner)),
        )));
        assert!(none(start_escaping(
            text.as_bytes(),
            Some(Arc::clone(&owner)),
        )));
        assert!(none(start_escaping(&owner, None)));
    }

    proptest::proptest! {
        #[test]
        fn any_slice_of_a_document_escaped_in_advance_is_written_as_serde_json_writes_it(
            body in "(?s)[a-z \"\\\\\\x00-\\x1f é]{0,700}",
            cuts in proptest::collection::vec((0usize..800, 0usize..800), 0..6),
            done in 0usize..800,
        ) {
            let parts: Vec<&str> = cuts
                .iter()
                .filter_map(|&(a, b)| body.get(a.min(b)..a.max(b)))
                .collect();
            let v = Sliced { before: "", body: &body, parts };
            let done = done.min(body.len());
            proptest::prop_assert_eq!(ours_whole(&v, &body, done, false), serde_json::to_string(&v).unwrap());
        }

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
