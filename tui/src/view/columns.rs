//! Table columns that give way on a narrow pane: one rule for the roster
//! and the board's list (each wrote its own loop of it). A table names
//! its columns' widths, the one flexible column that takes what is left
//! (a title, a last message) and what that one keeps at least; then the
//! steps it gives way by, in order, each taken only while the columns and
//! that least do not fit: a column a person can do without goes, or a
//! few narrow in turn to their least width (ids and names are cut in the
//! middle there, so neighbours still differ).

/// A column's width, the least it narrows to, and how much wider than
/// its neighbours it stays while they narrow together (`lean`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Col {
    pub w: usize,
    pub min: usize,
    pub lean: usize,
}

impl Col {
    pub(crate) const fn new(w: usize, min: usize) -> Col {
        Col { w, min, lean: 0 }
    }
}

/// One way a table gives way, by column index.
pub(crate) enum Give {
    /// The column goes.
    Drop(usize),
    /// These narrow one column at a time: the one with most to give over
    /// its least and its lean (the later one on a tie).
    Narrow(&'static [usize]),
}

/// Narrows `cols` by `steps` until they, the `fixed` columns that never
/// change and `keep` columns of the flexible one fit in `room`; returns
/// the flexible column's width (what is left, 0 when nothing is).
pub(crate) fn give_way(
    room: usize,
    fixed: usize,
    keep: usize,
    cols: &mut [Col],
    steps: &[Give],
) -> usize {
    let used = |cols: &[Col]| fixed + cols.iter().map(|c| c.w).sum::<usize>();
    for step in steps {
        if used(cols) + keep <= room {
            break;
        }
        match step {
            Give::Drop(i) => cols[*i].w = 0,
            Give::Narrow(set) => {
                while used(cols) + keep > room {
                    let widest = set
                        .iter()
                        .copied()
                        .filter(|&i| cols[i].w > cols[i].min)
                        .max_by_key(|&i| {
                            cols[i].w as isize - (cols[i].min + cols[i].lean) as isize
                        });
                    match widest {
                        Some(i) => cols[i].w -= 1,
                        None => break,
                    }
                }
            }
        }
    }
    room.saturating_sub(used(cols))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_stop_once_the_columns_fit() {
        let mut cols = [Col::new(10, 4), Col::new(5, 5)];
        let flex = give_way(25, 2, 10, &mut cols, &[Give::Drop(1), Give::Narrow(&[0])]);
        assert_eq!((cols[0].w, cols[1].w, flex), (10, 0, 13));
    }

    #[test]
    fn narrowing_takes_from_the_widest_over_its_least_and_lean() {
        let mut cols = [
            Col {
                w: 16,
                min: 8,
                lean: 2,
            },
            Col::new(13, 8),
        ];
        // 2 over: the first gives (16-10 > 13-8), then the tie goes to
        // the later one.
        give_way(27, 0, 0, &mut cols, &[Give::Narrow(&[0, 1])]);
        assert_eq!((cols[0].w, cols[1].w), (15, 12));
        give_way(16, 0, 0, &mut cols, &[Give::Narrow(&[0, 1])]);
        assert_eq!((cols[0].w, cols[1].w), (8, 8), "no narrower than least");
    }
}
