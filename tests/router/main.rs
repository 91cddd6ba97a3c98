//! The router and the AOF/1 layer under it: envelope validation and
//! detection, the bridge's mapping from Agent Mail, routing into a store
//! (conformance with aof-router.md, an existing AOF data dir, mail flows,
//! the fixture mailbox end to end), `amail route` and `amail doctor`, two
//! routers on one store, and crash safety under kills at every durable step.

// Only the shared helpers this binary calls: one it stops calling is a
// dead-code warning, so helpers no test uses do not pile up.
#[path = "../support"]
mod support {
    pub mod fixture;
    pub mod router;
}

mod aof_schema;
mod aof_store_compat;
mod bridge_mapping;
mod cascade;
mod cascade_crash;
mod cli;
mod concurrency;
mod conformance;
mod crash;
mod doctor;
mod fixture;
mod mail_flows;
mod not_utf8;
mod tasks_cli;
