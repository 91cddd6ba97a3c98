//! What `amail pending --json` printed, as (id, agent) pairs: the rows the
//! name tests compare across spellings of `--as`.

/// The (id, agent) of each row of `pending --json` output `json`.
pub fn id_agent_pairs(json: &str) -> Vec<(String, String)> {
    let rows: Vec<serde_json::Value> = serde_json::from_str(json).unwrap();
    rows.iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["agent"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}
