//! The age column's words ("5m", "3h"): one rule for every list that
//! says how long ago something happened.

use chrono::{DateTime, Utc};

/// "now", "5m", "3h", "2d", "6w": the age column.
pub(crate) fn age(now: DateTime<Utc>, then: Option<DateTime<Utc>>) -> String {
    let Some(then) = then else { return "-".into() };
    let s = (now - then).num_seconds();
    // A few minutes ahead is clock skew between machines: call it now.
    if s < -300 {
        return "soon".into();
    }
    match s {
        ..60 => "now".into(),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h", s / 3600),
        86400..1_209_600 => format!("{}d", s / 86400),
        _ => format!("{}w", s / 604_800),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_in_the_largest_unit() {
        let now = chrono::Utc::now();
        let ago = |s| Some(now - chrono::Duration::seconds(s));
        assert_eq!(age(now, ago(5)), "now");
        assert_eq!(age(now, ago(300)), "5m");
        assert_eq!(age(now, ago(7200)), "2h");
        assert_eq!(age(now, ago(3 * 86400)), "3d");
        assert_eq!(age(now, ago(30 * 86400)), "4w");
        assert_eq!(age(now, None), "-");
        assert_eq!(age(now, ago(-30)), "now", "clock skew");
        assert_eq!(age(now, ago(-3600)), "soon");
    }
}
