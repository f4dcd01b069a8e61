//! The characters a model could read as `<` or `>`, and HTML's names for them. The judge shows
//! each as `‹` or `›` inside a graded answer (`judge::quoted_answer`), so none can close the
//! answer's tag.
//!
//! The table holds every character whose Unicode name contains `ANGLE BRACKET`, `LESS-THAN`
//! or `GREATER-THAN`, or whose compatibility form (NFKD, so also NFKC) holds `<` or `>`;
//! and, listed by hand, look-alikes whose names do not say so (`‹`, `❮`, `˂`, `˱`, `ᐸ`, `≺`
//! and their pairs). Comparisons drawn with an equals bar (`≤`, `≥`, `⩽`) are in it too: the
//! issue's rule names every LESS-THAN and GREATER-THAN, and a model can read `≤` as a tag's
//! `<`, so `x ≤ 3` reaches the judge as `x ‹ 3`. A character opens when the first of LEFT,
//! RIGHT, LESS-THAN and GREATER-THAN in its name is LEFT or LESS-THAN (`≷` GREATER-THAN OR
//! LESS-THAN closes, `⋜` EQUAL TO OR LESS-THAN opens).
//!
//! Generated with Python's `unicodedata2` 18.0 (Unicode 18.0) and `html.entities.html5`:
//!
//! ```text
//! WORDS = ("ANGLE BRACKET", "LESS-THAN", "GREATER-THAN")
//! EXTRA = {0x2039: "Open", 0x203A: "Close", 0x276E: "Open", 0x276F: "Close",
//!          0x02C2: "Open", 0x02C3: "Close", 0x1438: "Open", 0x1433: "Close",
//!          0x227A: "Open", 0x227B: "Close", 0x02F1: "Open", 0x02F2: "Close"}
//! def matches(c):
//!     name = ucd.name(c, "")
//!     return (any(w in name for w in WORDS)
//!             or any(b in ucd.normalize("NFKD", c) for b in "<>"))
//! def side(cp):
//!     if cp in EXTRA: return EXTRA[cp]
//!     m = re.search(r"\b(LEFT|RIGHT|LESS-THAN|GREATER-THAN)", ucd.name(chr(cp)))
//!     if m: return "Open" if m.group(1) in ("LEFT", "LESS-THAN") else "Close"
//!     return "Open" if "<" in ucd.normalize("NFKD", chr(cp)) else "Close"
//! table = sorted({cp for cp in range(0x110000) if matches(chr(cp))} | set(EXTRA))
//! # entities: each html5 name ending in ";" whose first character is in the table, lower-cased
//! # (the lower-case spelling wins a clash), and amp, num, percnt, bsol.
//! ```
//!
//! The test `the_look_alike_table_holds_every_character_named_or_normalised_as_a_bracket`
//! (judge.rs) holds the table to the crates `unicode_names2` and `unicode-normalization`.

use Bracket::{Close, Open};

/// Which of `<` and `>` a character reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bracket {
    Open,
    Close,
}

/// The bracket `c` reads as, if any.
pub fn bracket_of(c: char) -> Option<Bracket> {
    LOOKALIKES
        .binary_search_by_key(&c, |&(known, _)| known)
        .ok()
        .map(|at| LOOKALIKES[at].1)
}

/// The character HTML's entity `name` (without `&` and `;`, any case) stands for, among
/// [`NAMED_ENTITIES`].
pub fn named_entity(name: &str) -> Option<char> {
    let name = name.to_ascii_lowercase();
    NAMED_ENTITIES
        .binary_search_by_key(&name.as_str(), |&(known, _)| known)
        .ok()
        .map(|at| NAMED_ENTITIES[at].1)
}

/// Every character read as an angle bracket, sorted by code point, with the side it opens or
/// closes.
#[rustfmt::skip]
pub const LOOKALIKES: &[(char, Bracket)] = &[
    ('\u{003C}', Open), // LESS-THAN SIGN
    ('\u{003E}', Close), // GREATER-THAN SIGN
    ('\u{02C2}', Open), // MODIFIER LETTER LEFT ARROWHEAD
    ('\u{02C3}', Close), // MODIFIER LETTER RIGHT ARROWHEAD
    ('\u{02F1}', Open), // MODIFIER LETTER LOW LEFT ARROWHEAD
    ('\u{02F2}', Close), // MODIFIER LETTER LOW RIGHT ARROWHEAD
    ('\u{1433}', Close), // CANADIAN SYLLABICS PO
    ('\u{1438}', Open), // CANADIAN SYLLABICS PA
    ('\u{2039}', Open), // SINGLE LEFT-POINTING ANGLE QUOTATION MARK
    ('\u{203A}', Close), // SINGLE RIGHT-POINTING ANGLE QUOTATION MARK
    ('\u{2264}', Open), // LESS-THAN OR EQUAL TO
    ('\u{2265}', Close), // GREATER-THAN OR EQUAL TO
    ('\u{2266}', Open), // LESS-THAN OVER EQUAL TO
    ('\u{2267}', Close), // GREATER-THAN OVER EQUAL TO
    ('\u{2268}', Open), // LESS-THAN BUT NOT EQUAL TO
    ('\u{2269}', Close), // GREATER-THAN BUT NOT EQUAL TO
    ('\u{226A}', Open), // MUCH LESS-THAN
    ('\u{226B}', Close), // MUCH GREATER-THAN
    ('\u{226E}', Open), // NOT LESS-THAN
    ('\u{226F}', Close), // NOT GREATER-THAN
    ('\u{2270}', Open), // NEITHER LESS-THAN NOR EQUAL TO
    ('\u{2271}', Close), // NEITHER GREATER-THAN NOR EQUAL TO
    ('\u{2272}', Open), // LESS-THAN OR EQUIVALENT TO
    ('\u{2273}', Close), // GREATER-THAN OR EQUIVALENT TO
    ('\u{2274}', Open), // NEITHER LESS-THAN NOR EQUIVALENT TO
    ('\u{2275}', Close), // NEITHER GREATER-THAN NOR EQUIVALENT TO
    ('\u{2276}', Open), // LESS-THAN OR GREATER-THAN
    ('\u{2277}', Close), // GREATER-THAN OR LESS-THAN
    ('\u{2278}', Open), // NEITHER LESS-THAN NOR GREATER-THAN
    ('\u{2279}', Close), // NEITHER GREATER-THAN NOR LESS-THAN
    ('\u{227A}', Open), // PRECEDES
    ('\u{227B}', Close), // SUCCEEDS
    ('\u{22D6}', Open), // LESS-THAN WITH DOT
    ('\u{22D7}', Close), // GREATER-THAN WITH DOT
    ('\u{22D8}', Open), // VERY MUCH LESS-THAN
    ('\u{22D9}', Close), // VERY MUCH GREATER-THAN
    ('\u{22DA}', Open), // LESS-THAN EQUAL TO OR GREATER-THAN
    ('\u{22DB}', Close), // GREATER-THAN EQUAL TO OR LESS-THAN
    ('\u{22DC}', Open), // EQUAL TO OR LESS-THAN
    ('\u{22DD}', Close), // EQUAL TO OR GREATER-THAN
    ('\u{22E6}', Open), // LESS-THAN BUT NOT EQUIVALENT TO
    ('\u{22E7}', Close), // GREATER-THAN BUT NOT EQUIVALENT TO
    ('\u{2329}', Open), // LEFT-POINTING ANGLE BRACKET
    ('\u{232A}', Close), // RIGHT-POINTING ANGLE BRACKET
    ('\u{2343}', Open), // APL FUNCTIONAL SYMBOL QUAD LESS-THAN
    ('\u{2344}', Close), // APL FUNCTIONAL SYMBOL QUAD GREATER-THAN
    ('\u{2369}', Close), // APL FUNCTIONAL SYMBOL GREATER-THAN DIAERESIS
    ('\u{276C}', Open), // MEDIUM LEFT-POINTING ANGLE BRACKET ORNAMENT
    ('\u{276D}', Close), // MEDIUM RIGHT-POINTING ANGLE BRACKET ORNAMENT
    ('\u{276E}', Open), // HEAVY LEFT-POINTING ANGLE QUOTATION MARK ORNAMENT
    ('\u{276F}', Close), // HEAVY RIGHT-POINTING ANGLE QUOTATION MARK ORNAMENT
    ('\u{2770}', Open), // HEAVY LEFT-POINTING ANGLE BRACKET ORNAMENT
    ('\u{2771}', Close), // HEAVY RIGHT-POINTING ANGLE BRACKET ORNAMENT
    ('\u{27E8}', Open), // MATHEMATICAL LEFT ANGLE BRACKET
    ('\u{27E9}', Close), // MATHEMATICAL RIGHT ANGLE BRACKET
    ('\u{27EA}', Open), // MATHEMATICAL LEFT DOUBLE ANGLE BRACKET
    ('\u{27EB}', Close), // MATHEMATICAL RIGHT DOUBLE ANGLE BRACKET
    ('\u{2976}', Open), // LESS-THAN ABOVE LEFTWARDS ARROW
    ('\u{2977}', Open), // LEFTWARDS ARROW THROUGH LESS-THAN
    ('\u{2978}', Close), // GREATER-THAN ABOVE RIGHTWARDS ARROW
    ('\u{2991}', Open), // LEFT ANGLE BRACKET WITH DOT
    ('\u{2992}', Close), // RIGHT ANGLE BRACKET WITH DOT
    ('\u{2993}', Open), // LEFT ARC LESS-THAN BRACKET
    ('\u{2994}', Close), // RIGHT ARC GREATER-THAN BRACKET
    ('\u{2995}', Open), // DOUBLE LEFT ARC GREATER-THAN BRACKET
    ('\u{2996}', Close), // DOUBLE RIGHT ARC LESS-THAN BRACKET
    ('\u{29C0}', Open), // CIRCLED LESS-THAN
    ('\u{29C1}', Close), // CIRCLED GREATER-THAN
    ('\u{29FC}', Open), // LEFT-POINTING CURVED ANGLE BRACKET
    ('\u{29FD}', Close), // RIGHT-POINTING CURVED ANGLE BRACKET
    ('\u{2A79}', Open), // LESS-THAN WITH CIRCLE INSIDE
    ('\u{2A7A}', Close), // GREATER-THAN WITH CIRCLE INSIDE
    ('\u{2A7B}', Open), // LESS-THAN WITH QUESTION MARK ABOVE
    ('\u{2A7C}', Close), // GREATER-THAN WITH QUESTION MARK ABOVE
    ('\u{2A7D}', Open), // LESS-THAN OR SLANTED EQUAL TO
    ('\u{2A7E}', Close), // GREATER-THAN OR SLANTED EQUAL TO
    ('\u{2A7F}', Open), // LESS-THAN OR SLANTED EQUAL TO WITH DOT INSIDE
    ('\u{2A80}', Close), // GREATER-THAN OR SLANTED EQUAL TO WITH DOT INSIDE
    ('\u{2A81}', Open), // LESS-THAN OR SLANTED EQUAL TO WITH DOT ABOVE
    ('\u{2A82}', Close), // GREATER-THAN OR SLANTED EQUAL TO WITH DOT ABOVE
    ('\u{2A83}', Open), // LESS-THAN OR SLANTED EQUAL TO WITH DOT ABOVE RIGHT
    ('\u{2A84}', Close), // GREATER-THAN OR SLANTED EQUAL TO WITH DOT ABOVE LEFT
    ('\u{2A85}', Open), // LESS-THAN OR APPROXIMATE
    ('\u{2A86}', Close), // GREATER-THAN OR APPROXIMATE
    ('\u{2A87}', Open), // LESS-THAN AND SINGLE-LINE NOT EQUAL TO
    ('\u{2A88}', Close), // GREATER-THAN AND SINGLE-LINE NOT EQUAL TO
    ('\u{2A89}', Open), // LESS-THAN AND NOT APPROXIMATE
    ('\u{2A8A}', Close), // GREATER-THAN AND NOT APPROXIMATE
    ('\u{2A8B}', Open), // LESS-THAN ABOVE DOUBLE-LINE EQUAL ABOVE GREATER-THAN
    ('\u{2A8C}', Close), // GREATER-THAN ABOVE DOUBLE-LINE EQUAL ABOVE LESS-THAN
    ('\u{2A8D}', Open), // LESS-THAN ABOVE SIMILAR OR EQUAL
    ('\u{2A8E}', Close), // GREATER-THAN ABOVE SIMILAR OR EQUAL
    ('\u{2A8F}', Open), // LESS-THAN ABOVE SIMILAR ABOVE GREATER-THAN
    ('\u{2A90}', Close), // GREATER-THAN ABOVE SIMILAR ABOVE LESS-THAN
    ('\u{2A91}', Open), // LESS-THAN ABOVE GREATER-THAN ABOVE DOUBLE-LINE EQUAL
    ('\u{2A92}', Close), // GREATER-THAN ABOVE LESS-THAN ABOVE DOUBLE-LINE EQUAL
    ('\u{2A93}', Open), // LESS-THAN ABOVE SLANTED EQUAL ABOVE GREATER-THAN ABOVE SLANTED EQUAL
    ('\u{2A94}', Close), // GREATER-THAN ABOVE SLANTED EQUAL ABOVE LESS-THAN ABOVE SLANTED EQUAL
    ('\u{2A95}', Open), // SLANTED EQUAL TO OR LESS-THAN
    ('\u{2A96}', Close), // SLANTED EQUAL TO OR GREATER-THAN
    ('\u{2A97}', Open), // SLANTED EQUAL TO OR LESS-THAN WITH DOT INSIDE
    ('\u{2A98}', Close), // SLANTED EQUAL TO OR GREATER-THAN WITH DOT INSIDE
    ('\u{2A99}', Open), // DOUBLE-LINE EQUAL TO OR LESS-THAN
    ('\u{2A9A}', Close), // DOUBLE-LINE EQUAL TO OR GREATER-THAN
    ('\u{2A9B}', Open), // DOUBLE-LINE SLANTED EQUAL TO OR LESS-THAN
    ('\u{2A9C}', Close), // DOUBLE-LINE SLANTED EQUAL TO OR GREATER-THAN
    ('\u{2A9D}', Open), // SIMILAR OR LESS-THAN
    ('\u{2A9E}', Close), // SIMILAR OR GREATER-THAN
    ('\u{2A9F}', Open), // SIMILAR ABOVE LESS-THAN ABOVE EQUALS SIGN
    ('\u{2AA0}', Close), // SIMILAR ABOVE GREATER-THAN ABOVE EQUALS SIGN
    ('\u{2AA1}', Open), // DOUBLE NESTED LESS-THAN
    ('\u{2AA2}', Close), // DOUBLE NESTED GREATER-THAN
    ('\u{2AA3}', Open), // DOUBLE NESTED LESS-THAN WITH UNDERBAR
    ('\u{2AA4}', Close), // GREATER-THAN OVERLAPPING LESS-THAN
    ('\u{2AA5}', Close), // GREATER-THAN BESIDE LESS-THAN
    ('\u{2AA6}', Open), // LESS-THAN CLOSED BY CURVE
    ('\u{2AA7}', Close), // GREATER-THAN CLOSED BY CURVE
    ('\u{2AA8}', Open), // LESS-THAN CLOSED BY CURVE ABOVE SLANTED EQUAL
    ('\u{2AA9}', Close), // GREATER-THAN CLOSED BY CURVE ABOVE SLANTED EQUAL
    ('\u{2AF7}', Open), // TRIPLE NESTED LESS-THAN
    ('\u{2AF8}', Close), // TRIPLE NESTED GREATER-THAN
    ('\u{2AF9}', Open), // DOUBLE-LINE SLANTED LESS-THAN OR EQUAL TO
    ('\u{2AFA}', Close), // DOUBLE-LINE SLANTED GREATER-THAN OR EQUAL TO
    ('\u{2B43}', Close), // RIGHTWARDS ARROW THROUGH GREATER-THAN
    ('\u{3008}', Open), // LEFT ANGLE BRACKET
    ('\u{3009}', Close), // RIGHT ANGLE BRACKET
    ('\u{300A}', Open), // LEFT DOUBLE ANGLE BRACKET
    ('\u{300B}', Close), // RIGHT DOUBLE ANGLE BRACKET
    ('\u{FE3D}', Open), // PRESENTATION FORM FOR VERTICAL LEFT DOUBLE ANGLE BRACKET
    ('\u{FE3E}', Close), // PRESENTATION FORM FOR VERTICAL RIGHT DOUBLE ANGLE BRACKET
    ('\u{FE3F}', Open), // PRESENTATION FORM FOR VERTICAL LEFT ANGLE BRACKET
    ('\u{FE40}', Close), // PRESENTATION FORM FOR VERTICAL RIGHT ANGLE BRACKET
    ('\u{FE64}', Open), // SMALL LESS-THAN SIGN
    ('\u{FE65}', Close), // SMALL GREATER-THAN SIGN
    ('\u{FF1C}', Open), // FULLWIDTH LESS-THAN SIGN
    ('\u{FF1E}', Close), // FULLWIDTH GREATER-THAN SIGN
    ('\u{1DB03}', Close), // LEIBNIZIAN GREATER-THAN
    ('\u{1DB04}', Open), // LEIBNIZIAN LESS-THAN
    ('\u{1DB05}', Close), // LEIBNIZIAN GREATER-THAN WITH SMALL P
    ('\u{1DB06}', Open), // LEIBNIZIAN LESS-THAN WITH SMALL P
    ('\u{1DB07}', Close), // LEIBNIZIAN GREATER-THAN OR LESS-THAN
    ('\u{1DB0A}', Close), // TWO-LINE GREATER-THAN
    ('\u{1DB0B}', Open), // TWO-LINE LESS-THAN
    ('\u{E003C}', Open), // TAG LESS-THAN SIGN
    ('\u{E003E}', Close), // TAG GREATER-THAN SIGN
];

/// HTML's named entities for the characters above, and for `&`, `#`, `%` and `\\`, which can
/// spell a bracket with what follows (`&amp;lt;`): lower-case names sorted, each with its
/// character (`&lt;` and `&Lt;` differ in HTML, but both are brackets that open).
#[rustfmt::skip]
pub const NAMED_ENTITIES: &[(&str, char)] = &[
    ("amp", '\u{0026}'),
    ("bsol", '\u{005C}'),
    ("eg", '\u{2A9A}'),
    ("egs", '\u{2A96}'),
    ("egsdot", '\u{2A98}'),
    ("el", '\u{2A99}'),
    ("els", '\u{2A95}'),
    ("elsdot", '\u{2A97}'),
    ("eqslantgtr", '\u{2A96}'),
    ("eqslantless", '\u{2A95}'),
    ("gap", '\u{2A86}'),
    ("ge", '\u{2265}'),
    ("gel", '\u{22DB}'),
    ("geq", '\u{2265}'),
    ("geqq", '\u{2267}'),
    ("geqslant", '\u{2A7E}'),
    ("ges", '\u{2A7E}'),
    ("gescc", '\u{2AA9}'),
    ("gesdot", '\u{2A80}'),
    ("gesdoto", '\u{2A82}'),
    ("gesdotol", '\u{2A84}'),
    ("gesl", '\u{22DB}'),
    ("gesles", '\u{2A94}'),
    ("gg", '\u{226B}'),
    ("ggg", '\u{22D9}'),
    ("gl", '\u{2277}'),
    ("gla", '\u{2AA5}'),
    ("gle", '\u{2A92}'),
    ("glj", '\u{2AA4}'),
    ("gnap", '\u{2A8A}'),
    ("gnapprox", '\u{2A8A}'),
    ("gne", '\u{2A88}'),
    ("gneq", '\u{2A88}'),
    ("gneqq", '\u{2269}'),
    ("gnsim", '\u{22E7}'),
    ("greaterequal", '\u{2265}'),
    ("greaterequalless", '\u{22DB}'),
    ("greaterfullequal", '\u{2267}'),
    ("greatergreater", '\u{2AA2}'),
    ("greaterless", '\u{2277}'),
    ("greaterslantequal", '\u{2A7E}'),
    ("greatertilde", '\u{2273}'),
    ("gsim", '\u{2273}'),
    ("gsime", '\u{2A8E}'),
    ("gsiml", '\u{2A90}'),
    ("gt", '\u{003E}'),
    ("gtcc", '\u{2AA7}'),
    ("gtcir", '\u{2A7A}'),
    ("gtdot", '\u{22D7}'),
    ("gtlpar", '\u{2995}'),
    ("gtquest", '\u{2A7C}'),
    ("gtrapprox", '\u{2A86}'),
    ("gtrarr", '\u{2978}'),
    ("gtrdot", '\u{22D7}'),
    ("gtreqless", '\u{22DB}'),
    ("gtreqqless", '\u{2A8C}'),
    ("gtrless", '\u{2277}'),
    ("gtrsim", '\u{2273}'),
    ("gvertneqq", '\u{2269}'),
    ("gvne", '\u{2269}'),
    ("lang", '\u{27E8}'),
    ("langd", '\u{2991}'),
    ("langle", '\u{27E8}'),
    ("lap", '\u{2A85}'),
    ("le", '\u{2264}'),
    ("leftanglebracket", '\u{27E8}'),
    ("leg", '\u{22DA}'),
    ("leq", '\u{2264}'),
    ("leqq", '\u{2266}'),
    ("leqslant", '\u{2A7D}'),
    ("les", '\u{2A7D}'),
    ("lescc", '\u{2AA8}'),
    ("lesdot", '\u{2A7F}'),
    ("lesdoto", '\u{2A81}'),
    ("lesdotor", '\u{2A83}'),
    ("lesg", '\u{22DA}'),
    ("lesges", '\u{2A93}'),
    ("lessapprox", '\u{2A85}'),
    ("lessdot", '\u{22D6}'),
    ("lesseqgtr", '\u{22DA}'),
    ("lesseqqgtr", '\u{2A8B}'),
    ("lessequalgreater", '\u{22DA}'),
    ("lessfullequal", '\u{2266}'),
    ("lessgreater", '\u{2276}'),
    ("lessgtr", '\u{2276}'),
    ("lessless", '\u{2AA1}'),
    ("lesssim", '\u{2272}'),
    ("lessslantequal", '\u{2A7D}'),
    ("lesstilde", '\u{2272}'),
    ("lg", '\u{2276}'),
    ("lge", '\u{2A91}'),
    ("ll", '\u{226A}'),
    ("lnap", '\u{2A89}'),
    ("lnapprox", '\u{2A89}'),
    ("lne", '\u{2A87}'),
    ("lneq", '\u{2A87}'),
    ("lneqq", '\u{2268}'),
    ("lnsim", '\u{22E6}'),
    ("lparlt", '\u{2993}'),
    ("lsaquo", '\u{2039}'),
    ("lsim", '\u{2272}'),
    ("lsime", '\u{2A8D}'),
    ("lsimg", '\u{2A8F}'),
    ("lt", '\u{003C}'),
    ("ltcc", '\u{2AA6}'),
    ("ltcir", '\u{2A79}'),
    ("ltdot", '\u{22D6}'),
    ("ltlarr", '\u{2976}'),
    ("ltquest", '\u{2A7B}'),
    ("ltrpar", '\u{2996}'),
    ("lvertneqq", '\u{2268}'),
    ("lvne", '\u{2268}'),
    ("nestedgreatergreater", '\u{226B}'),
    ("nestedlessless", '\u{226A}'),
    ("nge", '\u{2271}'),
    ("ngeq", '\u{2271}'),
    ("ngeqq", '\u{2267}'),
    ("ngeqslant", '\u{2A7E}'),
    ("nges", '\u{2A7E}'),
    ("ngg", '\u{22D9}'),
    ("ngsim", '\u{2275}'),
    ("ngt", '\u{226F}'),
    ("ngtr", '\u{226F}'),
    ("ngtv", '\u{226B}'),
    ("nle", '\u{2270}'),
    ("nleq", '\u{2270}'),
    ("nleqq", '\u{2266}'),
    ("nleqslant", '\u{2A7D}'),
    ("nles", '\u{2A7D}'),
    ("nless", '\u{226E}'),
    ("nll", '\u{22D8}'),
    ("nlsim", '\u{2274}'),
    ("nlt", '\u{226E}'),
    ("nltv", '\u{226A}'),
    ("notgreater", '\u{226F}'),
    ("notgreaterequal", '\u{2271}'),
    ("notgreaterfullequal", '\u{2267}'),
    ("notgreatergreater", '\u{226B}'),
    ("notgreaterless", '\u{2279}'),
    ("notgreaterslantequal", '\u{2A7E}'),
    ("notgreatertilde", '\u{2275}'),
    ("notless", '\u{226E}'),
    ("notlessequal", '\u{2270}'),
    ("notlessgreater", '\u{2278}'),
    ("notlessless", '\u{226A}'),
    ("notlessslantequal", '\u{2A7D}'),
    ("notlesstilde", '\u{2274}'),
    ("notnestedgreatergreater", '\u{2AA2}'),
    ("notnestedlessless", '\u{2AA1}'),
    ("ntgl", '\u{2279}'),
    ("ntlg", '\u{2278}'),
    ("num", '\u{0023}'),
    ("nvge", '\u{2265}'),
    ("nvgt", '\u{003E}'),
    ("nvle", '\u{2264}'),
    ("nvlt", '\u{003C}'),
    ("ogt", '\u{29C1}'),
    ("olt", '\u{29C0}'),
    ("percnt", '\u{0025}'),
    ("pr", '\u{227A}'),
    ("prec", '\u{227A}'),
    ("precedes", '\u{227A}'),
    ("rang", '\u{27E9}'),
    ("rangd", '\u{2992}'),
    ("rangle", '\u{27E9}'),
    ("rightanglebracket", '\u{27E9}'),
    ("rpargt", '\u{2994}'),
    ("rsaquo", '\u{203A}'),
    ("sc", '\u{227B}'),
    ("simg", '\u{2A9E}'),
    ("simge", '\u{2AA0}'),
    ("siml", '\u{2A9D}'),
    ("simle", '\u{2A9F}'),
    ("succ", '\u{227B}'),
    ("succeeds", '\u{227B}'),
];
