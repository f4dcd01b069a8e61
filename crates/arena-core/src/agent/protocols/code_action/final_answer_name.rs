//! A program that makes `final_answer` a variable (`final_answer = 6*7`) would hide the function
//! that ends the run, and its `final_answer(final_answer)` would fail with "int is not
//! callable": a step lost to a name. smolagents renames such a variable before running the
//! program; so does this, on the program's text, leaving strings and comments as they are.

/// What the variable is called instead.
pub const RENAMED: &str = "final_answer_variable";

const NAME: &str = "final_answer";

/// `code` with its variable `final_answer` renamed [`RENAMED`] (every use that is not a call),
/// or `None` when the program never assigns to it.
pub fn rename_final_answer_variable(code: &str) -> Option<String> {
    let uses = uses_of_the_name(code);
    if !uses.iter().any(|u| u.assigned) {
        return None;
    }
    let mut out = String::with_capacity(code.len() + 16);
    let mut from = 0;
    for u in uses.iter().filter(|u| !u.called) {
        out.push_str(&code[from..u.at]);
        out.push_str(RENAMED);
        from = u.at + NAME.len();
    }
    out.push_str(&code[from..]);
    Some(out)
}

struct Use {
    at: usize,
    /// Followed by `(`: the function is called.
    called: bool,
    /// Followed by `=` (not `==`): a value is given to the name.
    assigned: bool,
}

/// Where the name `final_answer` stands in the code (not in a string or a comment, not an
/// attribute, not part of a longer name).
fn uses_of_the_name(code: &str) -> Vec<Use> {
    let bytes = code.as_bytes();
    let mut uses = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                i = code[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            quote @ (b'"' | b'\'') => i = string_end(bytes, i, quote),
            c if is_name_byte(c) => {
                let start = i;
                while i < bytes.len() && is_name_byte(bytes[i]) {
                    i += 1;
                }
                let attribute = code[..start].trim_end().ends_with('.');
                if &code[start..i] == NAME && !attribute {
                    let after = code[i..].trim_start_matches([' ', '\t']);
                    uses.push(Use {
                        at: start,
                        called: after.starts_with('('),
                        assigned: after.starts_with('=') && !after.starts_with("=="),
                    });
                }
            }
            _ => i += 1,
        }
    }
    uses
}

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Where the string literal opened at `start` by `quote` ends (one or three quotes; a prefix
/// such as `f` or `r` was read as part of a name before it, which changes nothing here but
/// raw strings' backslashes, rare enough around this name).
fn string_end(bytes: &[u8], start: usize, quote: u8) -> usize {
    let triple = bytes.len() >= start + 3 && bytes[start + 1] == quote && bytes[start + 2] == quote;
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            c if c == quote => {
                if !triple {
                    return i + 1;
                }
                if bytes.len() >= i + 3 && bytes[i + 1] == quote && bytes[i + 2] == quote {
                    return i + 3;
                }
                i += 1;
            }
            // An unclosed one-line string ends with its line (Python will say why).
            b'\n' if !triple => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variable_named_final_answer_is_renamed_and_the_call_left_alone() {
        assert_eq!(
            rename_final_answer_variable("final_answer = 6*7\nfinal_answer(final_answer)")
                .as_deref(),
            Some("final_answer_variable = 6*7\nfinal_answer(final_answer_variable)")
        );
        // The one-step form, with spaces and a print of it.
        assert_eq!(
            rename_final_answer_variable(
                "final_answer=6*7; print(final_answer) ; final_answer (final_answer)"
            )
            .as_deref(),
            Some(
                "final_answer_variable=6*7; print(final_answer_variable) ; final_answer (final_answer_variable)"
            )
        );
    }

    #[test]
    fn a_program_that_only_calls_it_or_compares_it_is_left_as_it_is() {
        for code in [
            "final_answer(42)",
            "x = 1\nfinal_answer(x)",
            "if final_answer == 3:\n    pass",
            "result.final_answer = 3\nfinal_answer(result)",
            "my_final_answer = 3\nfinal_answer(my_final_answer)",
            "print('final_answer = 3')\nfinal_answer(1)",
            "# final_answer = 3\nfinal_answer(1)",
        ] {
            assert_eq!(rename_final_answer_variable(code), None, "{code}");
        }
    }

    #[test]
    fn strings_comments_and_attributes_keep_the_name() {
        let code = "final_answer = 'final_answer'  # final_answer\nobj.final_answer\n\"\"\"final_answer = 1\"\"\"\nfinal_answer(final_answer)";
        assert_eq!(
            rename_final_answer_variable(code).as_deref(),
            Some("final_answer_variable = 'final_answer'  # final_answer\nobj.final_answer\n\"\"\"final_answer = 1\"\"\"\nfinal_answer(final_answer_variable)")
        );
        // An escaped quote does not end the string; an unclosed one ends with its line.
        assert_eq!(
            rename_final_answer_variable("s = 'it\\'s final_answer'\nfinal_answer = s\nprint('x\nfinal_answer").as_deref(),
            Some("s = 'it\\'s final_answer'\nfinal_answer_variable = s\nprint('x\nfinal_answer_variable")
        );
    }
}
