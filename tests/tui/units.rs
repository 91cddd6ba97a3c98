//! What the inbox's numbers count, said where they show: the status
//! line's totals against the tabs' thread counts, the lists' positions
//! when rows scroll out of view.

use amail_tui::model::Filter;
use amail_tui::testing::TestApp;

/// The status line (the second line from the bottom) of a rendered screen.
fn status_line(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len() - 2].to_string()
}

/// The status line's "●4 pending" counted acks (message and recipient)
/// while the tab beside it, "Pending 3", counted threads: a person read
/// them as one number that disagreed with itself. Now the status line
/// names both units, the threads' count being the tab's.
#[test]
fn pending_total_names_its_units_and_matches_the_tab() {
    let mut app = TestApp::sample();
    let acks = app.model.pending_total();
    let at = Filter::ALL.iter().position(|f| *f == Filter::PendingAck);
    let threads = app.model.counts().filters[at.unwrap()];
    assert_ne!(acks, threads, "the sample must tell the two apart");
    let screen = app.render(120, 36);
    let status = status_line(&screen);
    assert!(
        status.contains(&format!("●{acks} to ack in {threads} threads")),
        "{status}"
    );
    assert!(screen.contains(&format!("Pending {threads}")), "{screen}");
    // Help: the status line's count is of threads when unanswered, the
    // Help tab's of every thread with a help request.
    let unanswered = app.model.counts().unanswered_help;
    assert!(
        status.contains(&format!("‼{unanswered} unanswered")),
        "{status}"
    );
    // Narrow: the glyphs alone, and `?` says what each counts.
    let narrow = status_line(&app.render(60, 20));
    assert!(
        narrow.contains(&format!("●{acks} ‼{unanswered} ")),
        "{narrow}"
    );
    app.press("?");
    let help = app.render(120, 200);
    let legend = help
        .lines()
        .find(|l| l.contains("●  (status line)"))
        .unwrap_or_else(|| panic!("no legend of ● in\n{help}"));
    assert!(
        legend.contains("acks still owed (the Pending tab: their threads)"),
        "{legend}"
    );
}
