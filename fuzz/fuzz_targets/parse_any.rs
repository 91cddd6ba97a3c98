//! Arbitrary bytes through `parse_bytes`, lenient and strict: every framing
//! (spec text, `---json` archive, JSON object/array/result/lines, bare body)
//! is reachable from the first bytes. Neither mode may panic; lenient mode
//! never fails.
#![no_main]

use amail_parser::{parse_bytes, ParseOptions};
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
});
