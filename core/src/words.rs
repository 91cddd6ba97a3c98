//! Counted nouns in what amail prints: `1 task`, `2 tasks`. One rule for
//! every line a person reads, so that no count is said as "1 tasks" (the
//! router's summary said "1 duplicates" and "1 tasks created", `sweep`
//! "transition(s)", `parse` "1 file(s) could not be read", until a new
//! user read them) and no view words it its own way.

/// `n` and `noun`, the noun in the plural unless `n` is one: `1 task`,
/// `0 tasks`. Every noun amail counts takes an `s`.
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n))
}

/// The ending of a noun counted `n` times: nothing for one, else `s`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1, "task"), "1 task");
        assert_eq!(counted(0, "task"), "0 tasks");
        assert_eq!(counted(2, "duplicate"), "2 duplicates");
    }
}
