//! Fake HTTP servers on 127.0.0.1 for tests: one that answers every
//! request with a fixed status, one that accepts and never answers, one
//! that is no web server at all.
//!
//! Its home is here, behind the `testing` feature (and `cfg(test)`), as
//! `amail-tui`'s fakes are behind its own: the session's unit tests and
//! the CLI's integration tests (which name the feature in their
//! dev-dependency) meet the same servers, so an error line they both
//! assert on is provoked one way. A dev-dependency crate of its own would
//! add a workspace member for forty lines; a `#[doc(hidden)]` module
//! would ship them in every build.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

/// Binds a free port of 127.0.0.1 and serves each connection with
/// `serve` on a thread of its own, for the life of the test process;
/// the port.
fn spawn(serve: impl Fn(TcpStream) + Send + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for c in listener.incoming().flatten() {
            serve(c);
        }
    });
    port
}

/// A server that answers every request with `status` (e.g. "404 Not
/// Found") and the status's words as a text body; its URL with `path`
/// (`/mcp/` for the MCP endpoint).
pub fn answering(status: &'static str, path: &str) -> String {
    let port = spawn(move |mut c| {
        let mut buf = [0u8; 8192];
        let _ = c.read(&mut buf);
        let body = status.split_once(' ').map_or(status, |(_, w)| w);
        let _ = write!(
            c,
            "HTTP/1.1 {status}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    format!("http://127.0.0.1:{port}{path}")
}

/// A server that accepts connections and holds them, never answering;
/// its MCP URL.
pub fn silent() -> String {
    let held = std::sync::Mutex::new(Vec::new());
    let port = spawn(move |c| held.lock().unwrap().push(c));
    format!("http://127.0.0.1:{port}/mcp/")
}

/// Something that is no web server (an SSH banner, then the connection
/// closed once the client has written); its MCP URL.
pub fn not_http() -> String {
    let port = spawn(|mut c| {
        let _ = c.write_all(b"SSH-2.0-OpenSSH_9.6\r\n");
        let mut buf = [0u8; 1024];
        let _ = c.read(&mut buf);
    });
    format!("http://127.0.0.1:{port}/mcp/")
}
