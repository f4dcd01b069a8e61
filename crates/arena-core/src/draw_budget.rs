//! How much Markdown the page draws in a frame, fitted to how busy the page is. Drawn
//! source is laid out at the next frame, and laying out new text costs most when little of
//! it was laid out before (fonts and words not yet shaped): a frame starts with little and
//! draws more while frames keep coming on time, less as soon as they come late.

/// Source bytes in one step of the budget: about what one `insertAdjacentHTML` call adds.
pub const STEP_BYTES: usize = 2048;

/// The most a frame draws however quick the frames are.
const MOST_BYTES: usize = 6 * STEP_BYTES;

/// Frames this close (ms, from one drawing to the next) come on time: draw a step more.
const ON_TIME_MS: f64 = 20.0;

/// Frames further apart than this are late (two frames' time): draw half as much.
const LATE_MS: f64 = 34.0;

#[derive(Debug, Clone, Copy)]
pub struct DrawBudget {
    bytes: usize,
    /// When the last frame drew, while there is more to draw (a pause says nothing of how
    /// busy the page is).
    last_drawing_at: Option<f64>,
}

impl Default for DrawBudget {
    fn default() -> Self {
        Self::new()
    }
}

impl DrawBudget {
    pub const fn new() -> Self {
        Self {
            bytes: STEP_BYTES,
            last_drawing_at: None,
        }
    }

    /// The bytes a frame whose drawing starts at `now` (ms) may draw.
    pub fn for_frame_at(&mut self, now: f64) -> usize {
        if let Some(last) = self.last_drawing_at {
            let gap = now - last;
            if gap > LATE_MS {
                self.bytes = (self.bytes / 2).max(STEP_BYTES);
            } else if gap <= ON_TIME_MS {
                self.bytes = (self.bytes + STEP_BYTES).min(MOST_BYTES);
            }
        }
        self.bytes
    }

    /// After the frame that started drawing at `at`: `more` is left for the next frame.
    pub fn drew(&mut self, at: f64, more: bool) {
        self.last_drawing_at = more.then_some(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The budgets of frames drawn `gaps` ms apart, more left after each.
    fn budgets(gaps: &[f64]) -> Vec<usize> {
        let mut budget = DrawBudget::new();
        let mut now = 1000.0;
        let mut out = vec![budget.for_frame_at(now)];
        for gap in gaps {
            budget.drew(now, true);
            now += gap;
            out.push(budget.for_frame_at(now));
        }
        out.into_iter().map(|b| b / STEP_BYTES).collect()
    }

    #[test]
    fn starts_small_and_grows_while_frames_come_on_time() {
        assert_eq!(budgets(&[16.7; 7]), [1, 2, 3, 4, 5, 6, 6, 6]);
    }

    #[test]
    fn halves_when_a_frame_comes_late_and_keeps_between() {
        assert_eq!(
            budgets(&[16.0, 16.0, 16.0, 50.0, 25.0, 60.0, 60.0]),
            [1, 2, 3, 4, 2, 2, 1, 1]
        );
    }

    #[test]
    fn a_pause_with_nothing_to_draw_is_not_a_late_frame() {
        let mut budget = DrawBudget::new();
        budget.for_frame_at(0.0);
        budget.drew(0.0, true);
        assert_eq!(budget.for_frame_at(16.0), 2 * STEP_BYTES);
        budget.drew(16.0, false);
        assert_eq!(
            budget.for_frame_at(5000.0),
            2 * STEP_BYTES,
            "kept after a pause"
        );
    }
}
