//! Parses one message N times: a fixed workload for `valgrind --tool=callgrind`
//! (instruction counts are repeatable where wall time on a shared machine is not).
//! Usage: parse_loop [FILE] [N]

fn main() {
    let mut args = std::env::args().skip(1);
    let text = match args.next() {
        Some(p) => std::fs::read_to_string(p).expect("read input"),
        None => "Subject: [ol-527.1] PROGRESS\nBody:\nBead: ol-527.1\nStep: Step 4 - implementing auth middleware\nStatus: Writing middleware handler\nContext usage: 45%\nFiles touched: src/auth.py, tests/test_auth.py\n".to_string(),
    };
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let opts = amail_parser::ParseOptions::default();
    let mut total = 0usize;
    for _ in 0..n {
        total += amail_parser::parse(std::hint::black_box(&text), &opts)
            .map(|m| m.len())
            .unwrap_or(0);
    }
    println!("{total}");
}
