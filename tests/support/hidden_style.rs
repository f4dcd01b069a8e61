//! The hidden-style question set the Evaluate tests use: ten questions about one book, each
//! answerable from the Wikipedia fixture (`tests/fixtures/wikipedia`), with gold answers. The
//! scripted evaluation (tests/evaluate_e2e.rs) and the real one on llama.cpp's server
//! (`BENCH_ONLY=codeact`) both run it.

/// The questions and their gold answers. Each question's tag (`Q01`…) occurs in no other.
pub const QUESTIONS: [(&str, &str); 10] = [
    (
        "Q01: Who wrote the novel Things Fall Apart?",
        "Chinua Achebe",
    ),
    (
        "Q02: In which year was Things Fall Apart first published?",
        "1958",
    ),
    (
        "Q03: Who is the protagonist of Things Fall Apart?",
        "Okonkwo",
    ),
    (
        "Q04: In which fictional village is Things Fall Apart set?",
        "Umuofia",
    ),
    (
        "Q05: Which country was the author of Things Fall Apart from?",
        "Nigeria",
    ),
    (
        "Q06: Which 1964 novel did the same author write?",
        "Arrow of God",
    ),
    ("Q07: Is Things Fall Apart a novel?", "yes"),
    ("Q08: Which people does Things Fall Apart portray?", "Igbo"),
    ("Q09: What kind of book is Things Fall Apart?", "novel"),
    ("Q10: Who wrote Arrow of God?", "Chinua Achebe"),
];
