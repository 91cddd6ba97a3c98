//! Task review from the board (`A` approve, `X` reject with a reason) and
//! the agents view's task queues. Both leave as one small [`Command`]
//! (`Approve`, `Reject`, `Mailbox`) that the runtime hands to the backend,
//! and come back as one [`Msg`](crate::msg::Msg) handled here, so moving
//! backend calls elsewhere (a worker thread) touches only `execute`.
//!
//! The keys act only on a task in `review` on the board: AOF lets only a
//! reviewed task be approved or sent back, and a key that did nothing
//! silently would leave the person guessing, so every refusal says why.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::overlays::edit_key;
use crate::keymap::Action;
use crate::model::{Model, Notice, Overlay, Resume, Screen};
use crate::msg::{Command, Verdict};
use amail_core::aof::TaskStatus;
use amail_core::router::mailbox::Mailbox;

/// The task `A`/`X` act on: the selected one on the board, in review.
/// Otherwise a notice says why nothing happens.
fn task_in_review(m: &mut Model, a: Action) -> Option<String> {
    let key = m.config.keymap.first_key(a);
    let verb = if a == Action::Approve {
        "approves"
    } else {
        "rejects"
    };
    // What to do comes last, after what was wrong: kept on a narrow footer.
    let refuse = |m: &mut Model, what: String, keys: String| {
        m.notice = Some(Notice::keyed(what, &keys, true));
        None
    };
    if m.screen != Screen::Tasks {
        let board = m.config.keymap.first_key(Action::ScreenTasks);
        return refuse(
            m,
            format!("{key} {verb} a task in review on the task board "),
            format!("({board})"),
        );
    }
    let Some(task) = m
        .sel
        .task
        .as_deref()
        .and_then(|id| m.tasks.iter().find(|t| t.id == id))
    else {
        return refuse(m, "no task selected".into(), String::new());
    };
    if task.status != TaskStatus::Review {
        let what = format!("{} is {}: ", task.id, task.status.as_str());
        return refuse(m, what, format!("{key} {verb} only a task in review"));
    }
    Some(task.id.clone())
}

/// `A`: approve the selected task in review.
pub(super) fn approve(m: &mut Model) -> Option<Command> {
    let id = task_in_review(m, Action::Approve)?;
    m.notice = Some(Notice::info(format!("approving {}…", id)));
    Some(Command::Approve { id })
}

/// `X`: ask why the selected task in review goes back to work.
pub(super) fn reject(m: &mut Model) {
    if let Some(task) = task_in_review(m, Action::Reject) {
        let text = m.resume(Resume::Reason, &task);
        m.overlay = Some(Overlay::Reason {
            task,
            cursor: text.len(),
            text,
        });
    }
}

/// Keys while the reason prompt is open: one line of text; Enter rejects
/// (not with an empty reason: the Work Log must say why), Esc cancels.
pub(super) fn reason_key(m: &mut Model, k: KeyEvent) -> Option<Command> {
    let Some(Overlay::Reason { task, text, cursor }) = m.overlay.as_mut() else {
        return None;
    };
    match k.code {
        KeyCode::Esc => {
            let kept = !text.trim().is_empty();
            if kept {
                m.reasons.insert(task.clone(), text.clone());
            } else {
                m.reasons.remove(task.as_str());
            }
            m.overlay = None;
            let keys = if kept { reason_kept(m) } else { String::new() };
            let what = if kept {
                "reject cancelled "
            } else {
                "reject cancelled"
            };
            m.notice = Some(Notice::keyed(what.into(), &keys, false));
        }
        KeyCode::Enter if text.trim().is_empty() => {
            m.notice = Some(Notice::keyed(
                "type why it goes back (the reason goes in the Work Log); ".into(),
                "Esc cancels",
                true,
            ));
        }
        KeyCode::Enter => {
            // The write keeps the reason as typed until the store says it
            // wrote it: a failed write loses nothing (`reviewed`).
            m.reasons.remove(task.as_str());
            let cmd = Command::Reject {
                id: task.clone(),
                reason: text.trim().to_string(),
            };
            m.writing.push(crate::model::Write::Reject {
                id: task.clone(),
                reason: text.clone(),
            });
            m.notice = Some(Notice::info(format!("rejecting {}…", task)));
            m.overlay = None;
            return Some(cmd);
        }
        // One line: no new lines, no tab stops.
        KeyCode::Tab => {}
        _ => {
            m.notice = None;
            edit_key(text, cursor, k);
        }
    }
    None
}

/// What the notices say of a reason kept for the task's next `X`.
fn reason_kept(m: &Model) -> String {
    format!(
        "(your reason is kept: {} starts from it)",
        m.config.keymap.first_key(Action::Reject)
    )
}

/// The backend approved or rejected (or refused): say so, then reload the
/// board (the task moved; an approval may have promoted others). A
/// rejection's reason stays kept until it is written, as one cancelled
/// with Esc is: the sentence for the Work Log is not typed twice.
pub(super) fn reviewed(
    m: &mut Model,
    id: &str,
    verdict: Verdict,
    result: Result<String, String>,
    written: Option<crate::model::Write>,
) -> Option<Command> {
    // A failed rejection's reason goes back for the next `X` (one kept
    // meanwhile, with Esc, is the newer text).
    if let (Err(_), Some(crate::model::Write::Reject { reason, .. })) = (&result, written) {
        m.reasons.entry(id.to_string()).or_insert(reason);
    }
    m.notice = Some(match result {
        Ok(sentence) => {
            m.reasons.remove(id);
            Notice::info(format!("✓ {sentence}"))
        }
        Err(e) => {
            let kept = if verdict == Verdict::Rejected && m.reasons.contains_key(id) {
                reason_kept(m)
            } else {
                String::new()
            };
            let gap = if kept.is_empty() { "" } else { " " };
            Notice::keyed(
                format!(
                    "✗ {} {} failed: {e}{gap}",
                    match verdict {
                        Verdict::Approved => "approving",
                        Verdict::Rejected => "rejecting",
                    },
                    id
                ),
                &kept,
                true,
            )
        }
    });
    Some(Command::Load)
}

/// On the agents view, the selected agent's queues when they have not been
/// asked for since the selection or the data last changed.
pub(super) fn wants_queues(m: &mut Model) -> Option<Command> {
    if m.screen != Screen::Agents {
        return None;
    }
    let agent = m.sel.agent.clone()?;
    if m.queues_asked.as_deref() == Some(agent.as_str()) {
        return None;
    }
    m.queues_asked = Some(agent.clone());
    Some(Command::Mailbox { agent })
}

/// The queues came back. An answer for an agent no longer selected is
/// kept anyway: it is drawn only beside its own agent.
pub(super) fn queues_read(m: &mut Model, agent: String, result: Result<Mailbox, String>) {
    m.queues = Some((agent, result));
}

/// `Tab` on the roster: the focus goes to the selected agent's task
/// queues (its second pane) and back, as `Tab` goes round the inbox's
/// panes. Queues with no task (or not read yet) take no focus, and say so.
pub(super) fn toggle_queues(m: &mut Model) {
    if m.queue_focus {
        m.queue_focus = false;
        return;
    }
    if !crate::view::agents::queues_shown(m) {
        m.notice = Some(Notice::info(
            "the task queues show under the roster on a taller terminal",
        ));
        return;
    }
    match m.queued_selected().map(|t| t.id.clone()) {
        Some(id) => {
            m.sel.queued = Some(id);
            m.queue_focus = true;
        }
        None => {
            let who = m.sel.agent.clone().unwrap_or_else(|| "no agent".into());
            // Read on the worker: `Tab` right after `w` (or a move) comes
            // before the answer, and "no task" was said over queues that
            // showed tasks a moment later.
            let read = m
                .queues
                .as_ref()
                .filter(|(a, _)| Some(a) == m.sel.agent.as_ref());
            let tab = m.config.keymap.first_key(crate::keymap::Action::NextPane);
            m.notice = Some(match read {
                Some((_, Ok(_))) => Notice::info(format!("{who} has no task in its queues")),
                Some((_, Err(_))) => Notice::info(format!(
                    "{who}'s task queues could not be read (the pane says why)"
                )),
                None => Notice::info(format!(
                    "{who}'s task queues are still being read: {tab} again once they show"
                )),
            });
        }
    }
}

/// `j`/`k` (and the other moves) in the queues: through their tasks in
/// reading order, one queue after the next.
pub(super) fn queue_step(m: &mut Model, delta: isize) {
    let ids: Vec<String> = m.queued_tasks().iter().map(|t| t.id.clone()).collect();
    if ids.is_empty() {
        return;
    }
    let cur = m
        .queued_selected()
        .and_then(|t| ids.iter().position(|id| *id == t.id))
        .unwrap_or(0) as isize;
    let next = cur.saturating_add(delta).clamp(0, ids.len() as isize - 1) as usize;
    m.sel.queued = Some(ids[next].clone());
}

/// `Enter` in the queues: the task on the board, where `A`/`X` answer a
/// task in review; `Esc` there comes back to the queues.
pub(super) fn open_queued(m: &mut Model) {
    if let Some(id) = m.queued_selected().map(|t| t.id.clone()) {
        m.screen = Screen::Tasks;
        m.came_from = Some(Screen::Agents);
        m.sel.task = Some(id);
    }
}
