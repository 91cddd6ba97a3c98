//! Two agents and two beads that share all but their ends, as pool
//! workers and handoff ids do, and the check that a screen tells them
//! apart.

/// `(agent, bead)` pairs alike but for their last characters.
pub const PAIRS: [(&str, &str); 2] = [
    (
        "orchestrator-pool-worker-01",
        "7d3c9a10-0e4f-4c1b-9a55-3f1e2d7c9b01",
    ),
    (
        "orchestrator-pool-worker-02",
        "7d3c9a10-0e4f-4c1b-9a55-3f1e2d7c4a77",
    ),
];

/// The ends that tell each pair from the other, as `PAIRS` orders them.
pub const ENDS: [[&str; 2]; 2] = [["-01", "9b01"], ["-02", "4a77"]];

/// Each of `ends` is on `row`, followed by a blank: shown, and not run
/// into the next column or under the border.
pub fn assert_ends_apart(row: &str, ends: [&str; 2], w: u16, screen: &str) {
    for end in ends {
        let at = row
            .find(end)
            .unwrap_or_else(|| panic!("{end} at {w}:\n{screen}"));
        let next = row[at + end.len()..].chars().next();
        assert_eq!(
            next,
            Some(' '),
            "{end} runs into the next column at {w}:\n{screen}"
        );
    }
}
