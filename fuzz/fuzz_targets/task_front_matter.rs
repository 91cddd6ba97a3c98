//! Task-file front matter (`amail_core::router::task::Task::parse`): arbitrary
//! text must parse or fail with a 1-based position, never panic; a parsed
//! task renders to text that parses again to the same front matter.
#![no_main]

use amail_core::router::task::{Task, TaskParseError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Task::parse(text) {
        Ok(t) => {
            let again = Task::parse(&t.render()).expect("a rendered task parses");
            assert_eq!(
                again.render(),
                Task::parse(&again.render()).unwrap().render(),
                "render is not stable"
            );
        }
        Err(TaskParseError::Yaml { line, column, .. }) => {
            assert!(line >= 1, "0-based line");
            let _ = column;
        }
        Err(_) => {}
    }
});
