//! Envelope detection (`amail_core::aof::detect`): arbitrary text as message
//! text, and, when it is JSON, as an already-parsed event object. Nothing
//! may panic; an accepted envelope must survive re-serialisation.
#![no_main]

use amail_core::aof::detect::{detect, Detected, Input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = detect(Input::Text(&text));
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        if let Detected::Envelope(e) = detect(Input::Object(&v)) {
            let _ = format!("{e:?}");
        }
    }
});
