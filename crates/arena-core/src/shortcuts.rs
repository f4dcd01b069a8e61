//! The page's keyboard shortcuts, decided from the key and where it was pressed. Pure, so
//! the rules are tested on the host; the browser listener only reads the event and acts.

/// What a key press asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    /// Ctrl/Cmd+Enter, from anywhere (the question box included).
    Run,
    /// Escape while a run (or replay) is going.
    Stop,
    /// "/" outside a text field: focus the question.
    FocusQuestion,
}

/// The key press as the listener sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Press<'a> {
    pub key: &'a str,
    pub ctrl: bool,
    pub meta: bool,
    pub alt: bool,
    /// The press happened in a field that takes text (input, textarea, select, editable).
    pub in_text_field: bool,
    /// A run or replay is going.
    pub running: bool,
    /// A dialog or open menu already uses Escape (the event was handled by it).
    pub escape_taken: bool,
}

pub fn shortcut(p: Press) -> Option<Shortcut> {
    match p.key {
        "Enter" if (p.ctrl || p.meta) && !p.alt => Some(Shortcut::Run),
        "Escape" if p.running && !p.escape_taken => Some(Shortcut::Stop),
        "/" if !p.in_text_field && !p.ctrl && !p.meta && !p.alt => Some(Shortcut::FocusQuestion),
        _ => None,
    }
}

/// Hints for the buttons (`aria-keyshortcuts` syntax).
pub const RUN_KEYS: &str = "Control+Enter Meta+Enter";
pub const STOP_KEYS: &str = "Escape";
pub const FOCUS_KEYS: &str = "/";

#[cfg(test)]
mod tests {
    use super::*;

    fn press(key: &str) -> Press<'_> {
        Press {
            key,
            ..Press::default()
        }
    }

    #[test]
    fn ctrl_or_cmd_enter_runs_even_from_a_text_field() {
        for (ctrl, meta) in [(true, false), (false, true)] {
            let p = Press {
                ctrl,
                meta,
                in_text_field: true,
                ..press("Enter")
            };
            assert_eq!(shortcut(p), Some(Shortcut::Run));
        }
        assert_eq!(
            shortcut(press("Enter")),
            None,
            "plain Enter types a newline"
        );
        let alt = Press {
            ctrl: true,
            alt: true,
            ..press("Enter")
        };
        assert_eq!(shortcut(alt), None);
    }

    #[test]
    fn escape_stops_only_a_going_run() {
        assert_eq!(shortcut(press("Escape")), None);
        let running = Press {
            running: true,
            ..press("Escape")
        };
        assert_eq!(shortcut(running), Some(Shortcut::Stop));
        let in_field = Press {
            in_text_field: true,
            ..running
        };
        assert_eq!(shortcut(in_field), Some(Shortcut::Stop));
        let taken = Press {
            escape_taken: true,
            ..running
        };
        assert_eq!(shortcut(taken), None);
    }

    #[test]
    fn slash_focuses_the_question_unless_typing() {
        assert_eq!(shortcut(press("/")), Some(Shortcut::FocusQuestion));
        let typing = Press {
            in_text_field: true,
            ..press("/")
        };
        assert_eq!(shortcut(typing), None, "a slash in a field is just a slash");
        let ctrl = Press {
            ctrl: true,
            ..press("/")
        };
        assert_eq!(shortcut(ctrl), None);
        assert_eq!(shortcut(press("a")), None);
    }
}
