//! Question sets: the HotpotQA subset the page ships, a small built-in set for the other
//! tools (checked by rules, not by text), and a user's own JSON or CSV file.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::csv::parse_csv;
use super::score::{text_score, Score};

/// Limits on a user's file: it is outside input, read whole into the page.
pub const MAX_FILE_BYTES: usize = 2_000_000;
pub const MAX_QUESTIONS: usize = 5_000;
pub const MAX_FIELD_CHARS: usize = 4_000;

/// How an answer is checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Check {
    /// Exact match and F1 against the gold answer.
    #[default]
    Text,
    /// Right when the answer states a number within `tolerance` of `value`.
    Number { value: f64, tolerance: f64 },
    /// Right when the answer states a temperature: live weather has no fixed gold answer,
    /// so the rule checks that the tool's reading made it into the answer.
    Temperature,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub question: String,
    pub answer: String,
    #[serde(default)]
    pub check: Check,
}

/// The numbers written in `text` ("1,234.5", "-3", "42"), each with the byte offset just
/// after it.
fn numbers_in(text: &str) -> Vec<(f64, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_number = bytes[i].is_ascii_digit()
            || (bytes[i] == b'-'
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()));
        if !starts_number || (i > 0 && bytes[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let start = i;
        let mut digits = String::new();
        if bytes[i] == b'-' {
            digits.push('-');
            i += 1;
        }
        while i < bytes.len() {
            let b = bytes[i];
            let next_is_digit = bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if b.is_ascii_digit() {
                digits.push(b as char);
            } else if b == b','
                && bytes[i + 1..].iter().take(3).all(u8::is_ascii_digit)
                && bytes.len() >= i + 4
                && !bytes.get(i + 4).is_some_and(u8::is_ascii_digit)
            {
                // A thousands separator: exactly three digits follow.
            } else if b == b'.' && next_is_digit && !digits.contains('.') {
                digits.push('.');
            } else {
                break;
            }
            i += 1;
        }
        if let Ok(n) = digits.parse::<f64>() {
            found.push((n, i));
        }
        if i == start {
            i += 1;
        }
    }
    found
}

fn states_number(answer: &str, value: f64, tolerance: f64) -> bool {
    numbers_in(answer)
        .iter()
        .any(|(n, _)| (n - value).abs() <= tolerance + 1e-9)
}

fn states_temperature(answer: &str) -> bool {
    numbers_in(answer).iter().any(|&(_, end)| {
        let rest = answer[end..].trim_start().to_lowercase();
        let unit_letter = |c: char| {
            rest.starts_with(c) && !rest[1..].chars().next().is_some_and(char::is_alphabetic)
        };
        rest.starts_with(['°', 'º'])
            || rest.starts_with("degree")
            || rest.starts_with("celsius")
            || rest.starts_with("fahrenheit")
            || unit_letter('c')
            || unit_letter('f')
    })
}

/// The score of `prediction` (`None`: the run gave no answer, which scores 0).
pub fn score(question: &Question, prediction: Option<&str>) -> Score {
    let Some(answer) = prediction else {
        return Score::default();
    };
    let rule = |right: bool| {
        let s = if right { 1.0 } else { 0.0 };
        Score { em: s, f1: s }
    };
    match &question.check {
        Check::Text => text_score(answer, &question.answer),
        Check::Number { value, tolerance } => rule(states_number(answer, *value, *tolerance)),
        Check::Temperature => rule(states_temperature(answer)),
    }
}

#[derive(Deserialize)]
struct HotpotQaItem {
    id: u64,
    question: String,
    answer: String,
}

/// The shipped subset: `[{"id", "question", "answer", "type"}]`.
pub fn parse_hotpotqa(json: &str) -> Result<Vec<Question>, String> {
    let items: Vec<HotpotQaItem> =
        serde_json::from_str(json).map_err(|e| format!("The HotpotQA file is damaged: {e}"))?;
    Ok(items
        .into_iter()
        .map(|i| Question {
            id: format!("hotpotqa-{}", i.id),
            question: i.question,
            answer: i.answer,
            check: Check::Text,
        })
        .collect())
}

/// A question and answer from the user's file, checked; `place` names where it came from.
fn own_question(n: usize, place: &str, question: &str, answer: &str) -> Result<Question, String> {
    let (question, answer) = (question.trim(), answer.trim());
    if question.is_empty() {
        return Err(format!("{place} has no question."));
    }
    if answer.is_empty() {
        return Err(format!("{place} has no answer."));
    }
    if question.chars().count() > MAX_FIELD_CHARS || answer.chars().count() > MAX_FIELD_CHARS {
        return Err(format!(
            "{place} is too long: a question or answer may have at most {MAX_FIELD_CHARS} characters."
        ));
    }
    Ok(Question {
        id: format!("own-{n}"),
        question: question.to_string(),
        answer: answer.to_string(),
        check: Check::Text,
    })
}

fn too_many(n: usize) -> Result<(), String> {
    if n > MAX_QUESTIONS {
        return Err(format!(
            "The file has {n} questions; at most {MAX_QUESTIONS} can be evaluated."
        ));
    }
    Ok(())
}

fn from_json(text: &str) -> Result<Vec<Question>, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("The file is not valid JSON: {e}."))?;
    let items = match &value {
        Value::Array(items) => items,
        Value::Object(o) => match o.get("questions") {
            Some(Value::Array(items)) => items,
            _ => return Err("The JSON needs an array of {\"question\", \"answer\"} objects, or an object with a \"questions\" array.".into()),
        },
        _ => return Err("The JSON needs an array of {\"question\", \"answer\"} objects.".into()),
    };
    too_many(items.len())?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let place = format!("Item {}", i + 1);
            let text = |key: &str| match item.get(key) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                Some(Value::Bool(b)) => if *b { "yes" } else { "no" }.to_string(),
                _ => String::new(),
            };
            own_question(i + 1, &place, &text("question"), &text("answer"))
        })
        .collect()
}

fn from_csv(text: &str) -> Result<Vec<Question>, String> {
    let rows = parse_csv(text)?;
    let mut rows = rows
        .into_iter()
        .filter(|r| r.iter().any(|f| !f.trim().is_empty()));
    let header = rows.next().unwrap_or_default();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name))
    };
    let (Some(q), Some(a)) = (column("question"), column("answer")) else {
        return Err("The CSV needs a header with question and answer columns.".into());
    };
    let rows: Vec<Vec<String>> = rows.collect();
    too_many(rows.len())?;
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let field = |c: usize| row.get(c).map_or("", String::as_str);
            own_question(i + 1, &format!("Row {}", i + 1), field(q), field(a))
        })
        .collect()
}

/// A user's own set: JSON (an array of `{"question", "answer"}`, or `{"questions": [...]}`)
/// or CSV with `question` and `answer` columns. Ids are `own-1`, `own-2`… in file order.
pub fn parse_user_file(file_name: &str, text: &str) -> Result<Vec<Question>, String> {
    if text.len() > MAX_FILE_BYTES {
        return Err(format!(
            "The file is larger than {} MB.",
            MAX_FILE_BYTES / 1_000_000
        ));
    }
    let start = text.trim_start_matches('\u{feff}').trim_start();
    let json = file_name.to_lowercase().ends_with(".json") || start.starts_with(['[', '{']);
    let questions = if json {
        from_json(text.trim_start_matches('\u{feff}'))?
    } else {
        from_csv(text)?
    };
    if questions.is_empty() {
        return Err("The file has no questions.".into());
    }
    Ok(questions)
}

/// Questions for the other tools: arithmetic (calculator or Python), unit conversions, and
/// weather, each checked by a rule.
pub fn builtin_tool_set() -> Vec<Question> {
    let number = |q: &'static str, value: f64, tolerance: f64| {
        (q, value, Check::Number { value, tolerance })
    };
    let items = [
        number("What is 17 × 23?", 391.0, 0.0),
        number("What is 15% of 2,480?", 372.0, 0.0),
        number("What is the square root of 1,764?", 42.0, 0.0),
        number("What is 2 to the power of 20?", 1_048_576.0, 0.0),
        number("What is 123,456 divided by 64?", 1_929.0, 0.0),
        number("How many kilometres is 26.2 miles?", 42.16, 0.05),
        number("What is 98.6 °F in degrees Celsius?", 37.0, 0.05),
        number("How many kilograms is 150 pounds?", 68.04, 0.05),
        number("How many metres is 1,000 feet?", 304.8, 0.05),
        (
            "What is the temperature in Paris right now?",
            0.0,
            Check::Temperature,
        ),
        ("How warm is it in Tokyo today?", 0.0, Check::Temperature),
        (
            "What is the current temperature in Nairobi?",
            0.0,
            Check::Temperature,
        ),
    ];
    items
        .into_iter()
        .enumerate()
        .map(|(i, (question, value, check))| Question {
            id: format!("tools-{}", i + 1),
            question: question.to_string(),
            answer: match check {
                Check::Temperature => "a temperature (checked by rule)".into(),
                _ => format!("{value}"),
            },
            check,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOTPOTQA: &str = include_str!("../../../../public/data/hotpotqa_dev_react500.json");

    #[test]
    fn the_shipped_hotpotqa_subset_has_the_papers_500_in_order() {
        let set = parse_hotpotqa(HOTPOTQA).unwrap();
        assert_eq!(set.len(), 500);
        assert_eq!(set[0].id, "hotpotqa-3687");
        assert_eq!(set[1].answer, "Seth MacFarlane");
        assert!(parse_hotpotqa("{}").unwrap_err().contains("damaged"));
    }

    #[test]
    fn a_csv_with_quotes_line_breaks_a_bom_and_its_own_column_order() {
        let text = "\u{feff}id,Answer , QUESTION\r\n1,\"Paris, France\",\"Where is the \"\"Louvre\"\"?\"\r\n\r\n2,42,\"Six times\nseven?\"\r\n";
        let set = parse_user_file("mine.csv", text).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set[0].question, "Where is the \"Louvre\"?");
        assert_eq!(set[0].answer, "Paris, France");
        assert_eq!(
            (set[1].id.as_str(), set[1].question.as_str()),
            ("own-2", "Six times\nseven?")
        );
    }

    #[test]
    fn json_arrays_objects_and_number_answers() {
        let set = parse_user_file(
            "x.json",
            r#"[{"question":" Q? ","answer":42},{"question":"B?","answer":"b"}]"#,
        )
        .unwrap();
        assert_eq!(
            (set[0].question.as_str(), set[0].answer.as_str()),
            ("Q?", "42")
        );
        let set = parse_user_file(
            "x.txt",
            r#"{"questions":[{"question":"Q?","answer":true}]}"#,
        )
        .unwrap();
        assert_eq!(set[0].answer, "yes");
    }

    #[test]
    fn bad_files_say_what_and_where() {
        let err = |name: &str, text: &str| parse_user_file(name, text).unwrap_err();
        assert!(err("a.csv", "q,a\nx,y").contains("header with question and answer"));
        assert!(err("a.csv", "question,answer\nA?,a\nB?,\n").contains("Row 2 has no answer"));
        assert!(err("a.csv", "question,answer\n,a\n").contains("Row 1 has no question"));
        assert!(err(
            "a.json",
            r#"[{"question":"A?","answer":"a"},{"question":"B?"}]"#
        )
        .contains("Item 2 has no answer"));
        assert!(err("a.json", "[1,").contains("not valid JSON"));
        assert!(err("a.json", r#"{"x":1}"#).contains("array"));
        assert!(err("a.json", "[]").contains("no questions"));
        assert!(err("a.csv", "question,answer\n").contains("no questions"));
        assert!(err("a.csv", "question,answer\n\"open,a\n").contains("Line 2"));
        let long = format!(
            "question,answer\nA?,a\nB?,{}\n",
            "x".repeat(MAX_FIELD_CHARS + 1)
        );
        assert!(err("a.csv", &long).contains("Row 2 is too long"));
        let big = format!(
            "question,answer\n{}",
            "Q?,a\n".repeat(MAX_FILE_BYTES / 5 + 1)
        );
        assert!(err("a.csv", &big).contains("larger than 2 MB"));
        let many = format!("question,answer\n{}", "Q?,a\n".repeat(MAX_QUESTIONS + 1));
        assert!(err("a.csv", &many).contains("at most 5000"));
    }

    #[test]
    fn rules_check_numbers_and_temperatures() {
        let set = builtin_tool_set();
        let product = &set[0];
        assert_eq!(score(product, Some("17 × 23 = 391.")).em, 1.0);
        assert_eq!(score(product, Some("The answer is 391")).f1, 1.0);
        assert_eq!(score(product, Some("39")).em, 0.0);
        assert_eq!(score(product, None), Score::default());
        assert_eq!(score(&set[3], Some("1,048,576")).em, 1.0);
        assert_eq!(score(&set[6], Some("about 37.0 °C")).em, 1.0);
        let weather = &set[9];
        for said in [
            "It is 12 °C in Paris",
            "54 degrees",
            "-3 C and windy",
            "21.5°F",
            "15 celsius",
        ] {
            assert_eq!(score(weather, Some(said)).em, 1.0, "{said}");
        }
        for said in ["I could not find the weather", "12 cats", "Route 66 closed"] {
            assert_eq!(score(weather, Some(said)).em, 0.0, "{said}");
        }
    }

    #[test]
    fn the_built_in_numbers_are_what_the_arithmetic_gives() {
        let expected = [
            17.0 * 23.0,
            0.15 * 2480.0,
            1764f64.sqrt(),
            2f64.powi(20),
            123_456.0 / 64.0,
            26.2 * 1.609_344,
            (98.6 - 32.0) * 5.0 / 9.0,
            150.0 * 0.453_592_37,
            1000.0 * 0.3048,
        ];
        let set = builtin_tool_set();
        assert_eq!(set.len(), 12);
        for (q, want) in set.iter().zip(expected) {
            let Check::Number { value, tolerance } = q.check else {
                panic!("{} has no number", q.id)
            };
            assert!(
                (value - want).abs() <= tolerance.max(1e-9),
                "{}: {value} vs {want}",
                q.id
            );
            assert_eq!(score(q, Some(&format!("{want:.3}"))).em, 1.0, "{}", q.id);
        }
    }
}
