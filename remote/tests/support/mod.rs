//! What the fake-server tests share: serving a fake `ServerHandler` over
//! rmcp's streamable HTTP on a free port of 127.0.0.1, and a store that
//! talks to it; what a fake says of itself and how it lists a tool.

use std::sync::Arc;
use std::time::Duration;

use amail_remote::{AgentTokens, ServerStore};
use rmcp::model::{
    ReadResourceResponse, ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Map, Value};

/// Starts `fake` on a free port of 127.0.0.1 (its own thread and runtime,
/// for the life of the test process); its URL.
pub(crate) fn serve<F: ServerHandler + Clone + Send + Sync + 'static>(fake: F) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let service = StreamableHttpService::new(
                move || Ok(fake.clone()),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default().with_sse_keep_alive(None),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, router).await.unwrap();
        });
    });
    let addr = rx.recv().unwrap();
    format!("http://{addr}/mcp")
}

/// A store for the server at `url`, with `tokens` for its agents.
pub(crate) fn store(url: &str, tokens: AgentTokens) -> ServerStore {
    ServerStore::new(amail_remote::ServerConfig {
        url: url.to_string(),
        token: None,
        project: None,
        timeout: Duration::from_secs(30),
        agent_tokens: tokens,
    })
    .unwrap()
}

/// What a fake says of itself: tools and resources, as the real server.
pub(crate) fn info() -> ServerConfig {
    ServerConfig::new(
        ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build(),
    )
}

/// A tool named `name` taking `args` (any JSON each), as a fake lists it.
pub(crate) fn tool(name: &'static str, args: &[&str]) -> Tool {
    let props: Map<String, Value> = args.iter().map(|a| (a.to_string(), json!({}))).collect();
    let schema = json!({"type": "object", "properties": props});
    Tool::new(name, name, Arc::new(schema.as_object().unwrap().clone()))
}

/// A fake's answer to `resources/read`: the one project `repo`, `agents`
/// as its agents, and `ack_view` for an agent's ack-required view (its URI
/// given); any other URI is not found, as on the real server.
pub(crate) fn resource(
    uri: &str,
    agents: &[&str],
    ack_view: impl FnOnce(&str) -> Value,
) -> Result<ReadResourceResponse, ErrorData> {
    let v = if uri == "resource://projects" {
        json!([{"slug": "repo", "human_key": "/home/dev/repo"}])
    } else if uri.starts_with("resource://agents/") {
        let agents: Vec<Value> = agents.iter().map(|a| json!({ "name": a })).collect();
        json!({ "agents": agents })
    } else if uri.starts_with("resource://views/ack-required/") {
        ack_view(uri)
    } else {
        return Err(ErrorData::resource_not_found(uri.to_string(), None));
    };
    Ok(ReadResourceResult::new(vec![ResourceContents::text(v.to_string(), uri)]).into())
}
