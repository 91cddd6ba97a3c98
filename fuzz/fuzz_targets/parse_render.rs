//! Parse, render every message back to protocol text, and parse that again.
//! Nothing may panic, and the rendered text must parse to as many messages
//! (one each) in lenient mode.
#![no_main]

use amail_parser::{parse, render, ParseOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(msgs) = parse(text, &ParseOptions::default()) else {
        panic!("lenient mode refused input");
    };
    for m in &msgs {
        let out = render(m);
        let again = parse(&out, &ParseOptions::default()).expect("lenient");
        assert_eq!(again.len(), 1, "rendered text is one message:\n{out}");
        let _ = parse(&out, &ParseOptions::strict());
        let _ = render(&again[0]);
    }
});
