//! Inputs that broke (or could break) a parser: the Go parser's panics
//! (reference §8.1), inputs behind bugs fixed here, and small edge inputs
//! in every framing. Each goes through what the fuzz targets do: lenient
//! and strict `parse_bytes`, then render and re-parse. Any crash the fuzz
//! targets find is added here.

use amail_parser::{parse, parse_bytes, render, MessageType, ParseOptions};

/// What `fuzz/fuzz_targets/parse_any.rs` and `parse_render.rs` check.
fn survive(input: &[u8]) {
    let lenient = parse_bytes(input, &ParseOptions::default())
        .unwrap_or_else(|e| panic!("lenient mode refused {input:?}: {e}"));
    // Every document holds a message, except a blank one (issue 12).
    let blank = String::from_utf8_lossy(input)
        .trim_start_matches('\u{feff}')
        .trim()
        .is_empty();
    assert_eq!(lenient.is_empty(), blank, "{input:?}");
    for m in &lenient {
        for d in &m.diagnostics {
            assert!(d.line >= 1 && d.column >= 1, "{d:?}");
        }
        let out = render(m);
        let again = parse(&out, &ParseOptions::default()).unwrap();
        assert_eq!(again.len(), 1, "{out}");
        let _ = render(&again[0]);
    }
    if let Err(e) = parse_bytes(input, &ParseOptions::strict()) {
        assert!(e.line >= 1 && e.column >= 1, "{e:?}");
        let _ = e.report("x");
    }
}

fn done_with(prefix: &str) -> String {
    format!("Subject: [x-1] DONE\n\nBody:\nBead: x-1\n{prefix}\n## Summary\nabcdefgh\nsecond\n")
}

/// Text that changes byte length when lower-cased panics the Go parser or
/// shifts its sections; here the summary is exact.
#[test]
fn case_changing_unicode_before_a_section() {
    for prefix in [
        "Ⱥ".repeat(20),
        "Ⱥ".repeat(3),
        "İ".repeat(20),
        "\u{212A}".repeat(20),
        "ẞ".repeat(50),
    ] {
        let text = done_with(&prefix);
        survive(text.as_bytes());
        let m = parse(&text, &ParseOptions::default()).unwrap().remove(0);
        assert_eq!(
            m.parsed.summary.as_deref(),
            Some("abcdefgh\nsecond"),
            "{prefix}"
        );
    }
}

#[test]
fn invalid_utf8_before_a_section() {
    let mut bytes = b"Subject: [x-1] DONE\n\nBody:\nBead: x-1\n\xff\xfe\xc3\n".to_vec();
    bytes.extend_from_slice(b"## Summary\nabcdefgh\n");
    survive(&bytes);
    let m = parse_bytes(&bytes, &ParseOptions::default())
        .unwrap()
        .remove(0);
    assert_eq!(m.parsed.summary.as_deref(), Some("abcdefgh"));
    assert_eq!(m.diagnostics[0].code, "invalid-utf8");
    assert_eq!((m.diagnostics[0].line, m.diagnostics[0].column), (5, 1));
}

/// Fixed here: `[ol-13] DONE` at the top of a bare body was taken for a JSON
/// array; valid JSON that starts with `[` must still be JSON.
#[test]
fn bracket_first_documents() {
    let m = parse("[ol-13] DONE\n\nBead: ol-13\n", &ParseOptions::default())
        .unwrap()
        .remove(0);
    assert_eq!(m.kind, MessageType::Done);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let m = parse("[1, 2, 3]", &ParseOptions::default())
        .unwrap()
        .remove(0);
    assert_eq!(m.diagnostics[0].code, "not-a-message");
    for s in ["[", "[]", "[[", "[ ", "[\"", "[{", "[{}]", "[ol", "[]]"] {
        survive(s.as_bytes());
    }
}

#[test]
fn tiny_and_degenerate_inputs() {
    for s in [
        "",
        "\u{feff}",
        "\n",
        "\r",
        "\r\n\r\n",
        " \t ",
        "Subject:",
        "Subject: ",
        "Subject: Re:",
        "Subject: Re: Re: Fwd:",
        "Subject: []",
        "Subject: [] DONE",
        "Subject: [[[[ DONE",
        "Subject: :",
        "Subject: : DONE",
        "Body:",
        "Subject: DONE\nBody:",
        "Subject: DONE\n\nBody:\n```",
        "---json",
        "---json\n---",
        "---json\n{}\n---",
        "---json\n[]\n---\nDONE",
        "---json\n{\"subject\": 5, \"id\": [], \"to\": {}}\n---\n",
        "{",
        "{}",
        "{\"result\": 5}",
        "{\"result\": [[[{\"subject\": \"DONE\"}]]]}",
        "{\"subject\": null, \"body_md\": null}",
        "{\"subject\": \"DONE\", \"created_ts\": 1e400}",
        "{\"subject\": \"DONE\", \"ack_required\": \"maybe\", \"id\": 1.5}",
        "{\"subject\": \"DONE\"}\n{\n",
        "DONE",
        "HELP_RESPONSE",
        "## ",
        "##",
        "- ",
        "- :",
        ":",
        "Bead:",
        "Context usage: 99999999999999999999999999%",
        "Internal Attempts: 99999999999999999999999999",
        "Subject: [x] PROGRESS\n\nBody:\nContext usage: 1e308%",
        "Subject: [x] PROGRESS\nDate: 9999-99-99T99:99:99Z\n\nBody:\nBead: x",
        "Subject: [x] BEAD_ACCEPTED\n\nBody:\nAccepted bead: x\nStarting implementation at: 2026-02-30T25:61:61+99:99",
    ] {
        survive(s.as_bytes());
    }
}

#[test]
fn control_and_wide_characters_in_snippets() {
    // Strict errors render a snippet of the offending line: tabs, control
    // characters, combining marks and wide characters must not break it.
    for line in [
        "Context usage: \t\u{0}\u{1b}[31m lots",
        "Context usage: e\u{301}\u{301}\u{301} lots",
        "Context usage: 日本語🎉 lots",
    ] {
        let text = format!("Subject: [x-1] PROGRESS\n\nBody:\nBead: x-1\n{line}\n");
        survive(text.as_bytes());
        let e = parse(&text, &ParseOptions::strict()).unwrap_err();
        assert_eq!((e.line, e.code.as_str()), (5, "bad-number"));
        assert!(!e.snippet.contains('\u{1b}'), "{:?}", e.snippet);
    }
}

/// The invalid byte's column does not count a BOM (which `parse` strips).
#[test]
fn invalid_utf8_after_a_bom() {
    for (input, col) in [
        (&b"\xef\xbb\xbfSubject: \xff DONE\n"[..], 10),
        (&b"Subject: \xff DONE\n"[..], 10),
        (&b"\xef\xbb\xbf\xff"[..], 1),
    ] {
        let e = parse_bytes(input, &ParseOptions::strict()).unwrap_err();
        assert_eq!(
            (e.line, e.column, e.code.as_str()),
            (1, col, "invalid-utf8")
        );
        survive(input);
    }
}
