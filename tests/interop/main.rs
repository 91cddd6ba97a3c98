//! Interop with the real mcp_agent_mail server (PyPI
//! `mcp-agent-mail==0.1.0`, run offline from a virtualenv that
//! `setup-venv.sh` beside this file creates once under the target
//! directory; the Python view scripts are here too). Skipped, with the
//! reason printed, only where Python 3.12 is missing.

// Only the shared helpers this binary calls: one it stops calling is a
// dead-code warning, so helpers no test uses do not pile up.
#[path = "../support"]
mod support {
    pub mod cli;
    pub mod copy;
    pub mod fixture;
    pub mod interop;
}

mod mcp_agent_mail;
mod mcp_corpus;
