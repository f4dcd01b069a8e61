//! Whether a streaming panel keeps following its newest text. Pure: decided from scroll
//! positions, so the rule is tested on the host.

/// Within this many pixels of the bottom counts as "at the bottom".
pub const BOTTOM_SLACK_PX: f64 = 24.0;

/// After a scroll event: `top` is the new scroll offset, `previous_top` the one before,
/// `max_top` the offset at the very bottom. Growing content never lowers the offset, so an
/// offset that went up was the user scrolling up: following stops. Reaching the bottom again
/// (by hand or with "Jump to latest") starts it again.
pub fn follows_after_scroll(following: bool, previous_top: f64, top: f64, max_top: f64) -> bool {
    if max_top - top <= BOTTOM_SLACK_PX {
        true
    } else if top < previous_top - 1.0 {
        false
    } else {
        following
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolling_up_stops_following() {
        assert!(!follows_after_scroll(true, 500.0, 300.0, 800.0));
    }

    #[test]
    fn growing_content_keeps_following() {
        // The text grew between our scroll to the bottom and the scroll event.
        assert!(follows_after_scroll(true, 500.0, 500.0, 900.0));
        assert!(follows_after_scroll(true, 500.0, 520.0, 900.0));
    }

    #[test]
    fn reaching_the_bottom_follows_again() {
        assert!(follows_after_scroll(false, 300.0, 790.0, 800.0));
        assert!(follows_after_scroll(false, 300.0, 800.0, 800.0));
    }

    #[test]
    fn scrolling_down_short_of_the_bottom_stays_put() {
        assert!(!follows_after_scroll(false, 300.0, 400.0, 800.0));
    }
}
