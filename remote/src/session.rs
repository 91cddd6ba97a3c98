//! One MCP connection to a server, made on first use and made again after
//! it fails (a server that went away and came back is picked up by the
//! next call). Each call is bounded by a timeout; every failure becomes a
//! [`ServerError`], one line saying what failed, where, and what to do.
//!
//! The bearer token is sent in the `Authorization` header only; it is never
//! part of an error message, a log line or `Debug` output.

use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use amail_core::source::parallel::join;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};

use crate::toolset::{Route, ToolSet};

/// Where the server is and how to talk to it.
#[derive(Clone)]
pub struct ServerConfig {
    /// The MCP endpoint, e.g. `http://127.0.0.1:8765/mcp/`.
    pub url: String,
    /// The bearer token (`HTTP_BEARER_TOKEN` of the server).
    pub token: Option<String>,
    /// Only this project (slug or human key); `None`: every project.
    pub project: Option<String>,
    /// Longest wait for one call, connecting included.
    pub timeout: Duration,
    /// The agents' own tokens, by agent name (their `registration_token`
    /// from `register_agent`), for 0.3.x servers, whose tools check a
    /// `registration_token` (fetch, ack, mark read) or `sender_token`
    /// (send, reply) unless the session is bound to the agent. Sent only
    /// to tools whose schema asks for them; never printed.
    pub agent_tokens: AgentTokens,
}

/// Agent name -> that agent's token (see [`ServerConfig::agent_tokens`]).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct AgentTokens(std::collections::BTreeMap<String, String>);

impl AgentTokens {
    pub fn new<I: IntoIterator<Item = (String, String)>>(pairs: I) -> AgentTokens {
        AgentTokens(pairs.into_iter().collect())
    }

    /// `agent`'s token (names compared as the server does, ignoring case).
    pub fn get(&self, agent: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(a, _)| a.eq_ignore_ascii_case(agent))
            .map(|(_, t)| t.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for AgentTokens {
    /// The agents' names only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "<hidden>"))
            .field("project", &self.project)
            .field("timeout", &self.timeout)
            .field("agent_tokens", &self.agent_tokens)
            .finish()
    }
}

/// What went wrong talking to a server, as the user can act on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerError {
    /// 401: no token (`token_from` is `None`), or not the server's:
    /// `token_from` says where amail took the one it sent.
    Unauthorized {
        url: String,
        token_from: Option<String>,
    },
    /// 403: the token is accepted but may not do this.
    Forbidden {
        url: String,
        what: String,
        token_from: Option<String>,
    },
    /// Nothing answers there.
    Unreachable { url: String, detail: String },
    /// Connects to the URL's port go unanswered: the machine is off, or a
    /// firewall drops them.
    Dropped { url: String },
    /// This machine cannot look up the URL's host name: there is no
    /// "there" to ask about a server at.
    UnknownHost {
        url: String,
        host: String,
        detail: String,
    },
    /// No answer in time.
    Timeout {
        url: String,
        what: String,
        after: Duration,
    },
    /// The server ran the tool and it failed.
    Tool {
        url: String,
        tool: String,
        message: String,
    },
    /// The server's release lacks what was asked.
    TooOld {
        url: String,
        release: &'static str,
        feature: String,
    },
    /// It answered, but not as an MCP Agent Mail server does.
    Protocol { url: String, detail: String },
    /// The TLS handshake failed: the certificate was refused, or the
    /// server speaks plain HTTP. `detail` says which, and what to do.
    Tls { url: String, detail: String },
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::Unauthorized {
                url,
                token_from: Some(from),
            } => write!(
                f,
                "{url}: the server refused the token from {from} (401 Unauthorized): that must \
                 hold the server's HTTP_BEARER_TOKEN (amail takes --token-file FILE, else \
                 AMAIL_SERVER_TOKEN, else server_token_file in the config file)"
            ),
            ServerError::Unauthorized {
                url,
                token_from: None,
            } => write!(
                f,
                "{url}: the server wants a token and no token was given (401 Unauthorized): give \
                 its HTTP_BEARER_TOKEN with --token-file FILE, AMAIL_SERVER_TOKEN or \
                 server_token_file in the config file"
            ),
            ServerError::Forbidden {
                url,
                what,
                token_from,
            } => write!(
                f,
                "{url}: the server refused {what} (403 Forbidden){}: the token may only read; \
                 a server without JWT needs HTTP_RBAC_ENABLED=false or HTTP_RBAC_DEFAULT_ROLE=writer \
                 for writes",
                token_from
                    .as_ref()
                    .map(|t| format!(" to the token from {t}"))
                    .unwrap_or_default()
            ),
            ServerError::Unreachable { url, detail } => write!(
                f,
                "{url}: no server answers ({detail}): is `mcp-agent-mail serve-http` running there, \
                 on that port and path?"
            ),
            ServerError::Dropped { url } => write!(
                f,
                "{url}: connections to that port go unanswered: the machine is off, or a \
                 firewall drops them; check the host and port"
            ),
            ServerError::UnknownHost { url, host, detail } => write!(
                f,
                "{url}: this machine cannot find the host {host} ({detail}): check the host \
                 name (a typo, or a name only a VPN or /etc/hosts knows), or give its IP address"
            ),
            ServerError::Timeout { url, what, after } => write!(
                f,
                "{url}: no answer to {what} within {}s: the server is busy or stuck; try again, \
                 or raise --timeout",
                after.as_secs()
            ),
            ServerError::Tool { url, tool, message } => {
                write!(f, "{url}: the server's {tool} failed: {message}")
            }
            ServerError::TooOld {
                url,
                release,
                feature,
            } => write!(
                f,
                "{url}: this server ({release} tools) has no {feature}: upgrade the server, \
                 or work on its storage root directly"
            ),
            ServerError::Tls { url, detail } => write!(f, "{url}: {detail}"),
            ServerError::Protocol { url, detail } => write!(
                f,
                "{url}: not an MCP Agent Mail server answer ({detail}): check the URL's port \
                 and path (the server's HTTP_PORT and HTTP_PATH, default 8765 and /mcp/)"
            ),
        }
    }
}

impl std::error::Error for ServerError {}

impl ServerError {
    /// The connection is gone or never was: the next call reconnects.
    pub fn is_connection(&self) -> bool {
        matches!(
            self,
            ServerError::Unreachable { .. }
                | ServerError::Dropped { .. }
                | ServerError::UnknownHost { .. }
                | ServerError::Timeout { .. }
        )
    }
}

struct Connection {
    client: RunningService<RoleClient, ()>,
    tools: ToolSet,
}

/// A connection to one server, used from synchronous code.
pub struct Session {
    config: ServerConfig,
    /// Where the token came from, as the user named it (a flag, a
    /// variable, a config key): a refused token's line says so.
    token_from: Option<String>,
    runtime: tokio::runtime::Runtime,
    conn: Mutex<Option<Connection>>,
}

impl Session {
    pub fn new(config: ServerConfig) -> Result<Session, ServerError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ServerError::Protocol {
                url: config.url.clone(),
                detail: format!("cannot start the network runtime: {e}"),
            })?;
        Ok(Session {
            config,
            token_from: None,
            runtime,
            conn: Mutex::new(None),
        })
    }

    /// Says where the token came from (`--token-file PATH`,
    /// `AMAIL_SERVER_TOKEN`, a config key): a 401 or 403 names it, so a
    /// stale token is found where it is kept.
    pub fn with_token_from(mut self, from: impl Into<String>) -> Session {
        self.token_from = Some(from.into());
        self
    }

    /// Where the token sent came from: `None` when none is sent; "the
    /// token given" when the caller did not say.
    fn token_origin(&self) -> Option<String> {
        self.config.token.as_ref().map(|_| {
            self.token_from
                .clone()
                .unwrap_or_else(|| "the configuration".to_string())
        })
    }

    /// Runs `fut` on the store's runtime. Called from inside another
    /// runtime (the TUI's), it runs on a short-lived thread of its own:
    /// tokio forbids blocking on a runtime from within one.
    fn block<F>(&self, fut: F) -> F::Output
    where
        F: std::future::Future + Send,
        F::Output: Send,
    {
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|s| join(s.spawn(|| self.runtime.block_on(fut))))
        } else {
            self.runtime.block_on(fut)
        }
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The server's tool set (connecting if needed).
    pub fn tools(&self) -> Result<ToolSet, ServerError> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        self.connected(&mut guard).map(|c| c.tools.clone())
    }

    fn connected<'a>(
        &self,
        slot: &'a mut Option<Connection>,
    ) -> Result<&'a Connection, ServerError> {
        if slot.is_none() {
            *slot = Some(self.connect().map_err(why_timed_out)?);
        }
        Ok(slot.as_ref().expect("just set"))
    }

    fn connect(&self) -> Result<Connection, ServerError> {
        let url = self.config.url.clone();
        let mut cfg = StreamableHttpClientTransportConfig::with_uri(url.clone());
        // The inbox of a busy agent is large: allow 256 MiB of JSON.
        cfg.max_json_response_size = 256 << 20;
        if let Some(token) = &self.config.token {
            cfg = cfg.auth_header(token.clone());
        }
        let timeout = self.config.timeout;
        let token_from = self.token_origin();
        let token_from = token_from.as_deref();
        let http = http_client(&url)?;
        self.block(async {
            let transport = StreamableHttpClientTransport::with_client(http, cfg);
            let client = tokio::time::timeout(timeout, ().serve(transport))
                .await
                .map_err(|_| ServerError::Timeout {
                    url: url.clone(),
                    what: "the MCP handshake".into(),
                    after: timeout,
                })?
                .map_err(|e| classify(&url, "the MCP handshake", token_from, &e))?;
            let listed = tokio::time::timeout(timeout, client.list_all_tools())
                .await
                .map_err(|_| ServerError::Timeout {
                    url: url.clone(),
                    what: "tools/list".into(),
                    after: timeout,
                })?
                .map_err(|e| classify(&url, "tools/list", token_from, &e))?;
            let tools = ToolSet::new(listed.into_iter().map(|t| {
                let args: Vec<String> = t
                    .input_schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                (t.name.to_string(), args)
            }));
            if tools.route("fetch_inbox").is_none() {
                return Err(ServerError::Protocol {
                    url: url.clone(),
                    detail: "it has no fetch_inbox tool".into(),
                });
            }
            Ok(Connection { client, tools })
        })
    }

    /// Calls tool `tool` with `args` and returns its result as JSON (the
    /// structured result, `{"result": x}` unwrapped, else the text parsed).
    pub fn call(&self, tool: &str, args: Map<String, Value>) -> Result<Value, ServerError> {
        self.batch(vec![Request::Call {
            tool: tool.to_string(),
            args,
        }])
        .pop()
        .expect("one answer per request")
    }

    /// Reads resource `uri` and returns its JSON text parsed.
    pub fn read(&self, uri: &str) -> Result<Value, ServerError> {
        self.batch(vec![Request::Read {
            uri: uri.to_string(),
        }])
        .pop()
        .expect("one answer per request")
    }

    /// Sends `requests` at once on the one connection and returns their
    /// answers in order. The server's per-request cost (HTTP, auth, JSON)
    /// then overlaps instead of adding up: the inbox of every agent is one
    /// round of requests, not one per agent. A connection error in any
    /// answer drops the connection, so the next call connects again.
    pub fn batch(&self, requests: Vec<Request>) -> Vec<Result<Value, ServerError>> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let conn = match self.connected(&mut guard) {
            Ok(c) => c,
            Err(e) => return requests.iter().map(|_| Err(e.clone())).collect(),
        };
        let mut answers = self.block(futures::future::join_all(
            requests.into_iter().map(|r| self.send(conn, r)),
        ));
        // One look at the port for all the requests that timed out.
        let timed_out =
            |a: &Result<Value, ServerError>| matches!(a, Err(ServerError::Timeout { .. }));
        if let Some(Err(first)) = answers.iter().find(|a| timed_out(a)) {
            let why = why_timed_out(first.clone());
            if !matches!(why, ServerError::Timeout { .. }) {
                for a in answers.iter_mut().filter(|a| timed_out(a)) {
                    *a = Err(why.clone());
                }
            }
        }
        if answers
            .iter()
            .any(|a| a.as_ref().is_err_and(ServerError::is_connection))
        {
            *guard = None;
        }
        answers
    }

    /// One request on `conn`, bounded by the timeout, its answer as JSON.
    async fn send(&self, conn: &Connection, request: Request) -> Result<Value, ServerError> {
        let url = self.config.url.clone();
        let timeout = self.config.timeout;
        match request {
            Request::Call { tool, args } => {
                let args = self.with_tokens(&conn.tools, &tool, args);
                let (name, args) = match conn.tools.route(&tool) {
                    Some(Route::Direct) => (tool.clone(), args),
                    Some(Route::Extended) => {
                        let mut wrapped = Map::new();
                        wrapped.insert("tool_name".into(), Value::String(tool.clone()));
                        wrapped.insert("arguments".into(), Value::Object(args));
                        ("call_extended_tool".to_string(), wrapped)
                    }
                    None => {
                        return Err(ServerError::TooOld {
                            url,
                            release: conn.tools.release().label(),
                            feature: format!("{tool} tool"),
                        })
                    }
                };
                let call = conn
                    .client
                    .call_tool(CallToolRequestParams::new(name).with_arguments(args));
                let res = self.settle(&tool, tokio::time::timeout(timeout, call).await)?;
                tool_value(&url, &tool, res)
            }
            Request::Read { uri } => {
                let read = conn
                    .client
                    .read_resource(ReadResourceRequestParams::new(uri.clone()));
                let res = self.settle(&uri, tokio::time::timeout(timeout, read).await)?;
                let v = serde_json::to_value(&res).map_err(|e| ServerError::Protocol {
                    url: url.clone(),
                    detail: e.to_string(),
                })?;
                let text = v["contents"][0]["text"].as_str().unwrap_or("null");
                serde_json::from_str(text).map_err(|e| ServerError::Protocol {
                    url,
                    detail: format!("{uri}: {e}"),
                })
            }
        }
    }

    /// `args` with the acting agent's token added where `tool`'s schema
    /// asks for one (0.3.x): `registration_token` for `agent_name`,
    /// `sender_token` for `sender_name`. A token the caller set stays.
    fn with_tokens(
        &self,
        tools: &ToolSet,
        tool: &str,
        mut args: Map<String, Value>,
    ) -> Map<String, Value> {
        for (field, who) in [
            ("registration_token", "agent_name"),
            ("sender_token", "sender_name"),
        ] {
            if !tools.takes(tool, field) || args.contains_key(field) {
                continue;
            }
            let agent = args.get(who).and_then(Value::as_str);
            if let Some(token) = agent.and_then(|a| self.config.agent_tokens.get(a)) {
                args.insert(field.into(), Value::String(token.to_string()));
            }
        }
        args
    }

    /// One request's outcome as a [`ServerError`] naming `what`: a
    /// timeout, or the error classified.
    fn settle<T, E: std::error::Error + 'static>(
        &self,
        what: &str,
        res: Result<Result<T, E>, tokio::time::error::Elapsed>,
    ) -> Result<T, ServerError> {
        let url = &self.config.url;
        match res {
            Err(_) => Err(ServerError::Timeout {
                url: url.clone(),
                what: what.into(),
                after: self.config.timeout,
            }),
            Ok(Err(e)) => Err(classify(url, what, self.token_origin().as_deref(), &e)),
            Ok(Ok(r)) => Ok(r),
        }
    }
}

/// One request of a [`Session::batch`].
#[derive(Debug, Clone)]
pub enum Request {
    /// A tool call (routed through `call_extended_tool` where needed).
    Call {
        tool: String,
        args: Map<String, Value>,
    },
    /// A resource read.
    Read { uri: String },
}

/// A tool's result as JSON: the structured result, `{"result": x}`
/// unwrapped, else the text parsed; a tool error as [`ServerError::Tool`].
fn tool_value(
    url: &str,
    tool: &str,
    res: rmcp::model::CallToolResult,
) -> Result<Value, ServerError> {
    let text = || -> String {
        res.content
            .iter()
            .filter_map(|c| serde_json::to_value(c).ok())
            .filter_map(|v| v.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if res.is_error == Some(true) {
        return Err(ServerError::Tool {
            url: url.to_string(),
            tool: tool.into(),
            message: one_line(&text()),
        });
    }
    let value = match &res.structured_content {
        Some(v) => v.clone(),
        None => {
            let t = text();
            serde_json::from_str(&t).unwrap_or(Value::String(t))
        }
    };
    Ok(match value {
        Value::Object(mut o) if o.len() == 1 && o.contains_key("result") => {
            o.remove("result").unwrap_or(Value::Null)
        }
        v => v,
    })
}

impl Drop for Session {
    fn drop(&mut self) {
        // Close the MCP session politely, bounded: a gone server must not
        // hold up exit.
        let conn = self
            .conn
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(c) = conn {
            let _ = self.block(async {
                tokio::time::timeout(Duration::from_millis(500), c.client.cancel()).await
            });
        }
    }
}

/// Sorts an rmcp error into what the user can act on, by its message
/// chain (the transport's error types differ between versions; the HTTP
/// status and the connect failure are in the text either way).
/// `token_from`: where the bearer token sent came from (`None`: none
/// was sent, and a 401 asks for one).
fn classify(
    url: &str,
    what: &str,
    token_from: Option<&str>,
    e: &(dyn std::error::Error + 'static),
) -> ServerError {
    let token_from = token_from.map(str::to_string);
    // The server answered, with an error of its own: its words, which no
    // rule below may read as a status or a lost connection.
    if let Some(rmcp::ServiceError::McpError(data)) = e.downcast_ref::<rmcp::ServiceError>() {
        return ServerError::Tool {
            url: url.to_string(),
            tool: what.to_string(),
            message: one_line(&data.message),
        };
    }
    if let Some(tls) = tls_error(e) {
        return ServerError::Tls {
            url: url.to_string(),
            detail: tls_detail(url, tls),
        };
    }
    let mut chain = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        chain.push_str(": ");
        chain.push_str(&s.to_string());
        src = s.source();
    }
    // The URL, its port and whatever else it holds are not the error's
    // words: a server down on port 40111 read as "401" once.
    let lower = chain.replace(url, "").to_ascii_lowercase();
    let url = url.to_string();
    if has_status(&lower, "401")
        || lower.contains("unauthorized")
        || lower.contains("auth required")
    {
        ServerError::Unauthorized { url, token_from }
    } else if has_status(&lower, "403")
        || lower.contains("forbidden")
        || lower.contains("insufficient scope")
    {
        ServerError::Forbidden {
            url,
            what: what.to_string(),
            token_from,
        }
    } else if lower.contains("connect")
        || lower.contains("error sending request")
        || lower.contains("transport closed")
        || lower.contains("channel closed")
        || lower.contains("connection")
    {
        // The connect worked where the request failed: something else
        // listens on that port (an SSH or database port typed for the
        // server's). Still unreachable for the retry's sake: a server
        // starting up or going down looks the same for a moment.
        let detail = match proxy_var(&url) {
            // The request went to the proxy: a probe of the server's own
            // port would speak of a connect that was never made.
            Some(var) => {
                let no_proxy_set = ["NO_PROXY", "no_proxy"]
                    .iter()
                    .any(|v| std::env::var_os(v).is_some());
                let unless = if no_proxy_set {
                    " (unless NO_PROXY lists this host)"
                } else {
                    ""
                };
                format!(
                    "the request went through the proxy that {var} names{unless}, and it gave \
                     no answer for this server; NO_PROXY lists the hosts reached without it"
                )
            }
            None => {
                return unreached(&url).unwrap_or_else(|| ServerError::Unreachable {
                    url,
                    detail: "something accepts connections on that port but gave no HTTP answer"
                        .to_string(),
                })
            }
        };
        ServerError::Unreachable { detail, url }
    } else if lower.contains("timeout") || lower.contains("timed out") {
        ServerError::Timeout {
            url,
            what: what.to_string(),
            after: Duration::ZERO,
        }
    } else {
        ServerError::Protocol {
            url,
            detail: short(&without_type_names(&chain)),
        }
    }
}

/// The HTTP client for a server at `url`: rmcp's own default settings
/// (no idle pool, against ~40 ms Delayed-ACK stalls and against the real
/// server's reset of a kept connection after a 202, see docs/inbox.md's
/// "Connection"; only same-origin 307 and 308 redirects, which keep the
/// POST's body and send the session to no other host: `/mcp` to
/// `/mcp/`), and no proxy for a server on this machine. A proxy from the environment (`HTTP_PROXY`, common in
/// containers and offices) took those requests to the proxy, whose
/// 127.0.0.1 is its own; loopback is never proxied, as Go's net/http rules.
fn http_client(url: &str) -> Result<reqwest::Client, ServerError> {
    const MAX_REDIRECTS: usize = 10;
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(attempt.status().as_u16(), 307 | 308);
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    // reqwest's own TLS (an http URL's client makes it too) takes the
    // process's rustls provider: ring's, set once (a second install is
    // refused, and changes nothing).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(redirects);
    if is_loopback(url) {
        builder = builder.no_proxy();
    }
    let tls = if scheme(url).as_deref() == Some("https") {
        crate::tls::client_config().map_err(|detail| ServerError::Tls {
            url: url.to_string(),
            detail,
        })?
    } else {
        crate::tls::unused_config()
    };
    builder = builder.tls_backend_preconfigured(tls);
    builder.build().map_err(|e| ServerError::Protocol {
        url: url.to_string(),
        detail: format!("cannot set up HTTP: {e}"),
    })
}

/// The environment's proxy variable that reqwest takes for `url` (its
/// name only: a proxy's URL may hold a password), none for a server on
/// this machine ([`http_client`] never proxies it).
fn proxy_var(url: &str) -> Option<&'static str> {
    if is_loopback(url) {
        return None;
    }
    let vars: [&'static str; 4] = if scheme(url).as_deref() == Some("https") {
        ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
    } else {
        ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
    };
    vars.into_iter()
        .find(|v| std::env::var_os(v).is_some_and(|p| !p.is_empty()))
}

/// Whether `url`'s host is this machine: `localhost` (and its
/// subdomains, RFC 6761), 127.0.0.0/8 or ::1.
fn is_loopback(url: &str) -> bool {
    match url::Url::parse(url).ok().as_ref().and_then(url::Url::host) {
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The TLS library's error behind `e`, through the links that hide it
/// from `source()`: rmcp keeps the handshake's transport error and
/// reqwest's error as fields, not sources, and `io::Error::source` skips
/// the error it wraps.
fn tls_error<'a>(mut e: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    use rmcp::service::ClientInitializeError;
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    loop {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        let next: Option<&(dyn std::error::Error + 'static)> =
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                io.get_ref().map(|inner| inner as _)
            } else if let Some(ClientInitializeError::TransportError { error, .. }) =
                e.downcast_ref::<ClientInitializeError>()
            {
                Some(error)
            } else if let Some(StreamableHttpError::Client(r)) =
                e.downcast_ref::<StreamableHttpError<reqwest::Error>>()
            {
                Some(r)
            } else {
                e.source()
            };
        e = next?;
    }
}

/// What a failed TLS handshake with `url` means to the user, and what to
/// do: the two a user meets are a certificate this machine does not trust
/// (a server's own, or a private CA's) and `https://` typed for a port
/// that speaks plain HTTP.
fn tls_detail(url: &str, e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    match e {
        rustls::Error::InvalidCertificate(c) => {
            let why = match c {
                C::UnknownIssuer => "its issuer is not one this machine trusts".to_string(),
                C::Expired | C::ExpiredContext { .. } => "it has expired".to_string(),
                C::NotValidForName | C::NotValidForNameContext { .. } => {
                    "it is not made out to this host name".to_string()
                }
                C::NotValidYet | C::NotValidYetContext { .. } => "it is not valid yet".to_string(),
                C::Revoked => "it was revoked".to_string(),
                // The store holds a certificate of the issuer's name, and
                // it did not sign this one: most often the server's own
                // certificate was made again and the file holds the old.
                C::BadSignature => "it is not signed by the certificate trusted under its \
                                    issuer's name (was the server's certificate made again, \
                                    the file holding the old one?)"
                    .to_string(),
                C::Other(_) if crate::tls::is_ca_as_server(e) => {
                    "it is marked as a CA's (CA:TRUE, as `openssl req -x509` makes it) and no \
                     file names it"
                        .to_string()
                }
                C::Other(o) => o.0.to_string(),
                other => format!("{other:?}"),
            };
            format!(
                "the server's TLS certificate was refused: {why}; for a certificate of the \
                 server's own (self-signed, or a private CA's), point SSL_CERT_FILE at it in PEM"
            )
        }
        rustls::Error::InvalidMessage(_) => format!(
            "no TLS answer on that port: if the server speaks plain HTTP there, give {}",
            url.replacen("https://", "http://", 1)
        ),
        other => format!("the TLS handshake failed: {other}"),
    }
}

/// `text` without the SDK's Rust type names (`[rmcp::transport::...<...>]`,
/// which its transport errors print before what happened): they say
/// nothing to the user and, 150 characters long, pushed the server's
/// answer (`HTTP 404`) past the end of the line.
fn without_type_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        // The matching `]`, brackets nested inside counted.
        let mut depth = 0usize;
        let close = rest[open..].char_indices().find_map(|(i, c)| {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(open + i);
                    }
                }
                _ => {}
            }
            None
        });
        let Some(close) = close else { break };
        let inside = &rest[open + 1..close];
        out.push_str(&rest[..open]);
        if !inside.contains("::") {
            out.push_str(&rest[open..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    one_line(&out)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `e`, unless it is a timeout and the server's port says why better:
/// a call unanswered in time reads "busy or stuck", which is so only
/// when the port takes connections. A machine that is off, a
/// firewall that drops them, a server gone (refused) or a host no
/// longer known are said as such. Not through a proxy: the request
/// went to the proxy, not to the server's port.
fn why_timed_out(e: ServerError) -> ServerError {
    let ServerError::Timeout { url, .. } = &e else {
        return e;
    };
    if proxy_var(url).is_some() {
        return e;
    }
    unreached(url).unwrap_or(e)
}

/// Why nothing answers at `url`, from one lookup of its host and one TCP
/// connect to its port (a second at most): the transport's error keeps
/// only "error sending request", its cause dropped. `None` when the
/// connect succeeds (then the transport's own words are all there is)
/// or the URL does not parse.
fn unreached(url: &str) -> Option<ServerError> {
    let parsed = url::Url::parse(url).ok()?;
    let first = match parsed.socket_addrs(|| None) {
        Ok(addrs) => *addrs.first()?,
        Err(e) => {
            return Some(ServerError::UnknownHost {
                url: url.to_string(),
                host: parsed.host_str().unwrap_or_default().to_string(),
                detail: e.to_string(),
            })
        }
    };
    let detail = match std::net::TcpStream::connect_timeout(&first, Duration::from_secs(1)) {
        Ok(_) => return None,
        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
            return Some(ServerError::Dropped {
                url: url.to_string(),
            })
        }
        Err(e) => e.to_string(),
    };
    Some(ServerError::Unreachable {
        url: url.to_string(),
        detail,
    })
}

/// The scheme of `url`, lower case (schemes ignore case, RFC 3986:
/// `HTTP://` is `http`); None without `://`. The one reading of it, for
/// `--server`'s check.
pub fn scheme(url: &str) -> Option<String> {
    url.split_once("://").map(|(s, _)| s.to_ascii_lowercase())
}

/// Whether `url` is an http(s) URL, the scheme in any case: what
/// `--server`, a SOURCE and the config's `[[servers]]` accept.
pub fn is_http_url(url: &str) -> bool {
    matches!(scheme(url).as_deref(), Some("http" | "https"))
}

/// Whether `text` holds the HTTP status `code` as a number of its own:
/// not part of a longer number (`40111`, `4030 ms`), not a port
/// (`127.0.0.1:401`) or part of an address.
fn has_status(text: &str, code: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices(code).any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| b[i]);
        let after = b.get(at + code.len()).copied();
        !matches!(before, Some(c) if c.is_ascii_digit() || c == b':' || c == b'.')
            && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

/// The first 200 characters of an error chain on one line.
fn short(s: &str) -> String {
    let s = one_line(s);
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::answering;

    /// A server at `url`, with `token`, each call bounded by `secs`.
    fn config(url: &str, token: Option<&str>, secs: u64) -> ServerConfig {
        ServerConfig {
            url: url.into(),
            token: token.map(str::to_string),
            project: None,
            timeout: Duration::from_secs(secs),
            agent_tokens: Default::default(),
        }
    }

    #[test]
    fn the_token_is_never_in_debug_output() {
        let c = config("http://127.0.0.1:1/mcp/", Some("s3cr3t-token"), 1);
        assert!(!format!("{c:?}").contains("s3cr3t"));
    }

    #[test]
    fn a_server_that_never_answers_times_out_in_one_line() {
        // Accepts connections and holds them, never answering.
        let url = crate::testing::silent();
        let s = Session::new(config(&url, None, 1)).unwrap();
        let e = s.call("fetch_inbox", Map::new()).unwrap_err();
        assert!(matches!(e, ServerError::Timeout { .. }), "{e:?}");
        let line = e.to_string();
        assert!(
            line.starts_with(&url) && line.contains("within 1s"),
            "{line}"
        );
        assert!(!line.contains('\n'));
    }

    /// A closed port whose digits hold 401 or 403 (40111, 40312) was
    /// taken for a refused token or a forbidden call: the status was
    /// searched for anywhere in the error's text, the URL and its port
    /// included. A user whose server is down heard "the server refused
    /// the token"; the live-server tests failed so on such ports.
    #[test]
    fn a_closed_port_whose_digits_hold_a_status_is_unreachable() {
        for range in [40100..40200u16, 40300..40400, 14010..14020, 4030..4040] {
            let Some(port) = range
                .into_iter()
                .find(|p| std::net::TcpListener::bind(("127.0.0.1", *p)).is_ok())
            else {
                continue;
            };
            let url = format!("http://127.0.0.1:{port}/mcp/");
            let s = Session::new(config(&url, Some("t"), 5)).unwrap();
            let e = s.call("fetch_inbox", Map::new()).unwrap_err();
            assert!(
                matches!(e, ServerError::Unreachable { .. }),
                "port {port}: {e}"
            );
            assert!(e.to_string().contains("refused"), "port {port}: {e}");
        }
    }

    /// The statuses a transport prints, told apart from the same digits
    /// in a port, an address or a longer number.
    #[test]
    fn a_status_is_a_number_of_its_own() {
        for (text, code, found) in [
            (
                "HTTP status client error (401 Unauthorized) for url (x)",
                "401",
                true,
            ),
            ("unexpected status 403", "403", true),
            ("status: 401", "401", true),
            (
                "error sending request for url (http://127.0.0.1:40111/mcp/)",
                "401",
                false,
            ),
            (
                "tcp connect error: 127.0.0.1:401: Connection refused",
                "401",
                false,
            ),
            ("tcp connect error: 127.0.0.1:14031: refused", "403", false),
            ("took 4013 ms", "401", false),
            ("os error 4030", "403", false),
        ] {
            assert_eq!(has_status(text, code), found, "{text:?} {code}");
        }
    }

    /// An error the server answered with (a JSON-RPC error) is its own
    /// words, whatever they hold: "message 401 not found" is not a
    /// refused token, "connection pool exhausted" not an absent server.
    #[test]
    fn the_server_s_own_error_is_its_words() {
        for message in [
            "message 401 not found",
            "agent 403 forbidden to post here",
            "connection pool exhausted",
        ] {
            let e = rmcp::ServiceError::McpError(rmcp::ErrorData::invalid_params(message, None));
            let got = classify(
                "http://127.0.0.1:8765/mcp/",
                "acknowledge_message",
                Some("AMAIL_SERVER_TOKEN"),
                &e,
            );
            assert_eq!(
                got,
                ServerError::Tool {
                    url: "http://127.0.0.1:8765/mcp/".into(),
                    tool: "acknowledge_message".into(),
                    message: message.into(),
                },
                "{message}"
            );
        }
    }

    /// A URL whose path is not the server's MCP endpoint (the server's
    /// root, `/api/`) answers 404: the line said "Send message error
    /// Transport [rmcp::transport::worker::WorkerTransport<rmcp::...<reqwest
    /// ::async_impl::client::Client>>] error: unexpected serv..." (the SDK's
    /// type names, cut at 200 characters before the status). Found by
    /// giving `amail threads --server http://127.0.0.1:8765/` to a live
    /// server. The line says what the server answered, in words.
    #[test]
    fn a_wrong_path_says_what_the_server_answered() {
        for path in ["/", "/api/"] {
            let url = answering("404 Not Found", path);
            let s = Session::new(config(&url, Some("t"), 5)).unwrap();
            let e = s.call("fetch_inbox", Map::new()).unwrap_err();
            assert!(matches!(e, ServerError::Protocol { .. }), "{e:?}");
            let line = e.to_string();
            assert!(line.contains("404"), "{line}");
            assert!(
                !line.contains("rmcp::") && !line.contains("..."),
                "the SDK's type names, not what happened: {line}"
            );
            assert!(line.contains("/mcp/"), "{line}");
        }
    }

    /// Another web service on the port (the user's typo, or a port some
    /// other tool took): `python -m http.server` answers a POST with 501,
    /// and the line said "check the URL's path" of a URL whose path was
    /// the server's own `/mcp/`. Found by giving `amail threads` such a
    /// port. The line points at the port as well as the path.
    #[test]
    fn another_web_service_on_the_port_says_check_the_port() {
        let url = answering("501 Unsupported method ('POST')", "/mcp/");
        let s = Session::new(config(&url, Some("t"), 5)).unwrap();
        let line = s.call("fetch_inbox", Map::new()).unwrap_err().to_string();
        assert!(line.contains("501"), "{line}");
        assert!(
            line.contains("port") && line.contains("HTTP_PORT") && line.contains("/mcp/"),
            "{line}"
        );
    }

    /// A port where something other than a web server listens (an SSH
    /// banner, then the connection closed): the line said "no server
    /// answers (... error sending request for url ...)", as for a port
    /// nothing listens on. It says something is there, not answering in
    /// HTTP, and still points at the port.
    #[test]
    fn a_port_that_is_no_web_server_says_something_else_listens() {
        let url = crate::testing::not_http();
        let s = Session::new(config(&url, Some("t"), 5)).unwrap();
        let e = s.call("fetch_inbox", Map::new()).unwrap_err();
        assert!(e.is_connection(), "{e:?}");
        let line = e.to_string();
        assert!(
            line.contains("something accepts connections on that port") && line.contains("port"),
            "{line}"
        );
        assert!(!line.contains("rmcp::") && !line.contains('\n'), "{line}");
    }

    /// No token given and the server wants one: the line said "the server
    /// refused the token" (there was none). Found by running `amail
    /// pending --server URL` with no token set against a live server.
    #[test]
    fn no_token_where_one_is_wanted_says_none_was_given() {
        let url = answering("401 Unauthorized", "/mcp/");
        let s = Session::new(config(&url, None, 5)).unwrap();
        let e = s.call("fetch_inbox", Map::new()).unwrap_err();
        let line = e.to_string();
        assert!(
            line.contains("no token was given") && !line.contains("refused the token"),
            "{line}"
        );
        assert!(
            line.contains("--token-file") && line.contains("AMAIL_SERVER_TOKEN"),
            "{line}"
        );
        // With a token, it is the token that was refused.
        let s = Session::new(config(&url, Some("wrong"), 5)).unwrap();
        let line = s.call("fetch_inbox", Map::new()).unwrap_err().to_string();
        assert!(line.contains("refused the token"), "{line}");
    }

    /// A refused token (401) or a token refused a call (403) said nothing
    /// of where it came from, of the four places amail takes one: the
    /// line names the one given, and never the token.
    #[test]
    fn a_refused_token_says_where_it_came_from() {
        for (status, said) in [
            (
                "401 Unauthorized",
                "refused the token from AMAIL_SERVER_TOKEN",
            ),
            ("403 Forbidden", "to the token from AMAIL_SERVER_TOKEN"),
        ] {
            let url = answering(status, "/mcp/");
            let s = Session::new(config(&url, Some("s3cr3t"), 5))
                .unwrap()
                .with_token_from("AMAIL_SERVER_TOKEN");
            let line = s.call("fetch_inbox", Map::new()).unwrap_err().to_string();
            assert!(line.contains(said) && !line.contains("s3cr3t"), "{line}");
        }
    }

    /// Each refusal a user meets is said in words with the way to trust
    /// the certificate; WebPKI's names (`BadSignature`, `UnknownIssuer`)
    /// are not the line.
    #[test]
    fn a_refused_certificate_is_said_in_words() {
        use rustls::CertificateError as C;
        for (e, words) in [
            (
                C::UnknownIssuer,
                "its issuer is not one this machine trusts",
            ),
            (C::BadSignature, "made again"),
            (C::Expired, "it has expired"),
            (C::NotValidForName, "not made out to this host name"),
        ] {
            let line = tls_detail("https://h/mcp/", &rustls::Error::InvalidCertificate(e));
            assert!(
                line.contains(words) && line.contains("SSL_CERT_FILE") && !line.contains("Bad"),
                "{line}"
            );
        }
    }

    /// Which hosts skip the environment's proxy: this machine's names only.
    #[test]
    fn loopback_hosts_are_this_machines_names_only() {
        for url in [
            "http://127.0.0.1:8765/mcp/",
            "http://127.9.8.7/mcp/",
            "https://[::1]:8765/mcp/",
            "http://localhost:8765/mcp/",
            "http://LOCALHOST./mcp/",
            "http://agents.localhost/mcp/",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "http://10.0.0.2:8765/mcp/",
            "https://mail.example.com/mcp/",
            "http://localhost.example.com/mcp/",
            "http://[::2]/mcp/",
            "not a url",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
    }

    #[test]
    fn an_unreachable_server_is_one_clear_line() {
        // Port 1 on loopback: nothing listens there.
        let s = Session::new(config("http://127.0.0.1:1/mcp/", Some("s3cr3t-token"), 5)).unwrap();
        let e = s.call("fetch_inbox", Map::new()).unwrap_err();
        assert!(matches!(e, ServerError::Unreachable { .. }), "{e:?}");
        let line = e.to_string();
        assert!(!line.contains('\n') && line.starts_with("http://127.0.0.1:1/mcp/"));
        assert!(!line.contains("s3cr3t"));
    }

    /// A port whose connects go unanswered (a machine that is off, a
    /// firewall that drops them) read "the server is busy or stuck": no
    /// server was ever reached. The line says what a connect that is
    /// never answered means.
    #[test]
    fn a_port_whose_connects_go_unanswered_is_not_called_busy() {
        let url = crate::testing::unanswered_connects();
        let s = Session::new(config(&url, None, 2)).unwrap();
        let e = s.call("fetch_inbox", Map::new()).unwrap_err();
        assert!(e.is_connection(), "{e:?}");
        let line = e.to_string();
        assert!(
            line.starts_with(url.as_str())
                && line.contains("the machine is off, or a firewall drops")
                && !line.contains("busy or stuck"),
            "{line}"
        );
    }

    /// A host name this machine cannot look up (a typo; a name only a
    /// VPN or /etc/hosts knows) asked whether the server was running
    /// there, on that port and path: no "there" was ever found. The line
    /// names the host and says to check it.
    #[test]
    fn a_host_not_known_here_says_check_its_name() {
        // `.invalid` never resolves (RFC 6761).
        let url = "http://no-such-host.invalid:8765/mcp/";
        let s = Session::new(config(url, None, 5)).unwrap();
        let e = s.call("fetch_inbox", Map::new()).unwrap_err();
        assert!(e.is_connection(), "{e:?}");
        let line = e.to_string();
        assert!(
            line.starts_with(url)
                && line.contains("cannot find the host no-such-host.invalid")
                && line.contains("check the host name")
                && !line.contains("serve-http"),
            "{line}"
        );
    }
}
