//! A safe calculator: a small recursive-descent parser over f64, no code evaluation.
//!
//! Hand-written rather than a crate: the expression crates that fit need `regex`, which costs
//! far more wasm bytes than this file.

use futures::future::LocalBoxFuture;

use super::{TextInput, ToolFailure, TypedTool};

/// Longest expression accepted; anything longer is not arithmetic a model means.
pub const MAX_INPUT_CHARS: usize = 500;
/// Nesting limit, so hostile input cannot exhaust the stack.
const MAX_DEPTH: u32 = 64;

pub struct Calculator;

impl TypedTool for Calculator {
    const NAME: &'static str = "calculator";
    const DESCRIPTION: &'static str = "Evaluates an arithmetic expression exactly as written: + - * / ^ % ( ), sqrt, ln, log, sin, cos, tan, factorial (n!), pi, e.";
    const INPUT_HINT: &'static str = "an arithmetic expression, e.g. 2340*0.17 or sqrt(2)^2";
    type Args = TextInput;

    fn run(&self, args: TextInput) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        // Whatever the calculator cannot evaluate is the expression's fault.
        Box::pin(async move {
            evaluate(&args.input)
                .map(format_number)
                .map_err(ToolFailure::bad_arguments)
        })
    }
}

/// Said when `of` is not part of `X% of Y`.
const OF_FOLLOWS_PERCENT: &str =
    "'of' only follows a percentage, as in 17% of 2345; use * to multiply.";

/// Evaluates `input`; errors are sentences for the model and the user.
pub fn evaluate(input: &str) -> Result<f64, String> {
    let input = strip_wording(input).trim_matches('`').trim();
    if input.is_empty() {
        return Err("The calculator needs an expression, e.g. 2*(3+4).".into());
    }
    if input.chars().count() > MAX_INPUT_CHARS {
        return Err(format!(
            "The expression is too long (over {MAX_INPUT_CHARS} characters)."
        ));
    }
    let tokens = tokenize(input)?;
    let mut p = Parser {
        tokens: &tokens,
        pos: 0,
        depth: 0,
    };
    let v = p.expr()?;
    if let Some(t) = p.peek() {
        if t.is_word("of") {
            return Err(OF_FOLLOWS_PERCENT.into());
        }
        return Err(format!(
            "Unexpected {} after the end of the expression.",
            t.describe()
        ));
    }
    if !v.is_finite() {
        return Err("The result is not a finite number.".into());
    }
    Ok(v)
}

/// Drops the words around a question ("What is …?", "What's …", "calculate …", "compute …")
/// and a trailing `=` or `?`.
fn strip_wording(input: &str) -> &str {
    let mut s = input.trim();
    for prefix in ["what is", "what's", "what’s", "calculate", "compute"] {
        if !s
            .get(..prefix.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
        {
            continue;
        }
        let rest = &s[prefix.len()..];
        // A whole word only: "computer" is not "compute" + "r".
        if rest.chars().next().is_none_or(|c| !c.is_alphanumeric()) {
            s = rest;
            break;
        }
    }
    s.trim_end_matches(|c: char| c == '=' || c == '?' || c.is_whitespace())
        .trim()
}

/// Twelve significant digits: enough for any answer, few enough to hide float noise
/// (`0.1+0.2` gives `0.3`).
pub fn format_number(v: f64) -> String {
    let rounded: f64 = format!("{v:.11e}").parse().unwrap_or(v);
    let rounded = if rounded == 0.0 { 0.0 } else { rounded }; // no "-0"
    if rounded.abs() >= 1e16 || (rounded != 0.0 && rounded.abs() < 1e-6) {
        format!("{rounded:e}")
    } else {
        format!("{rounded}")
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(f64),
    Ident(String),
    Op(char),
    LParen,
    RParen,
    Comma,
}

impl Token {
    fn is_word(&self, word: &str) -> bool {
        matches!(self, Token::Ident(w) if w == word)
    }

    fn describe(&self) -> String {
        match self {
            Token::Num(n) => format!("number {}", format_number(*n)),
            Token::Ident(s) => format!("name '{s}'"),
            Token::Op(c) => format!("'{c}'"),
            Token::LParen => "'('".into(),
            Token::RParen => "')'".into(),
            Token::Comma => "','".into(),
        }
    }
}

fn tokenize(s: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    // For each open parenthesis: does it hold function arguments (where ',' separates)?
    let mut call_parens: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '0'..='9' | '.' => {
                let start = i;
                let mut text = String::new();
                while i < chars.len() {
                    let d = chars[i];
                    if d.is_ascii_digit() || d == '.' || d == '_' {
                        if d != '_' {
                            text.push(d);
                        }
                        i += 1;
                    } else if d == ','
                        && call_parens.last() != Some(&true)
                        && is_thousands_group(&chars, i)
                    {
                        i += 1; // "2,340": a thousands separator, not an argument separator
                    } else if (d == 'e' || d == 'E') && exponent_follows(&chars, i) {
                        text.push('e');
                        i += 1;
                        if chars[i] == '+' || chars[i] == '-' {
                            text.push(chars[i]);
                            i += 1;
                        }
                    } else {
                        break;
                    }
                }
                let n = text
                    .parse::<f64>()
                    .map_err(|_| format!("'{}' is not a number.", chars[start..i].iter().collect::<String>()))?;
                out.push(Token::Num(n));
            }
            c if c.is_alphabetic() || c == 'π' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect::<String>().to_lowercase();
                // "percent" and "per cent" are `%`.
                if word == "percent" {
                    out.push(Token::Op('%'));
                } else if word == "cent" && out.last().is_some_and(|t| t.is_word("per")) {
                    *out.last_mut().unwrap() = Token::Op('%');
                } else {
                    out.push(Token::Ident(if word == "π" { "pi".into() } else { word }));
                }
            }
            '(' | '[' => {
                let call = matches!(out.last(), Some(t @ Token::Ident(_)) if !t.is_word("of"));
                call_parens.push(call);
                out.push(Token::LParen);
                i += 1;
            }
            ')' | ']' => {
                call_parens.pop();
                out.push(Token::RParen);
                i += 1;
            }
            ',' => {
                out.push(Token::Comma);
                i += 1;
            }
            '*' if chars.get(i + 1) == Some(&'*') => {
                out.push(Token::Op('^'));
                i += 2;
            }
            '+' | '-' | '*' | '/' | '^' | '%' | '!' => {
                out.push(Token::Op(c));
                i += 1;
            }
            '×' | '·' => {
                out.push(Token::Op('*'));
                i += 1;
            }
            '÷' => {
                out.push(Token::Op('/'));
                i += 1;
            }
            '−' => {
                out.push(Token::Op('-'));
                i += 1;
            }
            other => {
                return Err(format!(
                    "The character '{other}' is not allowed; use numbers, + - * / ^ % ! ( ) and functions like sqrt."
                ))
            }
        }
    }
    Ok(out)
}

/// A comma inside a number is a thousands separator when exactly three digits follow it.
fn is_thousands_group(chars: &[char], comma: usize) -> bool {
    let digits = chars[comma + 1..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    digits == 3
}

fn exponent_follows(chars: &[char], e: usize) -> bool {
    match chars.get(e + 1) {
        Some(d) if d.is_ascii_digit() => true,
        Some('+' | '-') => chars.get(e + 2).is_some_and(|d| d.is_ascii_digit()),
        _ => false,
    }
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    depth: u32,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn eat_op(&mut self, op: char) -> bool {
        if self.peek() == Some(&Token::Op(op)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("The expression is nested too deeply.".into());
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<f64, String> {
        self.enter()?;
        let mut v = self.term()?;
        loop {
            if self.eat_op('+') {
                v += self.term()?;
            } else if self.eat_op('-') {
                v -= self.term()?;
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(v)
    }

    fn term(&mut self) -> Result<f64, String> {
        let mut v = self.unary()?;
        loop {
            if self.eat_op('*') {
                v *= self.unary()?;
            } else if self.eat_op('/') {
                let d = self.unary()?;
                if d == 0.0 {
                    return Err("Division by zero.".into());
                }
                v /= d;
            } else if self.peek() == Some(&Token::Op('%')) && self.starts_operand(self.pos + 1) {
                self.pos += 1;
                let d = self.unary()?;
                if d == 0.0 {
                    return Err("Modulo by zero.".into());
                }
                v %= d;
            } else {
                break;
            }
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<f64, String> {
        if self.eat_op('-') {
            self.enter()?;
            let v = -self.unary()?;
            self.depth -= 1;
            return Ok(v);
        }
        if self.eat_op('+') {
            return self.unary();
        }
        self.power()
    }

    fn power(&mut self) -> Result<f64, String> {
        let base = self.postfix()?;
        if self.eat_op('^') {
            self.enter()?;
            let exp = self.unary()?; // right-associative: 2^3^2 = 2^9
            self.depth -= 1;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> Result<f64, String> {
        let mut v = self.primary()?;
        loop {
            if self.eat_op('!') {
                v = factorial(v)?;
            } else if self.peek() == Some(&Token::Op('%'))
                && self
                    .tokens
                    .get(self.pos + 1)
                    .is_some_and(|t| t.is_word("of"))
            {
                // "17% of 2345" is one operand, (17/100)*2345, so `12 + 17% of 2345` adds it.
                self.pos += 2;
                if !self.starts_operand(self.pos) {
                    return Err("'of' needs a number after it, as in 17% of 2345.".into());
                }
                self.enter()?;
                v = v / 100.0 * self.unary()?;
                self.depth -= 1;
            } else if self.peek() == Some(&Token::Op('%')) && !self.starts_operand(self.pos + 1) {
                self.pos += 1;
                v /= 100.0; // "17%" is 0.17
            } else {
                return Ok(v);
            }
        }
    }

    fn starts_operand(&self, at: usize) -> bool {
        matches!(
            self.tokens.get(at),
            Some(Token::Num(_) | Token::Ident(_) | Token::LParen | Token::Op('-' | '+'))
        )
    }

    fn primary(&mut self) -> Result<f64, String> {
        match self.next() {
            Some(Token::Num(n)) => Ok(n),
            Some(Token::LParen) => {
                let v = self.expr()?;
                self.expect_rparen()?;
                Ok(v)
            }
            Some(Token::Ident(name)) => {
                if self.peek() == Some(&Token::LParen) {
                    self.pos += 1;
                    let args = self.args()?;
                    apply_function(&name, &args)
                } else {
                    constant(&name)
                }
            }
            Some(t) => Err(format!("Expected a number, found {}.", t.describe())),
            None => Err("The expression ends too early.".into()),
        }
    }

    fn args(&mut self) -> Result<Vec<f64>, String> {
        let mut args = Vec::new();
        if self.peek() == Some(&Token::RParen) {
            self.pos += 1;
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            match self.next() {
                Some(Token::Comma) => continue,
                Some(Token::RParen) => break,
                Some(t) => return Err(format!("Expected ',' or ')', found {}.", t.describe())),
                None => return Err("Missing ')'.".into()),
            }
        }
        Ok(args)
    }

    fn expect_rparen(&mut self) -> Result<(), String> {
        match self.next() {
            Some(Token::RParen) => Ok(()),
            Some(t) => Err(format!("Expected ')', found {}.", t.describe())),
            None => Err("Missing ')'.".into()),
        }
    }
}

fn constant(name: &str) -> Result<f64, String> {
    match name {
        "pi" => Ok(std::f64::consts::PI),
        "e" => Ok(std::f64::consts::E),
        "tau" => Ok(std::f64::consts::TAU),
        "of" => Err(OF_FOLLOWS_PERCENT.into()),
        _ => Err(format!(
            "Unknown name '{name}'. The calculator only evaluates arithmetic; known constants: pi, e, tau."
        )),
    }
}

fn apply_function(name: &str, args: &[f64]) -> Result<f64, String> {
    let one = |f: fn(f64) -> f64| -> Result<f64, String> {
        match args {
            [x] => Ok(f(*x)),
            _ => Err(format!("{name}() takes one argument, got {}.", args.len())),
        }
    };
    match name {
        "sqrt" => match args {
            [x] if *x < 0.0 => Err("sqrt of a negative number is not a real number.".into()),
            _ => one(f64::sqrt),
        },
        "cbrt" => one(f64::cbrt),
        "abs" => one(f64::abs),
        "exp" => one(f64::exp),
        "ln" => positive(name, args).and_then(|_| one(f64::ln)),
        "log" | "log10" => match args {
            [x, base] if *x > 0.0 && *base > 0.0 && *base != 1.0 => Ok(x.ln() / base.ln()),
            [_, _] => Err("log(x, base) needs x > 0 and a positive base other than 1.".into()),
            _ => positive(name, args).and_then(|_| one(f64::log10)),
        },
        "log2" => positive(name, args).and_then(|_| one(f64::log2)),
        "sin" => one(f64::sin),
        "cos" => one(f64::cos),
        "tan" => one(f64::tan),
        "asin" => one(f64::asin),
        "acos" => one(f64::acos),
        "atan" => one(f64::atan),
        "sinh" => one(f64::sinh),
        "cosh" => one(f64::cosh),
        "tanh" => one(f64::tanh),
        "floor" => one(f64::floor),
        "ceil" => one(f64::ceil),
        "round" => one(f64::round),
        "trunc" => one(f64::trunc),
        "factorial" | "fact" => match args {
            [x] => factorial(*x),
            _ => Err("factorial() takes one argument.".into()),
        },
        "pow" => match args {
            [b, e] => Ok(b.powf(*e)),
            _ => Err("pow() takes two arguments: pow(base, exponent).".into()),
        },
        "min" | "max" if !args.is_empty() => {
            let pick = if name == "min" { f64::min } else { f64::max };
            Ok(args.iter().copied().fold(args[0], pick))
        }
        "min" | "max" => Err(format!("{name}() needs at least one argument.")),
        _ => Err(format!(
            "Unknown function '{name}'. Known: sqrt, cbrt, abs, exp, ln, log, log2, sin, cos, tan, asin, acos, atan, floor, ceil, round, factorial, pow, min, max."
        )),
    }
}

fn positive(name: &str, args: &[f64]) -> Result<(), String> {
    match args {
        [x] if *x <= 0.0 => Err(format!("{name}() needs a positive number.")),
        _ => Ok(()),
    }
}

fn factorial(x: f64) -> Result<f64, String> {
    if x < 0.0 || x.fract() != 0.0 {
        return Err("Factorial needs a whole number ≥ 0.".into());
    }
    if x > 170.0 {
        return Err("Factorial of a number above 170 is too large.".into());
    }
    Ok((1..=x as u32).fold(1.0, |acc, k| acc * k as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calc(s: &str) -> String {
        evaluate(s)
            .map(format_number)
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn arithmetic_and_precedence() {
        assert_eq!(calc("2+3*4"), "14");
        assert_eq!(calc("(2+3)*4"), "20");
        assert_eq!(calc("2^3^2"), "512");
        assert_eq!(calc("2**10"), "1024");
        assert_eq!(calc("-2^2"), "-4");
        assert_eq!(calc("10/4"), "2.5");
        assert_eq!(calc("7 % 3"), "1");
        assert_eq!(calc("6*7"), "42");
        assert_eq!(calc("  2340 * 0.17  "), "397.8");
        assert_eq!(calc("2 × 3 ÷ 4"), "1.5");
        assert_eq!(calc("`3+4` ="), "7");
    }

    #[test]
    fn no_float_noise() {
        assert_eq!(calc("0.1+0.2"), "0.3");
        assert_eq!(calc("1/3"), "0.333333333333");
        assert_eq!(calc("sqrt(2)^2"), "2");
        assert_eq!(calc("1e20*1000"), "1e23");
        assert_eq!(calc("-0*1"), "0");
    }

    #[test]
    fn constants_functions_percent_factorial() {
        assert_eq!(calc("pi"), "3.14159265359");
        assert_eq!(calc("ln(e)"), "1");
        assert_eq!(calc("log(1000)"), "3");
        assert_eq!(calc("log(8, 2)"), "3");
        assert_eq!(calc("sin(pi/2)"), "1");
        assert_eq!(calc("5!"), "120");
        assert_eq!(calc("factorial(6)"), "720");
        assert_eq!(calc("17% * 2340"), "397.8");
        assert_eq!(calc("50%"), "0.5");
        assert_eq!(calc("max(1, 9, 4)"), "9");
        assert_eq!(calc("2,340*2"), "4680");
        assert_eq!(calc("max(1,234)"), "234");
    }

    #[test]
    fn readable_errors() {
        assert!(calc("1/0").contains("Division by zero"));
        assert!(calc("1/(2-2)").contains("Division by zero"));
        assert!(calc("2+").contains("ends too early"));
        assert!(calc("2+*3").contains("Expected a number"));
        assert!(calc("(2+3").contains("Missing ')'"));
        assert!(calc("2+3)").contains("Unexpected ')'"));
        assert!(calc("import os").contains("Unknown name"));
        assert!(calc("__import__('os')").contains("not allowed"));
        assert!(calc("").contains("needs an expression"));
        assert!(calc(&"1+".repeat(300)).contains("too long"));
        assert!(
            calc(&format!("{}1{}", "(".repeat(100), ")".repeat(100))).contains("nested too deeply")
        );
        assert!(calc(&"-".repeat(200)).contains("nested too deeply"));
        assert!(calc("sqrt(-1)").contains("not a real number"));
        assert!(calc("10^400").contains("not a finite"));
        assert!(calc("foo(2)").contains("Unknown function"));
    }

    /// What models and people write around arithmetic, read as they mean it.
    #[test]
    fn accepts_percent_of_and_question_wording() {
        let cases = [
            ("17% of 2345", "398.65"),
            ("17 % of 2345", "398.65"),
            ("17 percent of 2345", "398.65"),
            ("17 per cent of 2345", "398.65"),
            ("What is 17% of 2345?", "398.65"),
            ("what is 2+2", "4"),
            ("What's 2+2?", "4"),
            ("calculate 3*4", "12"),
            ("compute 3*4", "12"),
            ("2+2=", "4"),
            ("17% of (2000+345)", "398.65"),
            ("12 + 17% of 2345", "410.65"),
            ("50% of 17% of 200", "17"),
            ("17% of 2,345", "398.65"),
            ("17% of (2,345)", "398.65"),
            ("100 / 50% of 200", "1"),
            ("-17% of 200", "-34"),
            ("17% of 2^3", "1.36"),
            ("17 percent", "0.17"),
            // `%` between two operands stays modulo; alone after a number it is a percentage.
            ("10 % 3", "1"),
            ("10 % -3", "1"),
            ("17% * 2340", "397.8"),
        ];
        for (input, want) in cases {
            assert_eq!(calc(input), want, "{input:?}");
        }
    }

    #[test]
    fn refuses_what_is_not_arithmetic_and_says_why() {
        const OF_FOLLOWS_PERCENT: &str =
            "ERR 'of' only follows a percentage, as in 17% of 2345; use * to multiply.";
        const NOT_ARITHMETIC: &str =
            "The calculator only evaluates arithmetic; known constants: pi, e, tau.";
        let cases = [
            (
                "17% of",
                "ERR 'of' needs a number after it, as in 17% of 2345.".to_string(),
            ),
            (
                "17% of )",
                "ERR 'of' needs a number after it, as in 17% of 2345.".into(),
            ),
            ("of 2345", OF_FOLLOWS_PERCENT.into()),
            ("2345 of 17", OF_FOLLOWS_PERCENT.into()),
            ("17 of 2345", OF_FOLLOWS_PERCENT.into()),
            (
                "what is the capital of France",
                format!("ERR Unknown name 'the'. {NOT_ARITHMETIC}"),
            ),
            (
                "hello world",
                format!("ERR Unknown name 'hello'. {NOT_ARITHMETIC}"),
            ),
            (
                "",
                "ERR The calculator needs an expression, e.g. 2*(3+4).".into(),
            ),
            (
                "What is ?",
                "ERR The calculator needs an expression, e.g. 2*(3+4).".into(),
            ),
            (
                "computer",
                format!("ERR Unknown name 'computer'. {NOT_ARITHMETIC}"),
            ),
            (
                &"1% of ".repeat(80),
                "ERR The expression is nested too deeply.".into(),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(calc(input), want, "{input:?}");
        }
    }
}
