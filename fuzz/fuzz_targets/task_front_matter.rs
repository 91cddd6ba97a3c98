//! Task-file front matter (`amail_core::router::task::Task::parse_bytes`,
//! the file's bytes as read): arbitrary bytes must parse or fail with a
//! 1-based position (a byte that is not UTF-8 among them), never panic; a
//! parsed task renders to text that parses again to the same front matter.
#![no_main]

use amail_core::router::task::{Task, TaskParseError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match Task::parse_bytes(data.to_vec()) {
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
        Err(TaskParseError::NotUtf8(at)) => {
            assert!(at.line >= 1 && at.column >= 1, "0-based place {at:?}");
            assert!(std::str::from_utf8(data).is_err(), "UTF-8 refused");
        }
        Err(_) => {}
    }
});
