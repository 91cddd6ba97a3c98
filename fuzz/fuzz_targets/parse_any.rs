//! Arbitrary bytes through `parse_bytes`, lenient and strict: every framing
//! (spec text, `---json` archive, JSON object/array/result/lines, bare body)
//! is reachable from the first bytes. Neither mode may panic; lenient mode
//! never fails. The same text through `parse_archive_under` too, the
//! subject a line of it (as a load gives the front matter's own text) or
//! text of its own: never panics, never fails lenient.
#![no_main]

use amail_parser::{parse_archive_under, parse_bytes, ParseOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let lenient = parse_bytes(data, &ParseOptions::default());
    assert!(lenient.is_ok(), "lenient mode refused input");
    if let Ok(msgs) = &lenient {
        for m in msgs {
            for d in &m.diagnostics {
                assert!(d.line >= 1 && d.column >= 1, "0-based position {d:?}");
            }
        }
    }
    if let Err(e) = parse_bytes(data, &ParseOptions::strict()) {
        assert!(e.line >= 1 && e.column >= 1, "0-based position {e:?}");
        let _ = e.report("fuzz");
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let own = String::from("[ol-1] PROGRESS");
        for subject in [text.lines().nth(3).unwrap_or(""), own.as_str()] {
            let under = parse_archive_under(text, subject, &ParseOptions::default());
            for m in under.expect("lenient mode refused input") {
                for d in &m.diagnostics {
                    assert!(d.line >= 1 && d.column >= 1, "0-based position {d:?}");
                }
            }
            let _ = parse_archive_under(text, subject, &ParseOptions::strict());
        }
    }
});
