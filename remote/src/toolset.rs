//! Which server release's tools a server offers, told from its tool list
//! (no version number is trusted: the 0.1.0 fork reports fastmcp's).
//!
//! - 0.1.0 (PyPI `mcp-agent-mail`): has `call_extended_tool`; in its
//!   default "core" mode the ack, read and search tools are reachable only
//!   through it.
//! - 0.2.x: no `call_extended_tool`, no `topic` on `fetch_inbox`.
//! - 0.3.x: `fetch_inbox` takes `topic`; tools take `format` and the
//!   agents' `registration_token` / `sender_token`.

use std::collections::{HashMap, HashSet};

/// A server's tools: their names and argument names.
#[derive(Debug, Clone, Default)]
pub struct ToolSet {
    tools: HashMap<String, HashSet<String>>,
}

/// The release line a tool set belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    V01,
    V02,
    V03,
}

impl Release {
    pub fn label(self) -> &'static str {
        match self {
            Release::V01 => "0.1.x",
            Release::V02 => "0.2.x",
            Release::V03 => "0.3.x",
        }
    }
}

/// How to reach a tool the store needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Listed: call it by name.
    Direct,
    /// Hidden behind 0.1.0's `call_extended_tool`.
    Extended,
}

impl ToolSet {
    /// From `(tool name, argument names)` pairs of `tools/list`.
    pub fn new<I, A>(tools: I) -> ToolSet
    where
        I: IntoIterator<Item = (String, A)>,
        A: IntoIterator<Item = String>,
    {
        ToolSet {
            tools: tools
                .into_iter()
                .map(|(n, args)| (n, args.into_iter().collect()))
                .collect(),
        }
    }

    pub fn release(&self) -> Release {
        if self.takes("fetch_inbox", "topic") {
            Release::V03
        } else if self.tools.contains_key("call_extended_tool") {
            Release::V01
        } else {
            Release::V02
        }
    }

    /// Whether tool `tool` takes argument `arg`.
    pub fn takes(&self, tool: &str, arg: &str) -> bool {
        self.tools.get(tool).is_some_and(|a| a.contains(arg))
    }

    /// How to call `tool`, or `None` when this server has no such tool
    /// (too old for the feature).
    pub fn route(&self, tool: &str) -> Option<Route> {
        if self.tools.contains_key(tool) {
            Some(Route::Direct)
        } else if self.release() == Release::V01 {
            // 0.1.0 in "core" mode lists the extended tools only through
            // call_extended_tool; it refuses names it does not know.
            Some(Route::Extended)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(tools: &[(&str, &[&str])]) -> ToolSet {
        ToolSet::new(tools.iter().map(|(n, a)| {
            (
                n.to_string(),
                a.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            )
        }))
    }

    #[test]
    fn releases_are_told_by_their_tools() {
        let v01 = set(&[
            ("call_extended_tool", &["tool_name", "arguments"]),
            ("fetch_inbox", &["project_key", "agent_name", "since_ts"]),
        ]);
        assert_eq!(v01.release(), Release::V01);
        assert_eq!(v01.route("fetch_inbox"), Some(Route::Direct));
        assert_eq!(v01.route("acknowledge_message"), Some(Route::Extended));
        let v02 = set(&[("fetch_inbox", &["project_key", "agent_name", "since_ts"])]);
        assert_eq!(v02.release(), Release::V02);
        assert_eq!(v02.route("acknowledge_message"), None);
        let v03 = set(&[("fetch_inbox", &["project_key", "agent_name", "topic"])]);
        assert_eq!(v03.release(), Release::V03);
        assert_eq!(v03.release().label(), "0.3.x");
    }
}
