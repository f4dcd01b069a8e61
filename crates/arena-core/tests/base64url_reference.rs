#![cfg(not(target_arch = "wasm32"))]
//! The page's base64url (the `#run=` fragment, `page_params`) against a reference, the `base64`
//! crate (a dev-dependency only): the same text for any bytes, and for any text the same bytes
//! or the same refusal.

use arena_core::page_params::{base64url_decode, base64url_encode};
use base64::alphabet::URL_SAFE;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use proptest::prelude::*;
use proptest::sample::select;

/// URL-safe, with or without padding (the page's decoder tolerates it), and, like the page's
/// decoder, deaf to the bits of the last symbol past the last whole byte.
const REFERENCE: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// The same, but refusing a last symbol whose bits past the last byte are not zero.
const STRICT: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Mostly base64url symbols, now and then a symbol of the other alphabet, a pad or a stray
/// character, then up to three pads.
fn text() -> impl Strategy<Value = String> {
    let symbol = prop_oneof![
        12 => select(ALPHABET.to_vec()),
        1 => select(b"+/=. %\n".to_vec()),
    ];
    (prop::collection::vec(symbol, 0..24), 0usize..4).prop_map(|(symbols, pads)| {
        let mut text = String::from_utf8(symbols).expect("ASCII");
        text.push_str(&"=".repeat(pads));
        text
    })
}

/// Whether the last symbol of unpadded base64 text carries bits past its last whole byte.
fn has_trailing_bits(unpadded: &str) -> bool {
    let Some(last) = unpadded.bytes().last() else {
        return false;
    };
    let value = ALPHABET.iter().position(|&c| c == last).unwrap_or(0);
    match unpadded.len() % 4 {
        2 => value & 0b1111 != 0,
        3 => value & 0b11 != 0,
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn encodes_as_the_reference_does(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = base64url_encode(&bytes);
        prop_assert_eq!(&text, &URL_SAFE_NO_PAD.encode(&bytes));
        prop_assert_eq!(base64url_decode(&text), Some(bytes));
    }

    #[test]
    fn decodes_as_the_reference_does(text in text()) {
        let ours = base64url_decode(&text);
        let reference = REFERENCE.decode(&text).ok();
        prop_assert_eq!(&ours, &reference, "{:?}", text);
        // The one difference from a strict decoder: bits past the last byte are ignored, not
        // refused. Only a hand-edited address has them: the encoder writes zeros there.
        if ours.is_some() && STRICT.decode(&text).is_err() {
            prop_assert!(has_trailing_bits(text.trim_end_matches('=')), "{:?}", text);
        }
    }
}

#[test]
fn trailing_bits_are_ignored_as_the_lenient_reference_ignores_them() {
    // `AB`: 12 bits, one byte (0) and four bits (0001) past it.
    assert_eq!(base64url_decode("AB"), Some(vec![0]));
    assert_eq!(REFERENCE.decode("AB").ok(), Some(vec![0]));
    assert!(STRICT.decode("AB").is_err());
    assert!(has_trailing_bits("AB") && !has_trailing_bits("AA"));
}
