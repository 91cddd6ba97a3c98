//! The neighbouring protocols' files (`amail_core::formats`): arbitrary
//! text as a JSON file anywhere and as a file of a handoff folder (where
//! even broken JSON is a handoff, a diagnostic). Nothing may panic, and
//! every diagnostic is placed inside the text: its line is one of the
//! text's lines.
#![no_main]

use amail_core::formats::{detect, parse_files, File};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = text.split('\n').count() as u32;
    for path in ["a.json", "repo/.handoffs/a.json"] {
        if let Some((_, parsed)) = detect(path, &text) {
            for d in &parsed.diags {
                assert!(d.line >= 1 && d.line <= lines, "{d}");
                assert!(d.column >= 1, "{d}");
            }
        }
    }
    let _ = parse_files(&[File::named("x/.handoffs/b.json".into(), text.to_string())]);
});
