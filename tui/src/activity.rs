//! What each agent's mail says about its pace, for the agents view: its
//! latest context-usage readings (PROGRESS and CHECKPOINT carry them) and
//! how many messages it sent in the last hour.
//!
//! One pass over every message, made once per change of the inbox (and
//! of the minute, for the last hour) and kept by the model: the view asked
//! for it on every frame, and it read each reading through the full
//! message, so a million-message inbox was parsed again whole when `w` was
//! pressed (2.5 s, and 1.8 GB held). The records keep the reading
//! (`CompactMessage::context_usage`).

use std::collections::HashMap;

use amail_core::inbox::Inbox;
use chrono::{DateTime, Utc};

/// Readings kept per agent (the sparkline's, the most recent).
pub(crate) const READINGS: usize = 8;

/// One context reading: when, and the percentage (at most 100).
pub(crate) type Reading = (DateTime<Utc>, u8);

#[derive(Debug)]
pub(crate) struct Activity {
    /// The minute it was made in: the last hour moves with it.
    pub(crate) minute: i64,
    context: HashMap<&'static str, Vec<Reading>>,
    last_hour: HashMap<&'static str, usize>,
}

impl Activity {
    pub(crate) fn of(inbox: &Inbox, now: DateTime<Utc>) -> Activity {
        let mut context: HashMap<&'static str, Vec<Reading>> = HashMap::new();
        let mut last_hour: HashMap<&'static str, usize> = HashMap::new();
        let hour_ago = now - chrono::Duration::hours(1);
        for x in &inbox.messages {
            let msg = &x.message;
            let Some(from) = msg.from else {
                continue;
            };
            if let (Some(pct), Some(at)) = (msg.context_usage(), msg.timestamp) {
                context.entry(from.as_str()).or_default().push((at, pct));
            }
            if msg.timestamp.is_some_and(|t| t > hour_ago && t <= now) {
                *last_hour.entry(from.as_str()).or_default() += 1;
            }
        }
        for v in context.values_mut() {
            v.sort_by_key(|(at, _)| *at);
            v.drain(..v.len().saturating_sub(READINGS));
            v.shrink_to_fit();
        }
        Activity {
            minute: now.timestamp() / 60,
            context,
            last_hour,
        }
    }

    /// The latest readings, oldest first.
    pub(crate) fn context(&self, agent: &str) -> &[Reading] {
        self.context.get(agent).map(Vec::as_slice).unwrap_or(&[])
    }

    pub(crate) fn per_hour(&self, agent: &str) -> usize {
        self.last_hour.get(agent).copied().unwrap_or(0)
    }
}
