//! A reply with no fence may still be a program: a small model often writes bare Python. It is
//! run when the whole reply is valid Python that calls a tool or `final_answer`. Whether it is
//! valid Python is the sandbox's own `compile()` to say (`compile_check`), never a guess here;
//! this module only picks the replies worth asking about and reads the answer.

use super::final_answer_name::rename_final_answer_variable;
use crate::tools::program::{ProgramRun, PythonTool};

/// The whole reply, when it calls `final_answer` or one of `tools` (a name followed by `(`):
/// worth asking the sandbox whether it is a program.
/// A variable named `final_answer` is renamed, as in a fenced program.
pub fn bare_program(reply: &str, tools: &[PythonTool]) -> Option<String> {
    let code = reply.trim();
    let calls = |name: &str| calls_name(code, name);
    if !(calls("final_answer") || tools.iter().any(|t| calls(&t.function))) {
        return None;
    }
    Some(rename_final_answer_variable(code).unwrap_or_else(|| code.to_string()))
}

fn calls_name(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let starts_a_name = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        starts_a_name
            && code[at + name.len()..]
                .trim_start_matches([' ', '\t'])
                .starts_with('(')
    })
}

/// The program that asks the sandbox whether `code` compiles: Python's own `compile()` on the
/// text, given as a JSON string (a valid Python string literal). It defines nothing and runs
/// none of the code.
pub fn compile_check(code: &str) -> String {
    let literal = serde_json::to_string(code).unwrap_or_else(|_| "''".into());
    format!("compile({literal}, '<reply>', 'exec') and None")
}

/// Whether the check's run says the text compiled.
pub fn compiled(check: &ProgramRun) -> bool {
    check.error.is_none() && check.stopped.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(names: &[&str]) -> Vec<PythonTool> {
        names
            .iter()
            .map(|n| PythonTool {
                function: n.to_string(),
                tool: n.to_string(),
                params: vec![],
            })
            .collect()
    }

    #[test]
    fn a_reply_that_calls_a_tool_or_final_answer_is_asked_about() {
        let t = tools(&["calculator", "web_search"]);
        assert_eq!(
            bare_program("result = calculator(expression='2+2')\nprint(result)\n", &t).as_deref(),
            Some("result = calculator(expression='2+2')\nprint(result)")
        );
        assert!(bare_program("final_answer (42)", &t).is_some());
        assert!(bare_program("x = web_search('q')", &t).is_some());
        assert_eq!(
            bare_program("final_answer = 6*7\nfinal_answer(final_answer)", &t).as_deref(),
            Some("final_answer_variable = 6*7\nfinal_answer(final_answer_variable)")
        );
    }

    #[test]
    fn prose_and_lookalike_names_are_not() {
        let t = tools(&["calculator"]);
        for reply in [
            "The calculator says 4.",
            "I would call my_calculator(2) here.",
            "obj.final_answer(3)",
            "Thought: I know it.",
            "final_answers(1)",
        ] {
            assert_eq!(bare_program(reply, &t), None, "{reply}");
        }
    }

    #[test]
    fn the_check_hands_the_text_to_compile_as_a_literal() {
        assert_eq!(
            compile_check("print(\"a\")\nx = 'b\\\\'"),
            "compile(\"print(\\\"a\\\")\\nx = 'b\\\\\\\\'\", '<reply>', 'exec') and None"
        );
        assert!(compiled(&ProgramRun::default()));
        assert!(!compiled(&ProgramRun {
            error: Some("  File \"<reply>\", line 1\nSyntaxError: invalid syntax".into()),
            ..ProgramRun::default()
        }));
    }
}
