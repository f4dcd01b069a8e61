//! CSV as RFC 4180 writes it: reading a user's question file, writing result exports. A
//! written cell that a spreadsheet would run as a formula is made plain text first.

/// The records of `text`: quoted fields may hold commas, quotes (doubled) and line breaks;
/// lines end in `\n` or `\r\n`; a leading byte-order mark is ignored. Errors name the line
/// where the broken record starts.
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let (mut line, mut record_line) = (1usize, 1usize);
    let mut quoted = false;
    // The field began with a quote: its closing quote was seen and only a separator may follow.
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => {
                    quoted = false;
                    was_quoted = true;
                }
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() && !was_quoted => quoted = true,
            ',' => {
                record.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
                was_quoted = false;
                line += 1;
                record_line = line;
            }
            _ if was_quoted => {
                return Err(format!(
                    "Line {line}: text after a quoted field's closing quote."
                ))
            }
            _ => field.push(c),
        }
    }
    if quoted {
        return Err(format!("Line {record_line}: a quoted field is not closed."));
    }
    if !field.is_empty() || !record.is_empty() || was_quoted {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

/// Whether a spreadsheet would read the cell as a formula: it starts with one of the
/// characters that begin one, and it is not simply a number such as "-3.5".
fn looks_like_formula(value: &str) -> bool {
    value.starts_with(['=', '+', '-', '@', '\t', '\r']) && value.trim().parse::<f64>().is_err()
}

/// One cell, quoted when it must be, and kept from running as a formula.
pub fn csv_field(value: &str) -> String {
    let guarded = if looks_like_formula(value) {
        format!("'{value}")
    } else {
        value.to_string()
    };
    if guarded.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

/// One record, ending in `\r\n`.
pub fn csv_row(fields: &[String]) -> String {
    let mut line = fields
        .iter()
        .map(|f| csv_field(f))
        .collect::<Vec<_>>()
        .join(",");
    line.push_str("\r\n");
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_the_same() {
        let rows: Vec<Vec<String>> = vec![
            vec!["question".into(), "answer".into()],
            vec!["Who said \"hi\", twice?".into(), "Ann\nand Bob".into()],
            vec!["Zürich ✓".into(), "".into()],
            vec!["-3.5".into(), "+".into()],
        ];
        let text: String = rows.iter().map(|r| csv_row(r)).collect();
        let mut expected = rows.clone();
        expected[3][1] = "'+".into();
        assert_eq!(parse_csv(&text).unwrap(), expected);
    }

    #[test]
    fn reads_crlf_a_bom_and_a_last_line_without_an_ending() {
        let text = "\u{feff}a,b\r\n\"x, y\",z\r\n1,2";
        assert_eq!(
            parse_csv(text).unwrap(),
            vec![vec!["a", "b"], vec!["x, y", "z"], vec!["1", "2"]]
        );
    }

    #[test]
    fn a_broken_quote_names_its_line() {
        let err = parse_csv("a,b\nc,d\n\"open,e\nf").unwrap_err();
        assert!(err.starts_with("Line 3:"), "{err}");
        let err = parse_csv("a,b\n\"x\"y,z").unwrap_err();
        assert!(err.starts_with("Line 2:"), "{err}");
    }

    #[test]
    fn formulas_become_text_but_numbers_stay_numbers() {
        assert_eq!(
            csv_field("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
        );
        assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_field("-3.5"), "-3.5");
        assert_eq!(csv_field("+1 555"), "'+1 555");
        assert_eq!(csv_field("plain"), "plain");
    }
}
