//! Writes the plain twin of each message of the decorated agents corpus
//! (`parser/fixtures/agents`, the LF files): the same message parsed,
//! then written back in the protocol's plain form (`render`, the body
//! made from the parsed fields), one file each under the same name.
//! `bench/run.sh` times the decorated corpus against its twins: what the
//! decorations cost, message for message, where the one 195-byte
//! PROGRESS it is also compared with is a single message parsed over and
//! over (a branch predictor learns every branch of it).
//!
//! `cargo run --release -p amail-parser --example plain_twins -- OUT_DIR`

use std::borrow::Cow;
use std::path::Path;

#[path = "support/corpus.rs"]
mod corpus;

fn main() {
    let Some(out) = std::env::args_os().nth(1) else {
        eprintln!("usage: plain_twins OUT_DIR");
        std::process::exit(2);
    };
    let out = Path::new(&out);
    std::fs::create_dir_all(out).expect("make the output directory");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/agents");
    let paths = corpus::lf_messages(Path::new(dir));
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("read a fixture");
        let messages = amail_parser::parse(&text, &Default::default()).expect("lenient");
        let mut twin = String::new();
        for mut m in messages {
            // The body made again from the fields: their plain form.
            m.body = Cow::Borrowed("");
            twin.push_str(&amail_parser::render(&m));
        }
        let name = path.file_name().expect("a file name");
        std::fs::write(out.join(name), twin).expect("write a twin");
    }
    println!("{} twins in {}", paths.len(), out.display());
}
