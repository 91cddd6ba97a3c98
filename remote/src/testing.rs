//! Fake HTTP servers on 127.0.0.1 for tests: one that answers every
//! request with a fixed status, one that accepts and never answers, one
//! that is no web server at all; and a TLS front for any of them (or for
//! a live server), as a user's reverse proxy is.
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

/// A port whose connects are never answered, as one of a machine that is
/// off or behind a firewall that drops them: its accept queue is full
/// (its listener never accepts, and this fills the queue), so the
/// kernel drops each new connect's first packet. Its MCP URL.
pub fn unanswered_connects() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let mut queued = Vec::new();
    while let Ok(c) = TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(200)) {
        queued.push(c);
        assert!(queued.len() < 4096, "the accept queue never filled");
    }
    // Held for the life of the test process, as the other fakes are.
    std::mem::forget((listener, queued));
    format!("http://{addr}/mcp/")
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

/// A TLS front for the server at `target` (an `http://127.0.0.1:PORT/...`
/// URL), as a reverse proxy in front of a user's server is: it takes
/// https on a port of its own, with a certificate for 127.0.0.1 made now,
/// and passes the bytes to the target's port as they are. Its https URL
/// (the target's path) and its certificate in PEM, which a client trusts
/// through `SSL_CERT_FILE` (the certificate is its own issuer).
pub fn tls_front(target: &str) -> (String, String) {
    tls_front_with(target, rcgen::IsCa::NoCa)
}

/// [`tls_front`] with the certificate `openssl req -x509` makes, the
/// usual recipe for a server's own: marked `CA:TRUE`.
pub fn tls_front_openssl_style(target: &str) -> (String, String) {
    tls_front_with(
        target,
        rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained),
    )
}

fn tls_front_with(target: &str, is_ca: rcgen::IsCa) -> (String, String) {
    use std::sync::Arc;
    let target = url::Url::parse(target).expect("an http URL");
    let to = format!("127.0.0.1:{}", target.port().expect("a port"));
    let key_pair = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    params.is_ca = is_ca;
    // A name of its own (rcgen's default is one name for all): a front's
    // certificate is not taken for another's issuer.
    params.distinguished_name.push(
        rcgen::DnType::CommonName,
        format!("amail test front {}", to),
    );
    let cert = params.self_signed(&key_pair).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(key_pair.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.der().clone()], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((c, _)) = listener.accept().await {
                let (acceptor, to) = (acceptor.clone(), to.clone());
                tokio::spawn(async move {
                    // A client that refuses the certificate ends here.
                    let Ok(mut tls) = acceptor.accept(c).await else {
                        return;
                    };
                    let Ok(mut back) = tokio::net::TcpStream::connect(&to).await else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut back).await;
                });
            }
        });
    });
    (
        format!("https://127.0.0.1:{port}{}", target.path()),
        cert.pem(),
    )
}
