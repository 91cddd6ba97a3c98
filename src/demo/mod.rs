//! Sample data: the demo mailbox `amail inbox --demo` opens ([`mailbox`],
//! with the handoff and A2A files of [`protocols`]) and the benchmark
//! corpora ([`corpus`], plain and as an mcp_agent_mail store).

pub mod corpus;
pub mod mailbox;
pub mod protocols;

pub use mailbox::{write_demo, write_demo_at, DemoInfo};
