//! Parses messages N times: a fixed workload for `valgrind --tool=callgrind`
//! (instruction counts are repeatable where wall time on a shared machine is not).
//!
//! Usage: parse_loop [FILE|DIR] [N]
//!
//! With a directory, every `*.md` in it that is not a CRLF twin
//! (`*.crlf.md`) is parsed N times each (the agents corpus). Prints the
//! number of messages parsed.

#[path = "support/corpus.rs"]
mod corpus;

fn main() {
    let mut args = std::env::args().skip(1);
    let texts: Vec<String> = match args.next() {
        Some(p) if std::path::Path::new(&p).is_dir() => {
            corpus::lf_messages(std::path::Path::new(&p))
                .iter()
                .map(|p| std::fs::read_to_string(p).expect("read input"))
                .collect()
        }
        Some(p) => vec![std::fs::read_to_string(p).expect("read input")],
        None => vec!["Subject: [ol-527.1] PROGRESS\nBody:\nBead: ol-527.1\nStep: Step 4 - implementing auth middleware\nStatus: Writing middleware handler\nContext usage: 45%\nFiles touched: src/auth.py, tests/test_auth.py\n".to_string()],
    };
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let opts = amail_parser::ParseOptions::default();
    let mut total = 0usize;
    for _ in 0..n {
        for text in &texts {
            total += amail_parser::parse(std::hint::black_box(text), &opts)
                .map(|m| m.len())
                .unwrap_or(0);
        }
    }
    println!("{total}");
}
