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

#[cfg(test)]
mod tests {
    use super::*;

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
