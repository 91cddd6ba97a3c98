//! A 0.3.x server, faked with rmcp's own server side on 127.0.0.1 (no
//! 0.3.x release can be installed here): its tool list is shaped like
//! upstream's (`fetch_inbox` takes `topic`, the agents' tools take
//! `registration_token` / `sender_token`), it checks those tokens, and its
//! `fetch_inbox` returns at most 1,000 messages, newest first.
//!
//! amail must send each agent's token to the tools that ask for one (and
//! only those), never ask for more than the cap, and say when an inbox
//! was cut at the cap.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use amail_core::stores::MailStore;
use amail_remote::AgentTokens;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Map, Value};

mod support;
use support::{resource, serve, store, tool};

const CAP: usize = 1000;
const MESSAGES: i64 = 1500;

/// What the fake server was asked, tool by tool.
#[derive(Default)]
struct Seen {
    calls: Vec<(String, Map<String, Value>)>,
}

#[derive(Clone)]
struct Fake {
    seen: Arc<Mutex<Seen>>,
    tokens: Arc<HashMap<&'static str, &'static str>>,
}

fn message(id: i64) -> Value {
    json!({"id": id, "project_id": 1, "sender_id": 2, "thread_id": format!("b{}", id % 7),
           "topic": null, "subject": format!("[b{}] PROGRESS step {id}", id % 7),
           "importance": "normal", "ack_required": false,
           "created_ts": format!("2026-11-01T{:02}:{:02}:{:02}+00:00", id / 3600, (id / 60) % 60, id % 60),
           "attachments": [], "body_md": format!("Bead: b{}\nStep: {id}", id % 7),
           "from": "GreenCastle", "kind": "to"})
}

impl Fake {
    fn answer(&self, tool: &str, args: &Map<String, Value>) -> Result<Value, String> {
        let check = |field: &str, who: &str| -> Result<(), String> {
            let agent = args.get(who).and_then(Value::as_str).unwrap_or("");
            let want = self.tokens.get(agent).copied();
            match (want, args.get(field).and_then(Value::as_str)) {
                (Some(w), Some(got)) if w == got => Ok(()),
                _ => Err(format!("{field} required for agent {agent}")),
            }
        };
        match tool {
            "fetch_inbox" => {
                check("registration_token", "agent_name")?;
                let limit = args.get("limit").and_then(Value::as_i64).unwrap_or(20);
                if limit > CAP as i64 {
                    return Err(format!("limit must be at most {CAP}"));
                }
                if args["agent_name"] != "BlueLake" {
                    return Ok(json!([]));
                }
                Ok(Value::Array(
                    (1..=MESSAGES)
                        .rev()
                        .take(limit as usize)
                        .map(message)
                        .collect(),
                ))
            }
            "acknowledge_message" => {
                check("registration_token", "agent_name")?;
                Ok(
                    json!({"message_id": args["message_id"], "acknowledged": true,
                          "acknowledged_at": "2026-11-25T01:00:00+00:00",
                          "read_at": "2026-11-25T01:00:00+00:00"}),
                )
            }
            "reply_message" => {
                check("sender_token", "sender_name")?;
                Ok(
                    json!({"id": MESSAGES + 1, "thread_id": "b1", "subject": "Re: x",
                          "to": args["to"], "reply_to": args["message_id"]}),
                )
            }
            other => Err(format!("no tool {other}")),
        }
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
        let agent = ["project_key", "agent_name", "registration_token", "format"];
        Ok(ListToolsResult::with_all_items(vec![
            tool(
                "fetch_inbox",
                &[
                    "project_key",
                    "agent_name",
                    "limit",
                    "urgent_only",
                    "include_bodies",
                    "since_ts",
                    "topic",
                    "registration_token",
                    "format",
                ],
            ),
            tool(
                "acknowledge_message",
                &[&agent[..], &["message_id"]].concat(),
            ),
            tool("mark_message_read", &[&agent[..], &["message_id"]].concat()),
            tool(
                "reply_message",
                &[
                    "project_key",
                    "message_id",
                    "sender_name",
                    "body_md",
                    "to",
                    "cc",
                    "bcc",
                    "subject_prefix",
                    "sender_token",
                    "format",
                ],
            ),
            tool(
                "send_message",
                &[
                    "project_key",
                    "sender_name",
                    "to",
                    "subject",
                    "body_md",
                    "topic",
                    "broadcast",
                    "sender_token",
                    "format",
                ],
            ),
            tool("ensure_project", &["human_key", "format"]),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.clone().unwrap_or_default();
        let name = request.name.to_string();
        self.seen
            .lock()
            .unwrap()
            .calls
            .push((name.clone(), args.clone()));
        Ok(match self.answer(&name, &args) {
            Ok(v) => CallToolResult::structured(json!({ "result": v })).into(),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]).into(),
        })
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resource(
            request.uri.as_ref(),
            &["BlueLake", "GreenCastle"],
            |_| json!({"messages": []}),
        )
    }
}

fn fake() -> Fake {
    Fake {
        seen: Arc::default(),
        tokens: Arc::new(HashMap::from([
            ("BlueLake", "blue-s3cret"),
            ("GreenCastle", "green-s3cret"),
        ])),
    }
}

fn tokens() -> AgentTokens {
    AgentTokens::new([
        ("BlueLake".to_string(), "blue-s3cret".to_string()),
        ("GreenCastle".to_string(), "green-s3cret".to_string()),
    ])
}

#[test]
fn tokens_go_to_the_tools_that_ask_and_the_fetch_cap_is_said() {
    let fake = fake();
    let url = serve(fake.clone());
    let store = store(&url, tokens());

    let inbox = store.load().unwrap();
    // The newest 1,000 of BlueLake's 1,500, and a line saying older mail
    // is not shown.
    assert_eq!(inbox.messages.len(), CAP);
    assert!(inbox.message_by_key(&MESSAGES.to_string()).is_some());
    assert!(inbox.message_by_key("1").is_none());
    assert_eq!(inbox.problems.len(), 1, "{:?}", inbox.problems);
    let (what, why) = &inbox.problems[0];
    assert_eq!(what.to_string_lossy(), "repo/BlueLake");
    assert!(
        why.contains("at most 1000") && why.contains("not shown"),
        "{why}"
    );
    {
        let seen = fake.seen.lock().unwrap();
        for (tool, args) in seen.calls.iter().filter(|(t, _)| t == "fetch_inbox") {
            assert!(
                args["limit"].as_i64().unwrap() <= CAP as i64,
                "{tool}: {args:?}"
            );
            let agent = args["agent_name"].as_str().unwrap();
            assert_eq!(
                args["registration_token"].as_str(),
                fake.tokens.get(agent).copied(),
                "{args:?}"
            );
        }
    }

    // An ack sends the acting agent's registration_token, a reply its
    // sender_token.
    let key = MESSAGES.to_string();
    let acked = store
        .ack(
            Some(&inbox),
            std::slice::from_ref(&key),
            "BlueLake",
            chrono::Utc::now(),
        )
        .unwrap();
    assert_eq!(acked[0].agent, "BlueLake");
    store
        .reply(Some(&inbox), &key, "BlueLake", "on it", chrono::Utc::now())
        .unwrap();
    let seen = fake.seen.lock().unwrap();
    let last = |tool: &str| {
        seen.calls
            .iter()
            .rev()
            .find(|(t, _)| t == tool)
            .map(|(_, a)| a.clone())
            .unwrap()
    };
    let ack = last("acknowledge_message");
    assert_eq!(ack["registration_token"], "blue-s3cret");
    assert!(!ack.contains_key("sender_token"));
    let reply = last("reply_message");
    assert_eq!(reply["sender_token"], "blue-s3cret");
    assert!(!reply.contains_key("registration_token"));
}

#[test]
fn without_its_token_an_agent_is_refused_in_one_line_that_shows_no_token() {
    let fake = fake();
    let url = serve(fake);
    // GreenCastle's token only: BlueLake's fetch is refused by the server.
    let store = store(
        &url,
        AgentTokens::new([("GreenCastle".to_string(), "green-s3cret".to_string())]),
    );
    let e = store.load().unwrap_err().to_string();
    assert!(
        e.contains("fetch_inbox failed") && e.contains("registration_token required"),
        "{e}"
    );
    assert!(!e.contains('\n') && !e.contains("s3cret"), "{e}");
    let debug = format!("{:?}", tokens());
    assert!(
        debug.contains("BlueLake") && !debug.contains("s3cret"),
        "{debug}"
    );
}
