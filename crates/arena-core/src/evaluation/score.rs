//! HotpotQA's answer scoring, as the ReAct paper used it: both strings normalised (lower
//! case, no punctuation, no articles, single spaces), then exact match and token F1.

use serde::{Deserialize, Serialize};

/// A run's score on a question, each in 0..=1.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Score {
    pub em: f64,
    pub f1: f64,
}

/// Typographic punctuation that `is_ascii_punctuation` does not cover: answers copied from
/// web pages carry curly quotes and dashes.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || ('\u{2010}'..='\u{205E}').contains(&c) || "¡¿«»·".contains(c)
}

/// Lower case, punctuation dropped, the articles a/an/the dropped, whitespace collapsed, in
/// that order (the order of the official evaluation script).
pub fn normalize_answer(text: &str) -> String {
    let lowered = text.to_lowercase();
    let bare: String = lowered.chars().filter(|&c| !is_punctuation(c)).collect();
    bare.split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "the"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn exact_match(prediction: &str, gold: &str) -> bool {
    normalize_answer(prediction) == normalize_answer(gold)
}

/// Token F1 over the normalised words. A yes/no/noanswer on either side scores only an exact
/// match: "yes" shares no meaning with "yes it is not".
pub fn token_f1(prediction: &str, gold: &str) -> f64 {
    let (p, g) = (normalize_answer(prediction), normalize_answer(gold));
    let special = |s: &str| matches!(s, "yes" | "no" | "noanswer");
    if (special(&p) || special(&g)) && p != g {
        return 0.0;
    }
    let p_tokens: Vec<&str> = p.split_whitespace().collect();
    let g_tokens: Vec<&str> = g.split_whitespace().collect();
    if p_tokens.is_empty() || g_tokens.is_empty() {
        return 0.0;
    }
    // Common tokens as a multiset: each gold token matches at most once.
    let mut unmatched = g_tokens.clone();
    let mut common = 0usize;
    for t in &p_tokens {
        if let Some(i) = unmatched.iter().position(|g| g == t) {
            unmatched.swap_remove(i);
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f64 / p_tokens.len() as f64;
    let recall = common as f64 / g_tokens.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

/// Both scores of `prediction` against `gold`.
pub fn text_score(prediction: &str, gold: &str) -> Score {
    Score {
        em: if exact_match(prediction, gold) {
            1.0
        } else {
            0.0
        },
        f1: token_f1(prediction, gold),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn normalising_drops_case_punctuation_articles_and_extra_space() {
        assert_eq!(normalize_answer("  The Eiffel   Tower! "), "eiffel tower");
        assert_eq!(normalize_answer("U.S.A."), "usa");
        assert_eq!(normalize_answer("An apple, a pear"), "apple pear");
        assert_eq!(
            normalize_answer("the theatre"),
            "theatre",
            "only whole words"
        );
        assert_eq!(
            normalize_answer("“Beyond the Clouds” — 1995…"),
            "beyond clouds 1995"
        );
        assert_eq!(normalize_answer("Seth MacFarlane's"), "seth macfarlanes");
        assert!(exact_match("The Eiffel Tower", "eiffel tower"));
        assert!(exact_match("USA", "U.S.A."));
        assert!(!exact_match("Eiffel", "Eiffel Tower"));
    }

    #[test]
    fn f1_counts_shared_words_once_each() {
        // P = 2/4, R = 2/2: F1 = 2 · 0.5 · 1 / 1.5 = 2/3.
        assert!(close(
            token_f1("Seth MacFarlane created it", "Seth MacFarlane"),
            2.0 / 3.0
        ));
        // "new new york" vs "new york": common {new, york} = 2; P = 2/3, R = 1: F1 = 0.8.
        assert!(close(token_f1("new new york", "New York"), 0.8));
        // "the the" normalises to nothing.
        assert_eq!(token_f1("the the", "York"), 0.0);
        assert_eq!(token_f1("", "York"), 0.0);
        assert_eq!(token_f1("Paris", "London"), 0.0);
        assert_eq!(token_f1("The Eiffel Tower.", "eiffel tower"), 1.0);
    }

    #[test]
    fn yes_and_no_score_only_when_they_match() {
        assert_eq!(token_f1("yes", "no"), 0.0);
        assert_eq!(token_f1("yes it is", "yes"), 0.0);
        assert_eq!(token_f1("no", "no answer"), 0.0);
        assert_eq!(token_f1("Yes.", "yes"), 1.0);
        assert_eq!(text_score("No", "no"), Score { em: 1.0, f1: 1.0 });
        assert_eq!(text_score("maybe", "yes"), Score { em: 0.0, f1: 0.0 });
    }
}
