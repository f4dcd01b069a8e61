//! The tags models wrap their reasoning in, inline in the content (`<think>…</think>` and its
//! kin, any case): one list for both readers of a reply, the split of the stream as it arrives
//! (`think_split`) and the preparation of the whole reply (`protocol::prepare`).

/// The tags' names.
pub const NAMES: [&str; 3] = ["think", "thinking", "reasoning"];

/// The tags as written, lowercase, each with whether it opens a block.
pub const MARKS: [(&str, bool); 6] = [
    ("<think>", true),
    ("</think>", false),
    ("<thinking>", true),
    ("</thinking>", false),
    ("<reasoning>", true),
    ("</reasoning>", false),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marks_are_the_names_opened_and_closed() {
        let from_names: Vec<(String, bool)> = NAMES
            .iter()
            .flat_map(|n| [(format!("<{n}>"), true), (format!("</{n}>"), false)])
            .collect();
        let marks: Vec<(String, bool)> = MARKS.iter().map(|(m, o)| (m.to_string(), *o)).collect();
        assert_eq!(marks, from_names);
    }
}
