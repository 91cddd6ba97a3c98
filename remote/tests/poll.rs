//! The TUI's poll of a server (`ServerStore::refresh`, then the patch it
//! returns applied to the inbox on screen) ends where a fresh load of the
//! same server state does: new mail in old and new threads, a held
//! message another agent's inbox returns too, and acks made elsewhere.
//! The server is faked with rmcp's own server side on 127.0.0.1, shaped
//! like 0.2.x (no tokens); its state changes between polls.

use std::sync::{Arc, Mutex};

use amail_core::inbox::Inbox;
use amail_core::stores::{MailStore, Refresh};
use amail_remote::{AgentTokens, ServerStore};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Map, Value};

mod support;
use support::{resource, serve, store, tool};

/// One message on the fake server.
#[derive(Clone)]
struct Mail {
    id: i64,
    from: &'static str,
    /// (agent, kind) per inbox it is in.
    to: Vec<(&'static str, &'static str)>,
    thread: &'static str,
    ack_required: bool,
}

#[derive(Default)]
struct State {
    mail: Vec<Mail>,
    /// (agent, id) still to acknowledge, of the ack-required mail.
    unacked: Vec<(&'static str, i64)>,
}

#[derive(Clone, Default)]
struct Fake {
    state: Arc<Mutex<State>>,
}

fn created(id: i64) -> String {
    format!("2026-11-01T10:{:02}:{:02}+00:00", id / 60, id % 60)
}

fn payload(m: &Mail, kind: &str) -> Value {
    json!({"id": m.id, "project_id": 1, "sender_id": 2, "thread_id": m.thread,
           "subject": format!("[{}] PROGRESS step {}", m.thread, m.id),
           "importance": "normal", "ack_required": m.ack_required,
           "created_ts": created(m.id), "attachments": [],
           "body_md": format!("Bead: {}\nStep: {}", m.thread, m.id),
           "from": m.from, "kind": kind})
}

impl Fake {
    fn fetch(&self, args: &Map<String, Value>) -> Value {
        let agent = args["agent_name"].as_str().unwrap_or("");
        let since = args.get("since_ts").and_then(Value::as_str);
        let st = self.state.lock().unwrap();
        let mut out: Vec<Value> = st
            .mail
            .iter()
            .filter(|m| since.is_none_or(|s| created(m.id).as_str() > s))
            .filter_map(|m| {
                let (_, kind) = m.to.iter().find(|(a, _)| *a == agent)?;
                Some(payload(m, kind))
            })
            .collect();
        out.reverse();
        Value::Array(out)
    }

    fn view(&self, uri: &str) -> Value {
        let agent = uri
            .trim_start_matches("resource://views/ack-required/")
            .split('?')
            .next()
            .unwrap_or("");
        let st = self.state.lock().unwrap();
        let ids: Vec<Value> = st
            .unacked
            .iter()
            .filter(|(a, _)| *a == agent)
            .map(|(_, id)| json!({"id": id}))
            .collect();
        json!({ "messages": ids })
    }
}

impl ServerHandler for Fake {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        support::info()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![tool(
            "fetch_inbox",
            &[
                "project_key",
                "agent_name",
                "limit",
                "urgent_only",
                "include_bodies",
                "since_ts",
            ],
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.clone().unwrap_or_default();
        Ok(match request.name.as_ref() {
            "fetch_inbox" => CallToolResult::structured(json!({ "result": self.fetch(&args) })),
            other => CallToolResult::error(vec![ContentBlock::text(format!("no tool {other}"))]),
        }
        .into())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resource(
            request.uri.as_ref(),
            &["BlueLake", "GreenCastle", "RedStone"],
            |uri| self.view(uri),
        )
    }
}

fn mail(id: i64, to: &[(&'static str, &'static str)], thread: &'static str, ack: bool) -> Mail {
    Mail {
        id,
        from: "GreenCastle",
        to: to.to_vec(),
        thread,
        ack_required: ack,
    }
}

/// Polls as the TUI does: the refresh read, then its patch applied.
fn poll(store: &ServerStore, inbox: &mut Inbox) {
    match store.refresh(&[]).unwrap() {
        Refresh::Patch(p) => assert!(p.apply(inbox), "a poll of this server applies"),
        other => assert!(other.apply(inbox)),
    }
}

#[test]
fn a_poll_with_new_mail_and_acks_equals_a_fresh_load() {
    let fake = Fake::default();
    {
        let mut st = fake.state.lock().unwrap();
        for id in 1..=30 {
            let thread = ["b1", "b2", "b3"][id as usize % 3];
            st.mail
                .push(mail(id, &[("BlueLake", "to")], thread, id % 4 == 0));
            if id % 4 == 0 {
                st.unacked.push(("BlueLake", id));
            }
        }
    }
    let url = serve(fake.clone());
    let polled = store(&url, AgentTokens::default());
    let mut inbox = polled.load().unwrap();
    assert_eq!(inbox.messages.len(), 30);

    // New mail (an old thread, a new one, a new recipient with a cc), an
    // ack made elsewhere, and a message another inbox now returns too.
    {
        let mut st = fake.state.lock().unwrap();
        st.mail.push(mail(31, &[("BlueLake", "to")], "b1", true));
        st.unacked.push(("BlueLake", 31));
        st.mail.push(mail(
            32,
            &[("BlueLake", "to"), ("RedStone", "cc")],
            "b9",
            false,
        ));
        st.unacked.retain(|&(_, id)| id != 8);
        // A held message RedStone's inbox (read whole: new) returns too.
        st.mail[29].to.push(("RedStone", "cc"));
    }
    poll(&polled, &mut inbox);
    // `assert!`, not `assert_eq!`: a failure would print two inboxes.
    assert!(
        inbox == store(&url, AgentTokens::default()).load().unwrap(),
        "after new mail and an ack"
    );

    // Only acks change: two made elsewhere, one of them on the mail the
    // last poll brought.
    {
        let mut st = fake.state.lock().unwrap();
        st.unacked.retain(|&(_, id)| id != 12 && id != 31);
    }
    poll(&polled, &mut inbox);
    assert!(
        inbox == store(&url, AgentTokens::default()).load().unwrap(),
        "after acks alone"
    );
    let pending: Vec<String> = inbox
        .pending(Some("BlueLake"))
        .iter()
        .map(|p| inbox.messages[p.message].key.to_string())
        .collect();
    assert_eq!(pending, ["4", "16", "20", "24", "28"]);
}
