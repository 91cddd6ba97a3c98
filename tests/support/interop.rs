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
pub fn server_python() -> Option<PathBuf> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON.get_or_init(set_up_venv).clone()
}

fn set_up_venv() -> Option<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/setup-venv.sh");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .arg(target_dir().join("interop-venv"))
        .output()
        .expect("bash runs");
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
