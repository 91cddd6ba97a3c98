//! A server behind TLS, as a user's server on another machine is: amail
//! reaches it through an `https://` URL, trusting the certificate the
//! system trusts or the one `SSL_CERT_FILE` names; a refused certificate
//! and `https://` typed for a plain HTTP port are each one line that says
//! what to do. (The same through a live server: tests/interop.)

use std::path::Path;
use std::process::{Command, Output};

/// `amail threads --server URL` with a home under `dir`, a token, and
/// `cert` (a PEM file) as SSL_CERT_FILE. Without one, another server's
/// certificate stands for the system's store, so that these tests read
/// the same on a machine whose store is empty or holds anything else.
fn threads(dir: &Path, url: &str, cert: Option<&Path>) -> Output {
    let other = dir.join("another-servers.pem");
    if cert.is_none() && !other.exists() {
        let (_, pem) =
            amail_remote::testing::tls_front(&amail_remote::testing::answering("200 OK", "/"));
        std::fs::write(&other, pem).unwrap();
    }
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(["threads", "--server", url])
        .env("AMAIL_HOME", dir.join("home"))
        .env("AMAIL_CONFIG", dir.join("no-config.toml"))
        .env("AMAIL_SERVER_TOKEN", "t0ken")
        .env_remove("SSL_CERT_DIR")
        .env("SSL_CERT_FILE", cert.unwrap_or(&other))
        .output()
        .unwrap()
}

/// A failed run's stderr: exit code 1 and one line.
fn one_line_error(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    err
}

/// Before, every https URL was refused ("this amail was built without
/// TLS"): a server on another machine, behind the usual TLS proxy, could
/// not be reached at all. Now the request goes through: the fake behind
/// the TLS front answers 404, and that is what the line reports.
#[test]
fn an_https_server_is_reached_through_tls() {
    let dir = tempfile::tempdir().unwrap();
    let http = amail_remote::testing::answering("404 Not Found", "/mcp/");
    let (url, pem) = amail_remote::testing::tls_front(&http);
    let cert = dir.path().join("server.pem");
    std::fs::write(&cert, pem).unwrap();
    let out = threads(dir.path(), &url, Some(&cert));
    let err = one_line_error(&out);
    assert!(
        err.contains("404") && !err.contains("TLS") && !err.contains("certificate"),
        "{err}"
    );
}

/// The same server, its certificate not trusted here: one line says the
/// certificate was refused, why, and how to trust it.
#[test]
fn an_untrusted_certificate_says_how_to_trust_it() {
    let dir = tempfile::tempdir().unwrap();
    let (url, _pem) =
        amail_remote::testing::tls_front(&amail_remote::testing::answering("200 OK", "/mcp/"));
    let out = threads(dir.path(), &url, None);
    let err = one_line_error(&out);
    assert!(
        err.contains("certificate was refused")
            && err.contains("issuer")
            && err.contains("SSL_CERT_FILE"),
        "{err}"
    );
    assert!(!err.contains("t0ken") && !err.contains("rmcp::"), "{err}");
}

/// `https://` typed for a server that speaks plain HTTP: the line gives
/// the http:// URL.
#[test]
fn https_for_a_plain_http_port_gives_the_http_url() {
    let dir = tempfile::tempdir().unwrap();
    let http = amail_remote::testing::answering("200 OK", "/mcp/");
    let url = http.replacen("http://", "https://", 1);
    let out = threads(dir.path(), &url, None);
    let err = one_line_error(&out);
    assert!(err.contains(&format!("give {http}")), "{err}");
}

/// A proxy in the environment (`HTTP_PROXY`, as in many containers and
/// offices) took the requests for a server on this machine to the proxy,
/// whose 127.0.0.1 is its own: "no server answers (something accepts
/// connections on that port but gave no HTTP answer)" though the server
/// was up. A loopback server is never reached through a proxy (Go's
/// net/http rule); here the proxy is a dead port, and the fake's 404 is
/// what the line reports, for each of the names a loopback host goes by.
#[test]
fn a_server_on_this_machine_is_not_reached_through_a_proxy() {
    let dir = tempfile::tempdir().unwrap();
    let url = amail_remote::testing::answering("404 Not Found", "/mcp/");
    let port = url.rsplit_once(':').unwrap().1.trim_end_matches("/mcp/");
    for host in ["127.0.0.1", "localhost"] {
        let url = format!("http://{host}:{port}/mcp/");
        let mut c = Command::new(env!("CARGO_BIN_EXE_amail"));
        c.args(["threads", "--server", &url])
            .env("AMAIL_HOME", dir.path().join("home"))
            .env("AMAIL_CONFIG", dir.path().join("no-config.toml"))
            .env("AMAIL_SERVER_TOKEN", "t0ken")
            .env_remove("NO_PROXY")
            .env_remove("no_proxy");
        for var in ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "ALL_PROXY"] {
            c.env(var, "http://127.0.0.1:9");
        }
        let err = one_line_error(&c.output().unwrap());
        assert!(
            err.contains("404") && !err.contains("no server answers"),
            "{host}: {err}"
        );
    }
}

/// A server on another machine, through a proxy of the environment that
/// gives no answer: the line spoke of a direct connect to the server
/// (amail's probe of its port), which the request never made. It names
/// the proxy's variable and NO_PROXY. (10.255.255.1 is never reached:
/// the request goes to the dead proxy, and no probe is made.)
#[test]
fn a_proxy_that_gives_no_answer_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let url = "http://10.255.255.1:8765/mcp/";
    let out = Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(["threads", "--server", url, "--timeout", "5"])
        .env("AMAIL_HOME", dir.path().join("home"))
        .env("AMAIL_CONFIG", dir.path().join("no-config.toml"))
        .env("AMAIL_SERVER_TOKEN", "t0ken")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .env_remove("http_proxy")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .output()
        .unwrap();
    let err = one_line_error(&out);
    assert!(
        err.contains("HTTP_PROXY") && err.contains("NO_PROXY") && !err.contains("t0ken"),
        "{err}"
    );
}

/// A server's own certificate made as `openssl req -x509` makes it (the
/// usual recipe), which marks it `CA:TRUE`: named in SSL_CERT_FILE it was
/// still refused ("Other(OtherError(CaUsedAsEndEntity))", WebPKI's rule
/// that a CA's certificate is no server's). The certificate the user
/// named is taken as it is; the fake's 404 is what the line reports.
#[test]
fn a_named_openssl_style_certificate_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let http = amail_remote::testing::answering("404 Not Found", "/mcp/");
    let (url, pem) = amail_remote::testing::tls_front_openssl_style(&http);
    let cert = dir.path().join("server.pem");
    std::fs::write(&cert, pem).unwrap();
    let err = one_line_error(&threads(dir.path(), &url, Some(&cert)));
    assert!(err.contains("404") && !err.contains("certificate"), "{err}");
    // Not named, it is refused as any other, in words.
    let err = one_line_error(&threads(dir.path(), &url, None));
    assert!(
        err.contains("certificate was refused")
            && err.contains("CA:TRUE")
            && !err.contains("Other("),
        "{err}"
    );
}

/// SSL_CERT_FILE naming a file that is missing, or holds no certificate
/// (a key, a token): the server's certificate was refused with no word
/// of the file. The line names the file and what is wrong with it.
#[test]
fn a_cert_file_that_is_missing_or_holds_none_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (url, _pem) =
        amail_remote::testing::tls_front(&amail_remote::testing::answering("200 OK", "/mcp/"));
    let not_pem = dir.path().join("token");
    std::fs::write(&not_pem, "s3cr3t\n").unwrap();
    let missing = dir.path().join("missing.pem");
    for (file, what) in [
        (&missing, "cannot read it"),
        (&not_pem, "no certificate in it"),
    ] {
        let err = one_line_error(&threads(dir.path(), &url, Some(file)));
        assert!(
            err.contains(&format!("SSL_CERT_FILE {}: {what}", file.display()))
                && !err.contains("s3cr3t"),
            "{err}"
        );
    }
}

/// A plain http:// server needs no certificate, yet on a machine with no
/// CA certificates (a slim container without ca-certificates), or with
/// `SSL_CERT_FILE` naming a file that is not there, every server was
/// refused before a byte was sent: "not an MCP Agent Mail server answer
/// (cannot set up HTTP: builder error): check the URL's port and path".
/// The HTTP client loaded the machine's store for TLS it would never
/// use. Now the request goes out, and the line is the server's answer.
#[test]
fn a_plain_http_server_needs_no_certificate_store() {
    let dir = tempfile::tempdir().unwrap();
    let url = amail_remote::testing::answering("404 Not Found", "/mcp/");
    let empty_dir = dir.path().join("no-certs");
    std::fs::create_dir(&empty_dir).unwrap();
    let empty = empty_dir.join("none.pem");
    std::fs::write(&empty, "").unwrap();
    for file in [empty.clone(), empty_dir.join("missing.pem")] {
        let out = Command::new(env!("CARGO_BIN_EXE_amail"))
            .args(["threads", "--server", &url])
            .env("AMAIL_HOME", dir.path().join("home"))
            .env("AMAIL_CONFIG", dir.path().join("no-config.toml"))
            .env("AMAIL_SERVER_TOKEN", "t0ken")
            .env("SSL_CERT_DIR", &empty_dir)
            .env("SSL_CERT_FILE", &file)
            .output()
            .unwrap();
        let err = one_line_error(&out);
        assert!(
            err.contains("404") && !err.contains("set up") && !err.contains("certificate"),
            "{}: {err}",
            file.display()
        );
    }
}
