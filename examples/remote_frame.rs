//! Headless `amail inbox --server` start-up for `bench/run.sh`: loads a
//! live server's inbox through the paged server store the TUI uses (every
//! agent's first page and ack view over MCP, sent at once), builds the
//! model and draws the first frame (120×40); then the reloads that bring
//! in the rest, back to back, until the whole inbox is held (the TUI
//! spreads them over its polls); then one ack's round trip (the server's
//! `acknowledge_message`), best of `ACKS` acks of distinct messages.
//! Prints `first_frame_ms first_frame_messages whole_ms messages ack_ms`.
//! Usage: remote_frame URL TOKEN_FILE
use std::time::{Duration, Instant};

use amail_core::stores::MailStore;
use amail_remote::{ServerConfig, ServerStore};
use amail_tui::testing::render_terminal;
use amail_tui::{Model, UiConfig};

const ACKS: usize = 5;

fn main() {
    let mut args = std::env::args().skip(1);
    let url = args.next().expect("usage: remote_frame URL TOKEN_FILE");
    let token = std::fs::read_to_string(args.next().expect("usage: remote_frame URL TOKEN_FILE"))
        .expect("token file");
    let store = ServerStore::new(ServerConfig {
        url,
        token: Some(token.trim().to_string()),
        project: None,
        timeout: Duration::from_secs(120),
        agent_tokens: Default::default(),
    })
    .expect("store")
    .paged(amail_remote::FIRST_PAGE);
    let t0 = Instant::now();
    let inbox = store.load().expect("load");
    let model = Model::new(inbox, Vec::new(), chrono::Utc::now(), UiConfig::default());
    std::hint::black_box(render_terminal(&model, 120, 40));
    let first = t0.elapsed().as_secs_f64() * 1000.0;
    let on_first = model.inbox.messages.len();
    let mut inbox = model.inbox;
    while !store.complete() {
        store.reload(&mut inbox, &[]).expect("reload");
    }
    let whole = t0.elapsed().as_secs_f64() * 1000.0;
    // Ack round trips: messages still pending for one of their recipients.
    let pending = inbox.pending(None);
    let mut best = f64::MAX;
    for p in pending.iter().take(ACKS) {
        let key = inbox.messages[p.message].key.to_string();
        let t = Instant::now();
        store
            .ack(Some(&inbox), &[key], &p.agent, chrono::Utc::now())
            .expect("ack");
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "{first:.1} {on_first} {whole:.1} {} {best:.1}",
        inbox.messages.len()
    );
}
