//! One parsed message as a JSON Lines record, written field by field
//! instead of through its `Serialize` impl: byte for byte what
//! `serde_json::to_writer` prints for a [`Located`] message.
//!
//! Through serde, every member is a call chain (the flattened `Located`
//! goes through serde's map adapter, each key is checked for escapes, each
//! `Option` dispatched), and a message has 47 members, 30 of them the
//! `parsed` fields, which are nearly all `null`. Here each member's
//! `,"key":null` is one constant whose `null` is cut off when there is a
//! value, so a member costs one fixed-size copy and a branch.
//!
//! Figures (callgrind, whole `amail parse --format jsonl` over the 10,000
//! small files of `bench/run.sh`): 265.6 M -> 215.7 M instructions, the
//! JSON's share 101.1 M -> 51.0 M; what is left of it is mostly the
//! strings' escaping (33 M). The timestamp is written by the model's own
//! text function, called directly: 213.6 M -> 210.7 M for the whole run.
//!
//! The record mirrors the derive in `amail_parser::model`: the structs are
//! destructured without `..`, so a field added there fails to compile here
//! until it is written, and the tests compare the output with serde_json's
//! on every message of the parser's fixture corpora. The timestamp is the
//! one field with its own format: it is written by the function the
//! model's `Serialize` impl uses (`amail_parser::rfc3339_text`), so the
//! format has one home.

use std::borrow::Cow;

use amail_parser::{Diagnostic, Message, Parsed, Severity};

use super::{Result, Serializer};
use crate::cli::parse::Located;

/// `,"key":null`: the member with its comma, `null` cut off for a value.
type Member = &'static [u8];

impl Serializer<'_, '_> {
    /// Writes `located` as `serde_json::to_writer` writes it.
    pub(super) fn message(&mut self, located: &Located<'_, '_>) -> Result<()> {
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
            line: _,
        } = located.message;
        self.raw(b"{\"source\":")?;
        self.string(located.source)?;
        self.opt_str(b",\"id\":null", id)?;
        self.raw(b",\"type\":\"")?;
        self.raw(kind.as_str().as_bytes())?;
        self.raw(b"\"")?;
        self.opt_str(b",\"raw_type\":null", raw_type)?;
        self.raw(if *is_reply {
            b",\"is_reply\":true,\"subject\":"
        } else {
            b",\"is_reply\":false,\"subject\":"
        })?;
        self.string(subject)?;
        self.opt_str(b",\"from\":null", from)?;
        self.raw(b",\"to\":")?;
        self.strings(to)?;
        self.raw(b",\"cc\":")?;
        self.strings(cc)?;
        self.opt_str(b",\"thread_id\":null", thread_id)?;
        self.raw(b",\"timestamp\":")?;
        self.timestamp(timestamp.as_ref())?;
        self.raw(if *ack_required {
            b",\"ack_required\":true,\"importance\":"
        } else {
            b",\"ack_required\":false,\"importance\":"
        })?;
        self.string(importance)?;
        self.raw(b",\"body\":")?;
        self.string(body)?;
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
        self.opt_str(b"{\"bead_id\":null", bead_id)?;
        self.opt_str(b",\"title\":null", title)?;
        self.opt_str(b",\"started_at\":null", started_at)?;
        self.opt_str(b",\"status\":null", status)?;
        self.opt_str(b",\"step\":null", step)?;
        self.opt_int(b",\"context_usage\":null", *context_usage)?;
        self.opt_strings(b",\"files_touched\":null", files_touched)?;
        self.opt_str(b",\"issue_type\":null", issue_type)?;
        self.opt_str(b",\"problem\":null", problem)?;
        self.opt_str(b",\"what_tried\":null", what_tried)?;
        self.opt_str(b",\"question\":null", question)?;
        self.opt_str(b",\"guidance\":null", guidance)?;
        self.opt_str(b",\"commit_sha\":null", commit_sha)?;
        self.opt_strings(b",\"files\":null", files)?;
        self.opt_bool(b",\"tests_pass\":null", *tests_pass)?;
        self.opt_bool(b",\"lint_pass\":null", *lint_pass)?;
        self.opt_bool(b",\"build_pass\":null", *build_pass)?;
        self.opt_str(b",\"summary\":null", summary)?;
        self.opt_str(b",\"failure_type\":null", failure_type)?;
        self.opt_str(b",\"reason\":null", reason)?;
        self.opt_int(b",\"internal_attempts\":null", *internal_attempts)?;
        self.opt_str(b",\"recommendation\":null", recommendation)?;
        self.opt_str(b",\"checkpoint_reason\":null", checkpoint_reason)?;
        self.opt_str(b",\"partial_commit_sha\":null", partial_commit_sha)?;
        self.opt_str(b",\"progress\":null", progress)?;
        self.opt_str(b",\"next_steps\":null", next_steps)?;
        self.opt_str(b",\"issue_id\":null", issue_id)?;
        self.opt_bool(b",\"resume\":null", *resume)?;
        self.opt_str(b",\"orchestrator\":null", orchestrator)?;
        self.opt_str(b",\"session\":null", session)?;
        self.raw(b"}")
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
        self.string(code)?;
        self.raw(b",\"message\":\"")?;
        // A note is pieces joined where it is read (`Note`): escaping goes
        // byte by byte, so the pieces' escapes in turn are the text's.
        for piece in message.pieces() {
            super::escape_into(self.out, piece);
        }
        self.raw(b"\"}")
    }

    /// The member's key alone: its constant without the `null`.
    #[inline(always)]
    fn key_of(&mut self, member: Member) -> Result<()> {
        self.raw(&member[..member.len() - 4])
    }

    /// A member that may be `null`: its constant as it is, or its key and
    /// the value `write` writes.
    #[inline(always)]
    fn opt<T>(
        &mut self,
        member: Member,
        v: Option<T>,
        write: impl FnOnce(&mut Self, T) -> Result<()>,
    ) -> Result<()> {
        match v {
            None => self.raw(member),
            Some(v) => {
                self.key_of(member)?;
                write(self, v)
            }
        }
    }

    #[inline(always)]
    fn opt_str(&mut self, member: Member, v: &Option<Cow<'_, str>>) -> Result<()> {
        self.opt(member, v.as_deref(), Self::string)
    }

    #[inline(always)]
    fn opt_int(&mut self, member: Member, v: Option<impl itoa::Integer>) -> Result<()> {
        self.opt(member, v, Self::integer)
    }

    #[inline(always)]
    fn opt_bool(&mut self, member: Member, v: Option<bool>) -> Result<()> {
        self.opt(member, v, |ser, b| {
            ser.raw(if b { b"true" } else { b"false" })
        })
    }

    #[inline(always)]
    fn opt_strings(&mut self, member: Member, v: &Option<Vec<Cow<'_, str>>>) -> Result<()> {
        self.opt(member, v.as_deref(), Self::strings)
    }

    fn strings(&mut self, list: &[Cow<'_, str>]) -> Result<()> {
        self.raw(b"[")?;
        for (i, s) in list.iter().enumerate() {
            if i > 0 {
                self.raw(b",")?;
            }
            self.string(s)?;
        }
        self.raw(b"]")
    }

    /// The message's `timestamp` as its `Serialize` impl writes it: the
    /// model's own text (`amail_parser::rfc3339_text`), or chrono's serde
    /// form for the years and leap seconds that text leaves to chrono.
    fn timestamp(&mut self, t: Option<&chrono::DateTime<chrono::Utc>>) -> Result<()> {
        let Some(t) = t else {
            return self.raw(b"null");
        };
        let mut buf = [0u8; 31];
        match amail_parser::rfc3339_text(t, &mut buf) {
            // Digits, '-', ':', '.', 'T' and 'Z': nothing to escape.
            Some(text) => {
                self.raw(b"\"")?;
                self.raw(text.as_bytes())?;
                self.raw(b"\"")
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use amail_parser::{parse, parse_bytes, MessageType, ParseOptions};

    use super::*;
    use crate::cli::parse::json::message_to_vec;

    /// `located` through this module and through serde_json.
    fn both(located: &Located<'_, '_>) -> (String, String) {
        let mut out = b"earlier\n".to_vec();
        message_to_vec(&mut out, None, located, None).unwrap();
        let ours = String::from_utf8(out.split_off(8)).unwrap();
        (ours, serde_json::to_string(located).unwrap())
    }

    fn files(dir: &Path, into: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, into);
            } else {
                into.push(p);
            }
        }
    }

    #[test]
    fn every_fixture_message_is_written_as_serde_json_writes_it() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("parser/fixtures");
        let mut paths = Vec::new();
        files(&root, &mut paths);
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
                    let located = Located {
                        source: "dir/\"q\"\\file.md:1",
                        message: m,
                    };
                    let (ours, theirs) = both(&located);
                    assert!(ours == theirs, "{}:\n{ours}\n{theirs}", path.display());
                    seen += 1;
                }
            }
        }
        // The corpora: golden, malformed and agents, with CRLF twins.
        assert!(seen > 300, "only {seen} messages");
    }

    #[test]
    fn every_member_with_a_value_is_written_as_serde_json_writes_it() {
        let text = "Subject: Re: [ol-1] PROGRESS\nBody:\nBead: ol-1\n\n## Log\nline \"one\"\n";
        let mut m = parse(text, &ParseOptions::default()).unwrap().remove(0);
        // A value in every optional member, each kind of escape, and
        // slices of the body beside owned text.
        let s = |v: &'static str| Some(Cow::Borrowed(v));
        let slice = Some(Cow::Borrowed(&text[text.len() - 12..]));
        m.id = s("7");
        m.raw_type = s("progress\t");
        m.from = s("Blue\u{1}Lake");
        m.to = vec![Cow::Borrowed("a"), Cow::Owned("é\"b".into())];
        m.cc = vec![Cow::Borrowed("\\c")];
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
        for kind in MessageType::KNOWN.into_iter().chain([MessageType::Unknown]) {
            m.kind = kind;
            for (is_reply, timestamp) in [(true, m.timestamp), (false, None)] {
                m.is_reply = is_reply;
                let mut m = m.clone();
                m.timestamp = timestamp;
                let (ours, theirs) = both(&Located {
                    source: "s",
                    message: &m,
                });
                assert_eq!(ours, theirs);
            }
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
            let (ours, theirs) = both(&Located {
                source: "s",
                message: &m,
            });
            assert_eq!(ours, theirs);
        }
        // And with every member empty.
        let empty = Message::empty();
        let (ours, theirs) = both(&Located {
            source: "",
            message: &empty,
        });
        assert_eq!(ours, theirs);
    }
}
