//! `amail parse` and the pipes around it as a user runs them: files,
//! directories, stdin, formats, strict errors and exit codes; parallel
//! parsing printing exactly what a sequential run prints; a reader that
//! stops early; the regressions of the defects a new user hit (issue 12).

#[path = "../support"]
mod support {
    pub mod fixture;
    pub mod fs;
    pub mod pending;
    pub mod tree;
    pub mod walk;
}

mod agent_names;
mod batch_ack;
mod config;
mod db_flag;
mod defects;
mod demo_fresh;
mod demo_store;
mod fx;
mod https;
mod json_names;
mod modes;
mod nested_journal;
mod parse;
mod parse_parallel;
mod pipe;
mod reply_drafts;
mod reply_names;
mod server_token;
mod size_limit;
mod stdin_json;
mod store_beside_mail;
mod store_positional;
mod streams;
mod tables;
mod tasks_agent;
mod unknown_ids;
mod unlistable;
