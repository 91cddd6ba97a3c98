//! One parsed message as a JSON Lines record, written field by field
//! instead of through its `Serialize` impl: byte for byte what
//! `serde_json::to_writer` prints for a [`Located`](crate::cli::parse::Located) message.
//!
//! Through serde, every member is a call chain (the flattened `Located`
//! goes through serde's map adapter, each key is checked for escapes, each
//! `Option` dispatched), and a message has 47 members, 30 of them the
//! `parsed` fields, which are nearly all `null`. Here a member is one
//! constant (`,"key":null`, or `,"key":"` before a string) and a branch.
//!
//! Figures (callgrind, whole `amail parse --format jsonl` over the 10,000
//! small files of `bench/run.sh`): 265.6 M -> 215.7 M instructions, the
//! JSON's share 101.1 M -> 51.0 M; what is left of it is mostly the
//! strings' escaping (33 M). The timestamp is written by the model's own
//! text function, called directly: 213.6 M -> 210.7 M for the whole run.
//!
//! Tenth round (the same run; the JSON 38.55 M -> 30.52 M, 3,855 -> 3,052
//! instructions a message, of which about 460 are the nine files over
//! 1 KB and 346 the model's timestamp text; `docs/performance.md` has the
//! steps):
//! - `parsed` goes out as runs of one constant with every member `null`,
//!   an absent member one test and a present one a copy of the run
//!   before it ([`Runs`]: `parsed`'s own instructions 489 -> 222);
//! - a string under 256 bytes (the length from which a slice of the body
//!   is looked up: all of a small message's) is escaped inline
//!   ([`Serializer::text`]), not through [`Serializer::string`]'s call,
//!   frame and checks (about 70 instructions a string);
//! - the source is the name escaped, `:` and the line, not a string
//!   joined first; the type and a raw type that is its own token are one
//!   block made once per type; keys and the constants around them (a
//!   list's brackets, a string's opening quote, a one-digit line's `:`
//!   and closing quote) go out as one write: each write of the output
//!   `Vec` checks its room and stores its length again (about 8
//!   instructions).
//!
//! Tried and dropped: a fixed 32-byte window for `parsed`'s short runs
//! instead of `memcpy` (no gain); a 16-30-byte string as two padded
//! blocks instead of the escaper's call (worse).
//!
//! The record mirrors the derive in `amail_parser::model`: the structs are
//! destructured without `..`, so a field added there fails to compile here
//! until it is written, and the tests compare the output with serde_json's
//! on every message of the parser's fixture corpora. The timestamp is the
//! one field with its own format: it is written by the function the
//! model's `Serialize` impl uses (`amail_parser::rfc3339_text`), so the
//! format has one home.

use std::borrow::Cow;
use std::sync::LazyLock;

use amail_parser::{Diagnostic, Message, MessageType, Parsed, Severity};

use super::{Result, Serializer};

impl Serializer<'_, '_> {
    /// Writes message `m` of the file `name` as `serde_json::to_writer`
    /// writes it as a [`Located`](crate::cli::parse::Located) with the
    /// source `name:line`.
    pub(super) fn message(&mut self, name: &str, m: &Message<'_>) -> Result<()> {
        let Message {
            id,
            kind,
            raw_type,
            is_reply,
            subject,
            from,
            to,
            cc,
            thread_id,
            timestamp,
            ack_required,
            importance,
            body,
            parsed,
            diagnostics,
            project: _,
            line,
        } = m;
        // `name:line` escaped is `name` escaped, `:` and the digits (none
        // of them escaped): written as they are, not joined in a string
        // first (a copy and a call to escape it, about 110 instructions a
        // message).
        self.raw(b"{\"source\":\"")?;
        super::escape_into(self.out, name);
        match u8::try_from(*line) {
            // A file of one message (nearly all) starts at line 1.
            Ok(digit @ 0..=9) => self.raw(&[b':', b'0' + digit, b'"'])?,
            _ => {
                self.raw(b":")?;
                self.integer(*line)?;
                self.raw(b"\"")?;
            }
        }
        // An optional string member: `,"key":null`, or `,"key":"` and the
        // string after its opening quote (one write for the key and the
        // quote).
        macro_rules! opt_str {
            ($key:literal, $v:expr) => {
                match $v {
                    None => self.raw(concat!(",\"", $key, "\":null").as_bytes())?,
                    Some(v) => {
                        self.raw(concat!(",\"", $key, "\":\"").as_bytes())?;
                        self.text_open(v)?;
                    }
                }
            };
        }
        opt_str!("id", id);
        // The type, and the raw type with it when it is the type's own
        // token (every known type's): one fixed-size copy of a block made
        // once, where the two were a `memcpy` of the token and the raw
        // type escaped (about 50 instructions a message).
        let typed = &TYPES[*kind as usize];
        if raw_type.as_deref() == Some(kind.as_str()) {
            self.window(&typed.both, typed.both_len);
        } else {
            self.window(&typed.both, typed.kind_len);
            opt_str!("raw_type", raw_type);
        }
        self.raw(if *is_reply {
            b",\"is_reply\":true,\"subject\":\""
        } else {
            b",\"is_reply\":false,\"subject\":\""
        })?;
        self.text_open(subject)?;
        opt_str!("from", from);
        // The lists' brackets go with the keys: a write less each.
        self.raw(b",\"to\":[")?;
        self.items(to)?;
        self.raw(b"],\"cc\":[")?;
        self.items(cc)?;
        self.raw(b"]")?;
        opt_str!("thread_id", thread_id);
        self.raw(b",\"timestamp\":")?;
        self.timestamp(timestamp.as_ref())?;
        self.raw(if *ack_required {
            b",\"ack_required\":true,\"importance\":\""
        } else {
            b",\"ack_required\":false,\"importance\":\""
        })?;
        self.text_open(importance)?;
        self.raw(b",\"body\":\"")?;
        // Noted as the shared text's escaped form (for its slices) only
        // when it is long enough to hold one worth looking up.
        self.text_open(body)?;
        self.raw(b",\"parsed\":")?;
        self.parsed(parsed)?;
        self.raw(b",\"diagnostics\":[")?;
        for (i, d) in diagnostics.iter().enumerate() {
            if i > 0 {
                self.raw(b",")?;
            }
            self.diagnostic(d)?;
        }
        self.raw(b"]}")
    }

    fn parsed(&mut self, p: &Parsed<'_>) -> Result<()> {
        let Parsed {
            bead_id,
            title,
            started_at,
            status,
            step,
            context_usage,
            files_touched,
            issue_type,
            problem,
            what_tried,
            question,
            guidance,
            commit_sha,
            files,
            tests_pass,
            lint_pass,
            build_pass,
            summary,
            failure_type,
            reason,
            internal_attempts,
            recommendation,
            checkpoint_reason,
            partial_commit_sha,
            progress,
            next_steps,
            issue_id,
            resume,
            orchestrator,
            session,
        } = p;
        // Members in the struct's order, each a call that writes nothing
        // while the member is absent (see `Runs`).
        let mut r = Runs::new();
        // A present member: the run up to its key, then its value,
        // written in place (through a closure LLVM kept the writer out of
        // line, a call per value).
        macro_rules! member {
            ($v:expr, |$x:ident| $write:expr) => {{
                if let Some($x) = $v {
                    r.key(self)?;
                    $write?;
                }
                r.next();
            }};
        }
        member!(bead_id, |s| self.text(s));
        member!(title, |s| self.text(s));
        member!(started_at, |s| self.text(s));
        member!(status, |s| self.text(s));
        member!(step, |s| self.text(s));
        member!(*context_usage, |n| self.integer(n));
        member!(files_touched, |l| self.strings(l));
        member!(issue_type, |s| self.text(s));
        member!(problem, |s| self.text(s));
        member!(what_tried, |s| self.text(s));
        member!(question, |s| self.text(s));
        member!(guidance, |s| self.text(s));
        member!(commit_sha, |s| self.text(s));
        member!(files, |l| self.strings(l));
        member!(*tests_pass, |b| self.boolean(b));
        member!(*lint_pass, |b| self.boolean(b));
        member!(*build_pass, |b| self.boolean(b));
        member!(summary, |s| self.text(s));
        member!(failure_type, |s| self.text(s));
        member!(reason, |s| self.text(s));
        member!(*internal_attempts, |n| self.integer(n));
        member!(recommendation, |s| self.text(s));
        member!(checkpoint_reason, |s| self.text(s));
        member!(partial_commit_sha, |s| self.text(s));
        member!(progress, |s| self.text(s));
        member!(next_steps, |s| self.text(s));
        member!(issue_id, |s| self.text(s));
        member!(*resume, |b| self.boolean(b));
        member!(orchestrator, |s| self.text(s));
        member!(session, |s| self.text(s));
        r.finish(self)
    }

    fn boolean(&mut self, b: bool) -> Result<()> {
        self.raw(if b { b"true" } else { b"false" })
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> Result<()> {
        let Diagnostic {
            severity,
            line,
            column,
            code,
            message,
        } = d;
        self.raw(match severity {
            Severity::Info => b"{\"severity\":\"info\",\"line\":",
            Severity::Warning => b"{\"severity\":\"warning\",\"line\":",
            Severity::Error => b"{\"severity\":\"error\",\"line\":",
        })?;
        self.integer(*line)?;
        self.raw(b",\"column\":")?;
        self.integer(*column)?;
        self.raw(b",\"code\":")?;
        self.text(code)?;
        self.raw(b",\"message\":\"")?;
        // A note is pieces joined where it is read (`Note`): escaping goes
        // byte by byte, so the pieces' escapes in turn are the text's.
        for piece in message.pieces() {
            super::escape_into(self.out, piece);
        }
        self.raw(b"\"}")
    }

    /// A string value. One under [`super::SHARE_MIN`] bytes (all of a
    /// small message's but, at times, its body) is escaped here, inlined:
    /// nothing of [`Serializer::string`]'s sharing and streaming applies
    /// to it (a slice of the body is looked up from that length, a string
    /// streamed from 64 KiB, and a body this short holds no slice that
    /// long), and its call, frame and checks cost about 70 instructions a
    /// string, as much as escaping one under sixteen bytes (a padded
    /// block, inlined too).
    #[inline(always)]
    fn text(&mut self, s: &str) -> Result<()> {
        self.out.push(b'"');
        self.text_open(s)
    }

    /// [`Serializer::text`] after its opening quote, written with the
    /// key before it (a write less).
    #[inline(always)]
    fn text_open(&mut self, s: &str) -> Result<()> {
        if s.len() < super::SHARE_MIN {
            super::escape_into(self.out, s);
            self.out.push(b'"');
            Ok(())
        } else {
            // `string` writes its own quotes (and may hand what is
            // gathered to the sink first).
            self.out.pop();
            self.string(s)
        }
    }

    /// The first `len` bytes of `block`: one fixed-size copy, cut (where
    /// the text's own length made a `memcpy` call).
    #[inline(always)]
    fn window<const N: usize>(&mut self, block: &[u8; N], len: usize) {
        let at = self.out.len();
        self.out.extend_from_slice(block);
        self.out.truncate(at + len);
    }

    /// A list of strings (inlined: `to` and `cc` hold one name or none,
    /// and the call cost more than writing them).
    #[inline(always)]
    fn strings(&mut self, list: &[Cow<'_, str>]) -> Result<()> {
        self.raw(b"[")?;
        self.items(list)?;
        self.raw(b"]")
    }

    /// A list's strings, without its brackets.
    #[inline(always)]
    fn items(&mut self, list: &[Cow<'_, str>]) -> Result<()> {
        for (i, s) in list.iter().enumerate() {
            if i > 0 {
                self.raw(b",")?;
            }
            self.text(s)?;
        }
        Ok(())
    }

    /// The message's `timestamp` as its `Serialize` impl writes it: the
    /// model's own text (`amail_parser::rfc3339_text`), or chrono's serde
    /// form for the years and leap seconds that text leaves to chrono.
    fn timestamp(&mut self, t: Option<&chrono::DateTime<chrono::Utc>>) -> Result<()> {
        let Some(t) = t else {
            return self.raw(b"null");
        };
        let mut buf = [0u8; 31];
        let start = buf.as_ptr();
        match amail_parser::rfc3339_text(t, &mut buf) {
            // Digits, '-', ':', '.', 'T' and 'Z': nothing to escape.
            Some(text) => {
                self.out.push(b'"');
                let (n, at_start) = (text.len(), std::ptr::eq(text.as_ptr(), start));
                if at_start {
                    // The text is the buffer's start (as the model writes
                    // it): the whole buffer copied, then cut.
                    self.window(&buf, n);
                } else {
                    self.raw(text.as_bytes())?;
                }
                self.out.push(b'"');
                Ok(())
            }
            // Years past 9999 and leap seconds (rare): chrono's serde form,
            // through serde_json itself.
            None => {
                let text = serde_json::to_vec(t)?;
                self.raw(&text)
            }
        }
    }
}

/// The room for `,"type":"T","raw_type":"T"` (the longest type token is
/// 14 bytes).
const TYPE_BLOCK: usize = 64;

/// A message type's members as one block: `,"type":"T"`, and
/// `,"type":"T","raw_type":"T"` for a raw type that is the token itself.
struct Typed {
    both: [u8; TYPE_BLOCK],
    /// The length of `,"type":"T"`.
    kind_len: usize,
    /// The length of both members.
    both_len: usize,
}

/// Every type's block, at its discriminant, made from the model's own
/// tokens (`MessageType::as_str`) the first time it is read.
static TYPES: LazyLock<Vec<Typed>> = LazyLock::new(|| {
    let mut types: Vec<Typed> = Vec::new();
    for kind in MessageType::KNOWN.into_iter().chain([MessageType::Unknown]) {
        let i = kind as usize;
        let mut text = format!(",\"type\":\"{}\"", kind.as_str());
        let kind_len = text.len();
        text.push_str(&format!(",\"raw_type\":\"{}\"", kind.as_str()));
        let mut both = [b' '; TYPE_BLOCK];
        both[..text.len()].copy_from_slice(text.as_bytes());
        if types.len() <= i {
            types.resize_with(i + 1, || Typed {
                both: [0; TYPE_BLOCK],
                kind_len: 0,
                both_len: 0,
            });
        }
        types[i] = Typed {
            both,
            kind_len,
            both_len: text.len(),
        };
    }
    types
});

/// `parsed`'s keys in the struct's (and so serde's) order.
const PARSED_KEYS: [&str; 30] = [
    "bead_id",
    "title",
    "started_at",
    "status",
    "step",
    "context_usage",
    "files_touched",
    "issue_type",
    "problem",
    "what_tried",
    "question",
    "guidance",
    "commit_sha",
    "files",
    "tests_pass",
    "lint_pass",
    "build_pass",
    "summary",
    "failure_type",
    "reason",
    "internal_attempts",
    "recommendation",
    "checkpoint_reason",
    "partial_commit_sha",
    "progress",
    "next_steps",
    "issue_id",
    "resume",
    "orchestrator",
    "session",
];

/// `{"bead_id":null,"title":null,...,"session":null}`: `parsed` with
/// every member absent.
const ALL_NULL_LEN: usize = all_null_len();
static ALL_NULL: [u8; ALL_NULL_LEN] = all_null().0;
/// Where each member's `null` starts in [`ALL_NULL`].
static NULL_AT: [usize; 30] = all_null().1;

const fn all_null_len() -> usize {
    let mut n = 1;
    let mut i = 0;
    while i < PARSED_KEYS.len() {
        // `{` or `,`, the quoted key, `:`, `null`.
        n += 1 + PARSED_KEYS[i].len() + 3 + 4;
        i += 1;
    }
    n
}

const fn all_null() -> ([u8; ALL_NULL_LEN], [usize; 30]) {
    let mut out = [0u8; ALL_NULL_LEN];
    let mut null_at = [0usize; 30];
    let mut n = 0;
    let mut i = 0;
    while i < PARSED_KEYS.len() {
        out[n] = if i == 0 { b'{' } else { b',' };
        out[n + 1] = b'"';
        n += 2;
        let key = PARSED_KEYS[i].as_bytes();
        let mut k = 0;
        while k < key.len() {
            out[n] = key[k];
            n += 1;
            k += 1;
        }
        out[n] = b'"';
        out[n + 1] = b':';
        n += 2;
        null_at[i] = n;
        out[n] = b'n';
        out[n + 1] = b'u';
        out[n + 2] = b'l';
        out[n + 3] = b'l';
        n += 4;
        i += 1;
    }
    out[n] = b'}';
    (out, null_at)
}

/// Writes `parsed` as runs of [`ALL_NULL`]: nearly every member is
/// absent (a demo message has two or three of the thirty), so the absent
/// members between two present ones go out as one copy, and an absent
/// member costs one test. `from` is where the next copy starts: after the
/// last present member's value, the rest of the constant still to go.
///
/// Members are handed over in the struct's order, each moving on with
/// [`Runs::next`]: the `i`-th is the `i`-th key (all of this is inlined,
/// so `i` is a constant in each).
struct Runs {
    i: usize,
    from: usize,
}

impl Runs {
    #[inline(always)]
    fn new() -> Self {
        Runs { i: 0, from: 0 }
    }

    /// The present member's key, after the absent members before it.
    #[inline(always)]
    fn key(&mut self, ser: &mut Serializer<'_, '_>) -> Result<()> {
        let at = NULL_AT[self.i];
        ser.raw(&ALL_NULL[self.from..at])?;
        // Its value goes next, and the constant goes on after `null`.
        self.from = at + 4;
        Ok(())
    }

    /// On to the next member, present or not.
    #[inline(always)]
    fn next(&mut self) {
        self.i += 1;
    }

    /// The absent members after the last present one, and the `}`.
    #[inline(always)]
    fn finish(self, ser: &mut Serializer<'_, '_>) -> Result<()> {
        debug_assert_eq!(self.i, PARSED_KEYS.len());
        ser.raw(&ALL_NULL[self.from..])
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::cli::parse::tests::every_file;

    use amail_parser::{parse, parse_bytes, MessageType, ParseOptions};

    use super::*;
    use crate::cli::parse::json::message_to_vec;
    use crate::cli::parse::Located;

    /// Message `m` of the file `name` through this module and through
    /// serde_json (as a [`Located`]).
    fn both(name: &str, m: &Message<'_>) -> (String, String) {
        let mut out = b"earlier\n".to_vec();
        message_to_vec(&mut out, None, name, m, None).unwrap();
        let ours = String::from_utf8(out.split_off(8)).unwrap();
        let source = format!("{name}:{}", m.line);
        let located = Located {
            source: &source,
            message: m,
        };
        (ours, serde_json::to_string(&located).unwrap())
    }

    #[test]
    fn every_fixture_message_is_written_as_serde_json_writes_it() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("parser/fixtures");
        let mut paths = Vec::new();
        every_file(&root, &mut paths);
        paths.sort();
        let mut seen = 0;
        for path in &paths {
            let bytes = std::fs::read(path).unwrap();
            for strict in [false, true] {
                let opts = ParseOptions { strict };
                let Ok(msgs) = parse_bytes(&bytes, &opts) else {
                    continue;
                };
                for m in &msgs {
                    let (ours, theirs) = both("dir/\"q\"\\file.md", m);
                    assert!(ours == theirs, "{}:\n{ours}\n{theirs}", path.display());
                    seen += 1;
                }
            }
        }
        // The corpora: golden, malformed and agents, with CRLF twins.
        assert!(seen > 300, "only {seen} messages");
    }

    const TEXT: &str = "Subject: Re: [ol-1] PROGRESS\nBody:\nBead: ol-1\n\n## Log\nline \"one\"\n";

    /// A message of `text` with a value in every optional member, each
    /// kind of escape, and slices of the body beside owned text.
    fn full(text: &'static str) -> Message<'static> {
        let mut m = parse(text, &ParseOptions::default()).unwrap().remove(0);
        let s = |v: &'static str| Some(Cow::Borrowed(v));
        let slice = Some(Cow::Borrowed(&text[text.len() - 12..]));
        m.id = s("7");
        m.raw_type = s("progress\t");
        m.from = s("Blue\u{1}Lake");
        m.to = vec![Cow::Borrowed("a"), Cow::Owned("é\"b".into())].into();
        m.cc = vec![Cow::Borrowed("\\c")].into();
        m.thread_id = s("t");
        m.timestamp = chrono::DateTime::from_timestamp(1_700_000_000, 120_000_000);
        m.ack_required = true;
        m.parsed = Parsed {
            bead_id: s("b"),
            title: s("t\n"),
            started_at: s("s"),
            status: slice.clone(),
            step: s("st"),
            context_usage: Some(100),
            files_touched: Some(vec![Cow::Borrowed("f1"), Cow::Borrowed("f\"2")]),
            issue_type: s("STUCK"),
            problem: slice.clone(),
            what_tried: s("w"),
            question: s("q"),
            guidance: s("g"),
            commit_sha: s("abc"),
            files: Some(vec![]),
            tests_pass: Some(true),
            lint_pass: Some(false),
            build_pass: Some(true),
            summary: slice,
            failure_type: s("ERROR"),
            reason: s("r"),
            internal_attempts: Some(u32::MAX),
            recommendation: s("rec"),
            checkpoint_reason: s("MANUAL"),
            partial_commit_sha: s("p"),
            progress: s("pr"),
            next_steps: s("n"),
            issue_id: s("i"),
            resume: Some(false),
            orchestrator: s("o"),
            session: s("se"),
        };
        m.diagnostics = [Severity::Info, Severity::Warning, Severity::Error]
            .into_iter()
            .map(|severity| Diagnostic {
                severity,
                line: 1,
                column: u32::MAX,
                code: Cow::Borrowed("c"),
                message: match severity {
                    // A note in pieces, escapes in them.
                    Severity::Warning => amail_parser::Note::join(&["m \"", "x\u{1}\"", " é"]),
                    _ => "m \"x\"".into(),
                },
            })
            .collect();
        m
    }

    /// `parsed`'s members, each cleared by the one function at its place
    /// (the struct's order, as `PARSED_KEYS`).
    const CLEAR: [fn(&mut Parsed<'_>); 30] = [
        |p| p.bead_id = None,
        |p| p.title = None,
        |p| p.started_at = None,
        |p| p.status = None,
        |p| p.step = None,
        |p| p.context_usage = None,
        |p| p.files_touched = None,
        |p| p.issue_type = None,
        |p| p.problem = None,
        |p| p.what_tried = None,
        |p| p.question = None,
        |p| p.guidance = None,
        |p| p.commit_sha = None,
        |p| p.files = None,
        |p| p.tests_pass = None,
        |p| p.lint_pass = None,
        |p| p.build_pass = None,
        |p| p.summary = None,
        |p| p.failure_type = None,
        |p| p.reason = None,
        |p| p.internal_attempts = None,
        |p| p.recommendation = None,
        |p| p.checkpoint_reason = None,
        |p| p.partial_commit_sha = None,
        |p| p.progress = None,
        |p| p.next_steps = None,
        |p| p.issue_id = None,
        |p| p.resume = None,
        |p| p.orchestrator = None,
        |p| p.session = None,
    ];

    /// The full message with only the `parsed` members of `mask` (bit `i`
    /// the `i`-th), through this module and through serde_json.
    fn with_members(mask: u32) -> (String, String) {
        let mut m = full(TEXT);
        for (i, clear) in CLEAR.iter().enumerate() {
            if mask & 1 << i == 0 {
                clear(&mut m.parsed);
            }
        }
        both("s", &m)
    }

    #[test]
    fn the_run_constant_holds_the_struct_s_keys_in_order() {
        // One member at a time: serde names it, and it is the key at the
        // same place in `PARSED_KEYS`.
        for (i, key) in PARSED_KEYS.iter().enumerate() {
            let (ours, theirs) = with_members(1 << i);
            assert_eq!(ours, theirs);
            let v: serde_json::Value = serde_json::from_str(&theirs).unwrap();
            let present: Vec<&String> = v["parsed"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, _)| k)
                .collect();
            assert_eq!(present, [key]);
        }
        assert_eq!(
            std::str::from_utf8(&ALL_NULL).unwrap(),
            serde_json::to_string(&Parsed::default()).unwrap()
        );
    }

    proptest::proptest! {
        #[test]
        fn any_set_of_parsed_members_is_written_as_serde_json_writes_it(
            mask in 0u32..1 << 30
        ) {
            let (ours, theirs) = with_members(mask);
            proptest::prop_assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn every_member_with_a_value_is_written_as_serde_json_writes_it() {
        let mut m = full(TEXT);
        // All of `parsed`'s members but one, and none.
        for i in 0..30 {
            let (ours, theirs) = with_members(!(1 << i) & ((1 << 30) - 1));
            assert_eq!(ours, theirs);
        }
        let (ours, theirs) = with_members(0);
        assert_eq!(ours, theirs);
        for kind in MessageType::KNOWN.into_iter().chain([MessageType::Unknown]) {
            m.kind = kind;
            for (is_reply, timestamp) in [(true, m.timestamp), (false, None)] {
                m.is_reply = is_reply;
                let mut m = m.clone();
                m.timestamp = timestamp;
                let (ours, theirs) = both("s", &m);
                assert_eq!(ours, theirs);
            }
            // The raw type as the type's own token (one block with the
            // type), another type's, a near miss, none.
            for raw in [kind.as_str(), "PROGRESS", "DONE ", ""] {
                for raw_type in [Some(Cow::Borrowed(raw)), None] {
                    let mut m = m.clone();
                    m.raw_type = raw_type;
                    let (ours, theirs) = both("s", &m);
                    assert_eq!(ours, theirs);
                }
            }
        }
        // Every string at the sharing length and past it (through
        // `Serializer::string`), escapes in it.
        for n in [super::super::SHARE_MIN - 1, super::super::SHARE_MIN, 300] {
            let long: String = "a\"\n".repeat(n).chars().take(n).collect();
            let l = || Some(Cow::Owned(long.clone()));
            let mut m = m.clone();
            (m.id, m.raw_type, m.from, m.thread_id) = (l(), l(), l(), l());
            m.subject = Cow::Owned(long.clone());
            m.importance = Cow::Owned(long.clone());
            m.to = vec![Cow::Owned(long.clone()); 2].into();
            m.parsed.title = l();
            let (ours, theirs) = both(&long, &m);
            assert_eq!(ours, theirs);
        }
        // Timestamps the model's text leaves to chrono (a year past 9999,
        // a leap second) and each length of fraction it writes.
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .and_then(|d| d.and_hms_nano_opt(23, 59, 59, 1_500_000_000))
            .map(|t| t.and_utc());
        for timestamp in [
            chrono::DateTime::from_timestamp(253_402_300_800, 0),
            leap,
            chrono::DateTime::from_timestamp(1_700_000_000, 0),
            chrono::DateTime::from_timestamp(1_700_000_000, 123_456_000),
            chrono::DateTime::from_timestamp(1_700_000_000, 123_456_789),
        ] {
            assert!(timestamp.is_some());
            m.timestamp = timestamp;
            let (ours, theirs) = both("s", &m);
            assert_eq!(ours, theirs);
        }
        // And with every member empty.
        let empty = Message::empty();
        let (ours, theirs) = both("", &empty);
        assert_eq!(ours, theirs);
    }

    proptest::proptest! {
        /// The source is the name escaped, `:` and the line.
        #[test]
        fn any_name_and_line_are_written_as_serde_json_writes_the_source(
            name in "(?s)[a-z/.\"\\\\\\x00-\\x1f é😀]{0,40}|.{0,100}",
            line in proptest::num::u32::ANY,
        ) {
            let mut m = Message::empty();
            m.line = line;
            let (ours, theirs) = both(&name, &m);
            proptest::prop_assert_eq!(ours, theirs);
        }
    }
}
