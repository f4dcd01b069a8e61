//! Characters that change what a text says without being seen. Unicode tag characters
//! (U+E0000–U+E007F) mirror ASCII invisibly, so a link can spell instructions to a model in a
//! question that looks harmless ("ASCII smuggling"); the variation selectors of the
//! supplement (U+E0100–U+E01EF) can carry bytes the same way; bidirectional controls reorder
//! what is shown; zero-width marks split or hide words. Joiners (U+200C, U+200D) stay: scripts
//! and emoji need them.

/// Whether `c` is one of the hidden characters above.
pub fn is_hidden(c: char) -> bool {
    matches!(c as u32,
        0xE0000..=0xE007F            // tags
        | 0xE0100..=0xE01EF          // variation selectors supplement
        | 0x061C | 0x200E | 0x200F   // direction marks
        | 0x202A..=0x202E            // embeddings and overrides
        | 0x2066..=0x2069            // isolates
        | 0x00AD | 0x180E | 0x200B   // soft hyphen, Mongolian vowel separator, zero-width space
        | 0x2060..=0x2064            // word joiner, invisible operators
        | 0xFEFF) // zero-width no-break space
}

/// Whether `c` renders as nothing at all: the hidden characters, and also the joiners, the
/// fillers of some scripts and the variation selectors. For text no one types such characters
/// into (a token) or that is shown without them (an error page's snippet).
pub fn is_invisible(c: char) -> bool {
    is_hidden(c)
        || matches!(c as u32,
            0x034F | 0x115F | 0x1160 | 0x17B4 | 0x17B5 // grapheme joiner, fillers
            | 0x200C | 0x200D                          // joiners
            | 0x2065..=0x206F                          // deprecated format characters
            | 0x3164 | 0xFFA0                          // Hangul fillers
            | 0xFE00..=0xFE0F) // variation selectors
}

/// Text from elsewhere (a server, a schema) made plain for a prompt or the page: no control
/// or invisible characters, spacing squashed (so no line breaks), at most `limit` characters.
pub fn plain(text: &str, limit: usize) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| !is_invisible(*c))
        .collect();
    let squashed = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if squashed.chars().count() <= limit {
        return squashed;
    }
    let cut: String = squashed.chars().take(limit.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_token_and_error_checks_called_invisible_still_is() {
        // The two lists this replaced: settings' token check, the error snippet's cleanup.
        let token = [
            0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x3164, 0xFEFF, 0xFFA0,
        ]
        .into_iter()
        .chain(0x200B..=0x200F)
        .chain(0x202A..=0x202E)
        .chain(0x2060..=0x206F)
        .chain(0xFE00..=0xFE0F);
        for code in token {
            assert!(is_invisible(char::from_u32(code).unwrap()), "{code:04X}");
        }
        assert!(is_invisible('\u{E0041}'));
        for c in "hf_Ab09 é東".chars() {
            assert!(!is_invisible(c), "{:04X}", c as u32);
        }
    }

    #[test]
    fn tags_direction_controls_and_zero_width_marks_are_hidden() {
        // "Ignore" spelled in tag characters.
        let smuggled: String = "Ignore"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        assert!(smuggled.chars().all(is_hidden));
        for c in [
            '\u{202E}',
            '\u{2066}',
            '\u{2069}',
            '\u{200F}',
            '\u{200B}',
            '\u{FEFF}',
            '\u{E0100}',
        ] {
            assert!(is_hidden(c), "{:04X}", c as u32);
        }
        for c in "What is 6 × 7? Ça va, 東京, عربى, emoji 👩\u{200D}💻 e\u{0301}".chars()
        {
            assert!(!is_hidden(c), "{:04X}", c as u32);
        }
    }
}
