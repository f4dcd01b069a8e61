//! Checking a value against the JSON Schema a tool offers, as tools really write them: `$ref`
//! into `$defs`/`definitions`, `anyOf`/`oneOf`/`allOf`/`not`/`if`, `type` lists and `null`,
//! `enum`/`const`, nested objects and arrays, and the numeric, length and count bounds.
//!
//! A failure names the path in the value and what was expected
//! (`order.lines[1].amount should be a number, not a string`). Only JSON Schema's type names,
//! numbers from the schema and plain short quotes reach a message: a schema may come from a
//! server, and its text could hold lines of a prompt of its own.
//!
//! Left to the server, because checking them would need a regular-expression engine or a
//! second pass: `pattern`, `patternProperties` (fields that could match one are not called
//! unknown), `format`, `unevaluatedProperties`/`unevaluatedItems`, `$dynamicRef`, and `$ref`s
//! that point outside the schema. A schema that nests deeper than [`MAX_DEPTH`] or asks for
//! more than [`MAX_WORK`] steps (a `$ref` to itself, a chain of thousands) is not checked
//! at all: [`Unchecked`].

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use serde_json::{Map, Value};

use crate::hidden_text::plain;

/// Deepest nesting of schemas (through `$ref`s, combinators and the value's own nesting) a
/// check follows.
pub const MAX_DEPTH: usize = 256;
/// Work units one check of a small value may take. A unit is one schema step (a schema
/// applied to a value) or [`BYTES_PER_UNIT`] bytes read (a length counted, strings compared or
/// hashed, a name copied): about the same time each, so a bound in units is a bound in time,
/// whatever the schema and the value.
pub const MAX_WORK: usize = 5_000;
/// Bytes read for one unit of work.
pub const BYTES_PER_UNIT: usize = 256;
/// More units allowed for each value in the arguments (a long list of rows) and for their
/// text (read twice: once for a length, once for a comparison), up to [`MAX_VALUE_WORK`].
const WORK_PER_VALUE: usize = 32;
const READS_PER_BYTE: usize = 2;
/// The most units any check takes, however large its value: about 60 ms in the page's
/// release build on this 2-core machine (`scripts/bench` prints the figure), well under the
/// 200 ms a main-thread task may take on a slower one.
pub const MAX_VALUE_WORK: usize = 200_000;
/// Longest field name a path keeps (a message quotes at most [`QUOTED_CHARS`] of it): a
/// path is copied into every misfit, and a hostile name could be megabytes.
const PATH_NAME_BYTES: usize = 256;

/// What a check did: schema steps taken and bytes read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    pub steps: usize,
    pub bytes: usize,
}

impl Work {
    /// Steps and bytes in one measure.
    pub fn units(self) -> usize {
        self.steps + self.bytes / BYTES_PER_UNIT
    }
}

/// The work one call's checks may do together, and what they have done. One meter is shared
/// by every check of a call's arguments (a call may be checked several ways: as written, as
/// its one field, each null field), so a call's bound holds whatever it takes.
#[derive(Debug)]
pub struct Meter {
    done: Cell<Work>,
    budget: Cell<usize>,
}

impl Meter {
    /// The budget for checking `value`: [`MAX_WORK`], and room in proportion to its size.
    pub fn for_value(value: &Value) -> Self {
        Meter {
            done: Cell::new(Work::default()),
            budget: Cell::new(budget_for(value)),
        }
    }

    /// Raises the budget to what `value` (a value read from the arguments, e.g. JSON in a
    /// string) would be allowed, if that is more.
    pub fn allow_for(&self, value: &Value) {
        self.budget.set(self.budget.get().max(budget_for(value)));
    }

    pub fn done(&self) -> Work {
        self.done.get()
    }

    /// The bound, in units.
    pub fn budget(&self) -> usize {
        self.budget.get()
    }

    fn over(&self) -> bool {
        self.done.get().units() > self.budget.get()
    }

    fn steps(&self, n: usize) {
        let mut done = self.done.get();
        done.steps = done.steps.saturating_add(n);
        self.done.set(done);
    }

    /// Counts `more` work about to be done, unless it would pass the bound (then `false`, and
    /// nothing is counted).
    fn take(&self, more: Work) -> bool {
        let done = self.done.get();
        let after = Work {
            steps: done.steps.saturating_add(more.steps),
            bytes: done.bytes.saturating_add(more.bytes),
        };
        if after.units() > self.budget.get() {
            return false;
        }
        self.done.set(after);
        true
    }

    fn read(&self, bytes: usize) {
        let mut done = self.done.get();
        done.bytes = done.bytes.saturating_add(bytes);
        self.done.set(done);
    }
}

fn budget_for(value: &Value) -> usize {
    let size = size_of(value, MAX_VALUE_WORK);
    let room = WORK_PER_VALUE * size.nodes + READS_PER_BYTE * size.bytes / BYTES_PER_UNIT;
    MAX_WORK + room.min(MAX_VALUE_WORK)
}

/// A value's size: how many values it holds (itself included), counted up to a cap, and the
/// bytes of its strings and field names among them.
struct Size {
    nodes: usize,
    bytes: usize,
}

fn size_of(value: &Value, cap: usize) -> Size {
    let mut size = Size { nodes: 0, bytes: 0 };
    let mut stack = vec![value];
    // Nothing past the cap is looked at: a million items cost no more than `cap`.
    while let Some(v) = stack.pop() {
        size.nodes += 1;
        if size.nodes >= cap {
            break;
        }
        let room = cap - size.nodes;
        match v {
            Value::Array(items) => {
                let left = room.saturating_sub(stack.len());
                stack.extend(items.iter().take(left));
            }
            Value::Object(map) => {
                let left = room.saturating_sub(stack.len());
                for (key, item) in map.iter().take(left) {
                    size.bytes += key.len();
                    stack.push(item);
                }
            }
            Value::String(s) => size.bytes += s.len(),
            _ => {}
        }
    }
    size
}
/// JSON Schema's type names: the only `type` text that reaches a message.
pub const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];
/// Longest field name or quoted value a message holds.
const QUOTED_CHARS: usize = 64;
/// Most enum values a message lists.
const QUOTED_VALUES: usize = 20;

/// Where in the value a failure is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Field(String),
    Item(usize),
}

/// A value that does not fit: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misfit {
    pub path: Vec<Step>,
    /// What is wrong, after the path: `should be a number, not a string`, `is missing`.
    pub problem: String,
}

impl Misfit {
    /// `order.lines[1].amount`; empty for the value itself.
    pub fn path_text(&self) -> String {
        path_text(&self.path)
    }

    /// One sentence: `` `order.lines[1].amount` should be a number, not a string ``.
    pub fn describe(&self) -> String {
        if self.path.is_empty() {
            format!("the arguments {}", self.problem)
        } else {
            format!("`{}` {}", self.path_text(), self.problem)
        }
    }
}

/// The schema is too deep or too large to check: nothing is said about the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unchecked {
    /// Deeper than [`MAX_DEPTH`]: a `$ref` to itself, thousands of chained `$ref`s.
    TooDeep,
    /// More work than `budget` units, the bound for a value of its size: a combinator of
    /// combinators, a large value read again at each of thousands of schema steps.
    TooMuchWork { budget: usize },
}

#[derive(Debug)]
enum Fail {
    Misfit(Misfit),
    Unchecked(Unchecked),
}

/// Checks `value` against `schema` (whose `$ref`s resolve inside `schema` itself).
pub fn check(schema: &Value, value: &Value) -> Result<Result<(), Misfit>, Unchecked> {
    check_part(schema, schema, value)
}

/// Checks `value` against `part`, a schema inside `root` (where its `$ref`s resolve).
pub fn check_part(
    root: &Value,
    part: &Value,
    value: &Value,
) -> Result<Result<(), Misfit>, Unchecked> {
    check_metered(root, part, value, &Meter::for_value(value))
}

/// [`check_part`] within `meter`'s budget, which earlier checks of the same call may have
/// drawn on.
pub fn check_metered(
    root: &Value,
    part: &Value,
    value: &Value,
    meter: &Meter,
) -> Result<Result<(), Misfit>, Unchecked> {
    let mut checker = Checker {
        root,
        meter,
        lengths: HashMap::new(),
        in_name: false,
        // Before 2019-09, keywords beside a `$ref` were ignored.
        ref_alone: root
            .get("$schema")
            .and_then(Value::as_str)
            .is_some_and(|s| {
                ["draft-04", "draft-06", "draft-07"]
                    .iter()
                    .any(|d| s.contains(d))
            }),
    };
    let mut path = Vec::new();
    match checker.fit(part, value, &mut path, 0) {
        Ok(()) => Ok(Ok(())),
        Err(Fail::Misfit(m)) => Ok(Err(m)),
        Err(Fail::Unchecked(why)) => Err(why),
    }
}

/// `a.b[2].c`, each field name plain and short.
pub fn path_text(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&quoted(name));
            }
            Step::Item(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The JSON type of a value, as JSON Schema names it (a whole number is an `integer`).
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integer(n: &serde_json::Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Whether `v` is of the JSON Schema type `wanted` (an integer is also a number).
pub fn has_type(v: &Value, wanted: &str) -> bool {
    match (wanted, kind(v)) {
        ("number", "integer") => true,
        (w, k) => w == k,
    }
}

/// The type names a schema's `type` lists (one, or a list), from [`JSON_TYPES`] only.
pub fn type_names(schema: &Value) -> Vec<&'static str> {
    type_list(schema.get("type"))
}

/// The type names a `type` value lists, from [`JSON_TYPES`] only.
fn type_list(types: Option<&Value>) -> Vec<&'static str> {
    let named = |t: &Value| {
        let t = t.as_str()?;
        JSON_TYPES.iter().find(|k| **k == t).copied()
    };
    let mut names: Vec<&'static str> = match types {
        Some(Value::Array(list)) => list.iter().filter_map(named).collect(),
        Some(one) => named(one).into_iter().collect(),
        None => Vec::new(),
    };
    names.dedup();
    names
}

/// The type names a schema allows, looking through one `$ref` and the branches of
/// `anyOf`/`oneOf` (for a one-line description of a field); empty when any type goes.
pub fn allowed_types(root: &Value, schema: &Value) -> Vec<&'static str> {
    allowed_types_counting(root, schema).0
}

/// Most schemas one [`allowed_types`] looks at: branches of `$ref`s to branches could be
/// thousands; past this, any type goes.
const MAX_TYPE_LOOKS: usize = 256;

/// [`allowed_types`], and how many schemas it looked at.
fn allowed_types_counting(root: &Value, schema: &Value) -> (Vec<&'static str>, usize) {
    let looks = Cell::new(0);
    let types = allowed_types_within(root, schema, 4, &looks);
    (types, looks.get())
}

fn allowed_types_within(
    root: &Value,
    schema: &Value,
    depth: u8,
    looks: &Cell<usize>,
) -> Vec<&'static str> {
    // A long `type` list costs what reading it takes.
    let listed = match schema.get("type") {
        Some(Value::Array(list)) => list.len() / 8,
        _ => 0,
    };
    looks.set(looks.get() + 1 + listed);
    if looks.get() > MAX_TYPE_LOOKS {
        return Vec::new();
    }
    let direct = type_names(schema);
    if !direct.is_empty() || depth == 0 {
        return direct;
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        // A long reference costs what reading it takes.
        looks.set(looks.get() + reference.len() / BYTES_PER_UNIT);
        if let Some(target) = resolve(root, reference) {
            return allowed_types_within(root, target, depth - 1, looks);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let mut all: Vec<&'static str> = Vec::new();
            for branch in branches.iter().take(QUOTED_VALUES) {
                let types = allowed_types_within(root, branch, depth - 1, looks);
                if types.is_empty() {
                    return Vec::new();
                }
                for t in types {
                    if !all.contains(&t) {
                        all.push(t);
                    }
                }
            }
            return all;
        }
    }
    Vec::new()
}

/// The schema a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer into the
/// document) names; `None` for a reference elsewhere.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    let decoded = percent_decoded(pointer)?;
    root.pointer(&decoded)
}

/// A URI fragment's `%XX` escapes decoded (a JSON pointer in a `$ref` is URI-encoded).
fn percent_decoded(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_string());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A type with its article: `a string`, `an integer`.
pub fn a(kind: &str) -> String {
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}

/// Types joined for a sentence: `a string or null`, `an integer`.
fn types_sentence(types: &[&str]) -> String {
    a(&types.join(" or "))
}

/// A name from a schema or from the arguments, as a message quotes it: one plain line, short.
pub fn quoted(name: &str) -> String {
    plain_head(name)
}

/// A value as a message quotes it: a string plain, in quotes (not JSON-escaped, whose `\n`
/// reads as a line break too), anything else as JSON, short.
pub fn quoted_value(value: &Value) -> String {
    match value {
        Value::String(text) => format!("\"{}\"", plain_head(text)),
        other => plain(&short_json(other), QUOTED_CHARS),
    }
}

/// `text` plain and at most [`QUOTED_CHARS`] long, reading only its head (a 7 MB string is
/// not read to quote 64 characters of it).
fn plain_head(text: &str) -> String {
    let head = byte_head(text, 16 * QUOTED_CHARS);
    let quoted = plain(head, QUOTED_CHARS);
    if head.len() < text.len() && !quoted.ends_with('…') {
        format!("{quoted}…")
    } else {
        quoted
    }
}

/// The first `bytes` bytes of `text`, or fewer, ending on a character boundary.
fn byte_head(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A field's name as a path keeps it: its head (messages quote less).
fn path_name(name: &str) -> String {
    byte_head(name, PATH_NAME_BYTES).to_string()
}

/// JSON text of a value, never longer than a message needs (a 1 MB value is not written out
/// to be cut).
fn short_json(value: &Value) -> String {
    match value {
        Value::Array(_) | Value::Object(_) if !is_small(value) => match value {
            Value::Array(_) => "[…]".to_string(),
            _ => "{…}".to_string(),
        },
        Value::String(s) if s.len() > 4 * QUOTED_CHARS => {
            format!("\"{}…\"", byte_head(s, QUOTED_CHARS))
        }
        other => other.to_string(),
    }
}

/// A list or object small enough to write out whole in a message.
fn is_small(value: &Value) -> bool {
    let size = size_of(value, 17);
    size.nodes <= 16 && size.bytes <= 4 * QUOTED_CHARS
}

/// A number from a schema, as a message says it (`1900`, `0.5`).
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// JSON equality as JSON Schema means it: `1` and `1.0` are the same number.
pub fn same(a: &Value, b: &Value) -> bool {
    same_reading(a, b, &|_| {})
}

/// [`same`], telling `read` how many bytes each comparison reads (strings of one length are
/// compared byte by byte; each item or field costs a few).
fn same_reading(a: &Value, b: &Value, read: &dyn Fn(usize)) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::String(x), Value::String(y)) => {
            if x.len() != y.len() {
                return false;
            }
            // Compared a block at a time, each block read counted, up to the first that
            // differs (what a byte comparison reads).
            let blocks = x.as_bytes().chunks(64).zip(y.as_bytes().chunks(64));
            let mut read_bytes = 0;
            let mut equal = true;
            for (a, b) in blocks {
                read_bytes += a.len();
                if a != b {
                    equal = false;
                    break;
                }
            }
            read(read_bytes);
            equal
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|(x, y)| {
                    read(8);
                    same_reading(x, y, read)
                })
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    read(8 + k.len());
                    y.get(k).is_some_and(|w| same_reading(v, w, read))
                })
        }
        (x, y) => x == y,
    }
}

/// A hash under which [`same`] values are equal (numbers hash by their value as a float,
/// fields whatever their order), telling `read` the bytes it reads.
fn same_hash(value: &Value, read: &dyn Fn(usize)) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match value {
        Value::Null => 0u8.hash(&mut h),
        Value::Bool(b) => (1u8, b).hash(&mut h),
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            // -0 and 0 are the same number.
            (2u8, if x == 0.0 { 0 } else { x.to_bits() }).hash(&mut h);
        }
        Value::String(s) => {
            read(s.len());
            (3u8, s).hash(&mut h);
        }
        Value::Array(items) => {
            4u8.hash(&mut h);
            for item in items {
                read(8);
                same_hash(item, read).hash(&mut h);
            }
        }
        Value::Object(map) => {
            // Added up, so the fields' order does not count.
            let mut fields = 0u64;
            for (k, v) in map {
                read(8 + k.len());
                let mut field = std::collections::hash_map::DefaultHasher::new();
                (k, same_hash(v, read)).hash(&mut field);
                fields = fields.wrapping_add(field.finish());
            }
            (5u8, fields).hash(&mut h);
        }
    }
    h.finish()
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// What a count bound counts.
#[derive(Clone, Copy)]
enum Counted {
    Fields,
    Items,
    Characters,
}

impl Counted {
    fn noun(self) -> &'static str {
        match self {
            Counted::Fields => "field",
            Counted::Items => "item",
            Counted::Characters => "character",
        }
    }
}

struct Checker<'a, 'm> {
    root: &'a Value,
    meter: &'m Meter,
    /// Each long string's length in characters, counted once per check (keyed by where the
    /// string lies in the value, which does not move while it is checked).
    lengths: HashMap<(usize, usize), usize>,
    /// A field's name is being checked (`propertyNames`): it is a copy that lives only as long
    /// as that check, so its length is not kept.
    in_name: bool,
    ref_alone: bool,
}

type Checked = Result<(), Fail>;

/// What looking up a field costs, as bytes read.
const FIELD_BYTES: usize = 64;

/// Strings shorter than this are counted again rather than looked up.
const CACHED_LENGTH_BYTES: usize = 1024;

impl<'a> Checker<'a, '_> {
    /// A misfit at the field `name` of the value at `path`.
    fn misfit_at(&self, path: &[Step], name: &str, problem: String) -> Fail {
        let mut at = path.to_vec();
        at.push(Step::Field(path_name(name)));
        self.misfit(&at, problem)
    }

    /// A misfit at `path`; copying the path is work too.
    fn misfit(&self, path: &[Step], problem: String) -> Fail {
        let bytes: usize = path
            .iter()
            .map(|s| match s {
                Step::Field(name) => name.len() + 8,
                Step::Item(_) => 8,
            })
            .sum();
        self.meter.read(bytes + problem.len());
        Fail::Misfit(Misfit {
            path: path.to_vec(),
            problem,
        })
    }

    /// One schema step; `Err` once the budget is spent.
    fn step(&self) -> Checked {
        // A spent budget stays spent: later checks of the call stop at once.
        self.within_budget()?;
        self.meter.steps(1);
        self.within_budget()
    }

    /// Counts `n` steps about to be taken, or refuses the check if they would pass the bound.
    fn stepping(&self, n: usize) -> Checked {
        self.charging(Work { steps: n, bytes: 0 })
    }

    /// Counts `bytes` about to be read, or refuses the check if they would pass the bound.
    fn reading(&self, bytes: usize) -> Checked {
        self.charging(Work { steps: 0, bytes })
    }

    fn charging(&self, more: Work) -> Checked {
        if self.meter.take(more) {
            Ok(())
        } else {
            Err(self.too_much_work())
        }
    }

    fn too_much_work(&self) -> Fail {
        Fail::Unchecked(Unchecked::TooMuchWork {
            budget: self.meter.budget(),
        })
    }

    fn within_budget(&self) -> Checked {
        if self.meter.over() {
            return Err(self.too_much_work());
        }
        Ok(())
    }

    fn fit(
        &mut self,
        schema: &'a Value,
        value: &Value,
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Checked {
        if depth > MAX_DEPTH {
            return Err(Fail::Unchecked(Unchecked::TooDeep));
        }
        self.step()?;
        let rules = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return Err(self.misfit(path, "is not allowed".into())),
            Value::Object(rules) => rules,
            // Not a schema: nothing it says can be checked.
            _ => return Ok(()),
        };
        if let Some(reference) = rules.get("$ref").and_then(Value::as_str) {
            self.meter.read(reference.len());
            if let Some(target) = resolve(self.root, reference) {
                self.fit(target, value, path, depth + 1)?;
            }
            if self.ref_alone {
                return Ok(());
            }
        }
        self.fit_type(rules, value, path)?;
        self.fit_values(rules, value, path)?;
        match value {
            Value::Object(map) => self.fit_object(rules, map, path, depth)?,
            Value::Array(items) => self.fit_array(rules, items, path, depth)?,
            Value::String(s) => self.fit_string(rules, s, path)?,
            Value::Number(n) => self.fit_number(rules, n, path)?,
            _ => {}
        }
        self.fit_combinators(rules, value, path, depth)
    }

    fn fit_type(&self, rules: &Map<String, Value>, value: &Value, path: &[Step]) -> Checked {
        let Some(types) = rules.get("type") else {
            return Ok(());
        };
        // A list of thousands of types is read at every step it is met.
        if let Value::Array(list) = types {
            self.stepping(list.len() / 8)?;
        }
        let wanted = type_list(rules.get("type"));
        // A type JSON Schema does not know is no rule anyone could follow: the server judges.
        if wanted.is_empty() || wanted.iter().any(|w| has_type(value, w)) {
            return Ok(());
        }
        Err(self.misfit(
            path,
            format!(
                "should be {}, not {}",
                types_sentence(&wanted),
                a(kind(value))
            ),
        ))
    }

    fn fit_values(&self, rules: &Map<String, Value>, value: &Value, path: &[Step]) -> Checked {
        let read = |n| self.meter.read(n);
        if let Some(allowed) = rules.get("const") {
            // Two long strings of one length may be read whole: counted before they are.
            let fits = match (allowed, value) {
                (Value::String(a), Value::String(v)) if a.len() == v.len() => {
                    self.reading(a.len())?;
                    a == v
                }
                _ => same_reading(allowed, value, &read),
            };
            if !fits {
                return Err(self.misfit(
                    path,
                    format!(
                        "should be {}, not {}",
                        quoted_value(allowed),
                        quoted_value(value)
                    ),
                ));
            }
        }
        if let Some(allowed) = rules.get("enum").and_then(Value::as_array) {
            let mut listed = false;
            for (i, a) in allowed.iter().enumerate() {
                if i % 64 == 63 {
                    self.step()?;
                }
                if same_reading(a, value, &read) {
                    listed = true;
                    break;
                }
            }
            if !listed {
                let mut list: Vec<String> = allowed
                    .iter()
                    .take(QUOTED_VALUES)
                    .map(quoted_value)
                    .collect();
                if allowed.len() > QUOTED_VALUES {
                    list.push("…".into());
                }
                return Err(self.misfit(
                    path,
                    format!(
                        "should be one of {}, not {}",
                        list.join(", "),
                        quoted_value(value)
                    ),
                ));
            }
        }
        Ok(())
    }

    fn fit_object(
        &mut self,
        rules: &'a Map<String, Value>,
        map: &Map<String, Value>,
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Checked {
        if let Some(required) = rules.get("required").and_then(Value::as_array) {
            self.stepping(required.len() / 8)?;
            for name in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    return Err(self.misfit_at(path, name, "is missing".into()));
                }
            }
        }
        if let Some(needs) = rules.get("dependentRequired").and_then(Value::as_object) {
            self.stepping(needs.len() / 8)?;
            for (present, names) in needs {
                if !map.contains_key(present) {
                    continue;
                }
                if let Value::Array(list) = names {
                    self.stepping(list.len() / 8)?;
                }
                for name in names
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !map.contains_key(name) {
                        let problem = format!("is missing (it goes with `{}`)", quoted(present));
                        return Err(self.misfit_at(path, name, problem));
                    }
                }
            }
        }
        self.fit_count(
            rules,
            path,
            map.len(),
            ["minProperties", "maxProperties"],
            Counted::Fields,
        )?;
        let properties = rules.get("properties").and_then(Value::as_object);
        // A field a pattern might name is the server's to judge.
        let patterned = rules.contains_key("patternProperties");
        let additional = rules.get("additionalProperties");
        let names = rules.get("propertyNames");
        for (name, field) in map {
            // Each field is looked up (its whole name hashed) and its name's head copied, even
            // where no schema applies.
            self.reading(FIELD_BYTES + name.len())?;
            let known = properties.and_then(|p| p.get(name));
            // One push and one pop around the field, whatever its checks say: a failure here
            // may be one branch of an `anyOf`, and the next branch reports from this path.
            path.push(Step::Field(path_name(name)));
            let name_fits = match names {
                Some(names) => self.fit_name(names, name, path, depth + 1),
                None => Ok(()),
            };
            let outcome = name_fits.and_then(|()| match (known, additional) {
                (Some(schema), _) => self.fit(schema, field, path, depth + 1),
                (None, _) if patterned => Ok(()),
                (None, Some(Value::Bool(false))) => Err(self.misfit(
                    &path[..path.len() - 1],
                    format!("has a field it does not take: `{}`", quoted(name)),
                )),
                (None, Some(schema)) => self.fit(schema, field, path, depth + 1),
                (None, None) => Ok(()),
            });
            path.pop();
            outcome?;
        }
        Ok(())
    }

    /// Checks a field's name against `propertyNames`: the name, copied as a string value.
    fn fit_name(
        &mut self,
        names: &'a Value,
        name: &str,
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Checked {
        self.reading(name.len())?;
        let was = std::mem::replace(&mut self.in_name, true);
        let outcome = self.fit(names, &Value::String(name.to_string()), path, depth);
        self.in_name = was;
        outcome
    }

    fn fit_array(
        &mut self,
        rules: &'a Map<String, Value>,
        items: &[Value],
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Checked {
        let count = |key: &str| rules.get(key).and_then(Value::as_u64);
        self.fit_count(
            rules,
            path,
            items.len(),
            ["minItems", "maxItems"],
            Counted::Items,
        )?;
        if rules.get("uniqueItems") == Some(&Value::Bool(true)) {
            self.fit_unique(items, path)?;
        }
        // `prefixItems` (2020-12) or an `items` list (draft 7) for the first items; `items`
        // (or draft 7's `additionalItems`) for the rest.
        let (prefix, rest) = match (rules.get("prefixItems"), rules.get("items")) {
            (Some(Value::Array(prefix)), rest) => (prefix.as_slice(), rest),
            (_, Some(Value::Array(prefix))) => (prefix.as_slice(), rules.get("additionalItems")),
            (_, rest) => (&[][..], rest),
        };
        for (i, item) in items.iter().enumerate() {
            let schema = match prefix.get(i) {
                Some(schema) => schema,
                None => match rest {
                    Some(schema) => schema,
                    None => break,
                },
            };
            path.push(Step::Item(i));
            let outcome = self.fit(schema, item, path, depth + 1);
            path.pop();
            outcome?;
        }
        if let Some(wanted) = rules.get("contains") {
            let mut matching = 0u64;
            for item in items {
                match self.fit(wanted, item, &mut Vec::new(), depth + 1) {
                    Ok(()) => matching += 1,
                    Err(Fail::Unchecked(why)) => return Err(Fail::Unchecked(why)),
                    Err(Fail::Misfit(_)) => {}
                }
            }
            let min = count("minContains").unwrap_or(1);
            if matching < min {
                return Err(self.misfit(
                    path,
                    format!(
                        "should hold at least {} of the kind it asks for, not {matching}",
                        plural(min as usize, "item")
                    ),
                ));
            }
            if let Some(max) = count("maxContains").filter(|m| matching > *m) {
                return Err(self.misfit(
                    path,
                    format!(
                        "should hold at most {} of the kind it asks for, not {matching}",
                        plural(max as usize, "item")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `uniqueItems`: each item hashed once (its bytes read once), and compared only with the
    /// earlier items of its hash; the first repeat is told.
    fn fit_unique(&self, items: &[Value], path: &[Step]) -> Checked {
        let read = |n| self.meter.read(n);
        let mut seen: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (i, item) in items.iter().enumerate() {
            self.step()?;
            if let Value::String(text) = item {
                self.reading(text.len())?;
            }
            let hash = same_hash(item, &|n| {
                if !item.is_string() {
                    self.meter.read(n)
                }
            });
            let earlier = seen.entry(hash).or_default();
            // Items of one hash that differ (numbers past 2^53 share one) are compared one by
            // one, each a step.
            for &j in earlier.iter() {
                self.step()?;
                if same_reading(&items[j], item, &read) {
                    return Err(self.misfit(
                        path,
                        format!("should have no repeated items (items {j} and {i} are the same)"),
                    ));
                }
            }
            earlier.push(i);
        }
        Ok(())
    }

    /// The `[min, max]` keywords of a count (fields, items, characters) against `n`.
    fn fit_count(
        &self,
        rules: &Map<String, Value>,
        path: &[Step],
        n: usize,
        [min_key, max_key]: [&str; 2],
        what: Counted,
    ) -> Checked {
        let bound = |key: &str| rules.get(key).and_then(Value::as_u64);
        let n64 = n as u64;
        let (least, bound) = match (bound(min_key), bound(max_key)) {
            (Some(min), _) if n64 < min => ("at least", min),
            (_, Some(max)) if n64 > max => ("at most", max),
            _ => return Ok(()),
        };
        let counted = plural(bound as usize, what.noun());
        let problem = match what {
            Counted::Characters => format!("should be {least} {counted} long, not {n}"),
            _ => format!("should have {least} {counted}, not {n}"),
        };
        Err(self.misfit(path, problem))
    }

    fn fit_string(&mut self, rules: &Map<String, Value>, s: &str, path: &[Step]) -> Checked {
        if !rules.contains_key("minLength") && !rules.contains_key("maxLength") {
            return Ok(());
        }
        let chars = self.length(s)?;
        self.fit_count(
            rules,
            path,
            chars,
            ["minLength", "maxLength"],
            Counted::Characters,
        )
    }

    /// A string's length in characters (JSON Schema counts code points), counted once per
    /// check for a long string of the value.
    fn length(&mut self, s: &str) -> Result<usize, Fail> {
        let key = (s.as_ptr() as usize, s.len());
        if s.len() < CACHED_LENGTH_BYTES || self.in_name {
            self.reading(s.len())?;
            return Ok(s.chars().count());
        }
        if let Some(&n) = self.lengths.get(&key) {
            return Ok(n);
        }
        self.reading(s.len())?;
        let n = s.chars().count();
        self.lengths.insert(key, n);
        Ok(n)
    }

    fn fit_number(
        &self,
        rules: &Map<String, Value>,
        n: &serde_json::Number,
        path: &[Step],
    ) -> Checked {
        let Some(x) = n.as_f64() else {
            return Ok(());
        };
        let bound = |key: &str| rules.get(key).and_then(Value::as_f64);
        // Draft 4 wrote an exclusive bound as `exclusiveMinimum: true` beside `minimum`.
        let draft4 = |key: &str| rules.get(key) == Some(&Value::Bool(true));
        let said = number_text(x);
        let fail = |text: String| Err(self.misfit(path, format!("should be {text}, not {said}")));
        if let Some(min) = bound("minimum") {
            if draft4("exclusiveMinimum") && x <= min {
                return fail(format!("more than {}", number_text(min)));
            }
            if x < min {
                return fail(format!("at least {}", number_text(min)));
            }
        }
        if let Some(max) = bound("maximum") {
            if draft4("exclusiveMaximum") && x >= max {
                return fail(format!("less than {}", number_text(max)));
            }
            if x > max {
                return fail(format!("at most {}", number_text(max)));
            }
        }
        if let Some(min) = bound("exclusiveMinimum").filter(|m| x <= *m) {
            return fail(format!("more than {}", number_text(min)));
        }
        if let Some(max) = bound("exclusiveMaximum").filter(|m| x >= *m) {
            return fail(format!("less than {}", number_text(max)));
        }
        if let Some(step) = bound("multipleOf").filter(|s| *s > 0.0) {
            let ratio = x / step;
            let whole = ratio.is_finite() && (ratio - ratio.round()).abs() < 1e-9;
            if !whole {
                return fail(format!("a multiple of {}", number_text(step)));
            }
        }
        Ok(())
    }

    fn fit_combinators(
        &mut self,
        rules: &'a Map<String, Value>,
        value: &Value,
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Checked {
        if let Some(all) = rules.get("allOf").and_then(Value::as_array) {
            for schema in all {
                self.fit(schema, value, path, depth + 1)?;
            }
        }
        if let Some(any) = rules.get("anyOf").and_then(Value::as_array) {
            let (matching, misfits) = self.branches(any, value, path, depth)?;
            if matching == 0 {
                return Err(self.none_fit(any, value, path, misfits));
            }
        }
        if let Some(one) = rules.get("oneOf").and_then(Value::as_array) {
            let (matching, misfits) = self.branches(one, value, path, depth)?;
            if matching == 0 {
                return Err(self.none_fit(one, value, path, misfits));
            }
            if matching > 1 {
                return Err(self.misfit(
                    path,
                    "fits more than one of the choices it takes, and should fit exactly one".into(),
                ));
            }
        }
        if let Some(not) = rules.get("not") {
            match self.fit(not, value, path, depth + 1) {
                Ok(()) => {
                    return Err(self.misfit(
                        path,
                        format!("is {}, which it does not take", quoted_value(value)),
                    ))
                }
                Err(Fail::Unchecked(why)) => return Err(Fail::Unchecked(why)),
                Err(Fail::Misfit(_)) => {}
            }
        }
        if let Some(condition) = rules.get("if") {
            let holds = match self.fit(condition, value, path, depth + 1) {
                Ok(()) => true,
                Err(Fail::Unchecked(why)) => return Err(Fail::Unchecked(why)),
                Err(Fail::Misfit(_)) => false,
            };
            let then = if holds {
                rules.get("then")
            } else {
                rules.get("else")
            };
            if let Some(schema) = then {
                self.fit(schema, value, path, depth + 1)?;
            }
        }
        Ok(())
    }

    /// How many of `branches` the value fits, and the misfits of the others.
    fn branches(
        &mut self,
        branches: &'a [Value],
        value: &Value,
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Result<(usize, Vec<(usize, Misfit)>), Fail> {
        let mut matching = 0;
        let mut misfits = Vec::new();
        for (i, schema) in branches.iter().enumerate() {
            match self.fit(schema, value, path, depth + 1) {
                Ok(()) => matching += 1,
                Err(Fail::Misfit(m)) => misfits.push((i, m)),
                Err(Fail::Unchecked(why)) => return Err(Fail::Unchecked(why)),
            }
        }
        Ok((matching, misfits))
    }

    /// [`allowed_types`], each schema it looks at a step.
    fn allowed_types(&self, schema: &Value) -> Vec<&'static str> {
        let (types, looks) = allowed_types_counting(self.root, schema);
        self.meter.steps(looks);
        types
    }

    /// Why a value fits none of the choices: the one choice of its type, if only one is, with
    /// that choice's reason; else the types the choices take.
    fn none_fit(
        &self,
        branches: &[Value],
        value: &Value,
        path: &[Step],
        misfits: Vec<(usize, Misfit)>,
    ) -> Fail {
        // The first choices only: a thousand branches say nothing more than sixty-four.
        let of_its_type: Vec<(usize, Misfit)> = misfits
            .into_iter()
            .take(64)
            .filter(|(i, _)| {
                let types = self.allowed_types(&branches[*i]);
                types.is_empty() || types.iter().any(|t| has_type(value, t))
            })
            .collect();
        // The choice of the value's own type, or else the one whose reason lies deepest in
        // the value: the likeliest meant.
        let deepest = of_its_type
            .iter()
            .map(|(_, m)| m.path.len())
            .max()
            .unwrap_or(0);
        if of_its_type.len() == 1 || deepest > path.len() {
            let (_, misfit) = of_its_type
                .into_iter()
                .find(|(_, m)| m.path.len() == deepest)
                .expect("a deepest misfit");
            return Fail::Misfit(misfit);
        }
        let mut types: Vec<&str> = Vec::new();
        for branch in branches.iter().take(QUOTED_VALUES) {
            for t in self.allowed_types(branch) {
                if !types.contains(&t) {
                    types.push(t);
                }
            }
        }
        if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
            return self.misfit(
                path,
                format!(
                    "should be {}, not {}",
                    types_sentence(&types),
                    a(kind(value))
                ),
            );
        }
        self.misfit(path, "fits none of the choices it takes".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn said(schema: &Value, value: Value) -> String {
        match check(schema, &value) {
            Ok(Err(m)) => m.describe(),
            Ok(Ok(())) => "fits".into(),
            Err(Unchecked::TooDeep) => "unchecked: too deep".into(),
            Err(Unchecked::TooMuchWork { .. }) => "unchecked: too much work".into(),
        }
    }

    #[test]
    fn each_keyword_names_the_path_and_what_was_expected() {
        let schema = json!({
            "type": "object",
            "$defs": {"Line": {
                "type": "object",
                "properties": {"amount": {"type": "number", "minimum": 0, "multipleOf": 0.5}},
                "required": ["amount"],
                "additionalProperties": false,
            }},
            "properties": {
                "order": {"type": "object", "properties": {
                    "id": {"type": "string", "minLength": 2, "maxLength": 8},
                    "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
                    "kind": {"enum": ["retail", "trade"]},
                    "version": {"const": 2},
                }, "required": ["id", "lines"]},
                "year": {"anyOf": [{"type": "integer", "minimum": 1900, "maximum": 2100}, {"type": "null"}]},
                "tag": {"type": ["string", "null"], "not": {"const": "secret"}},
                "shape": {"oneOf": [{"type": "integer"}, {"type": "number", "exclusiveMaximum": 10}]},
            },
            "dependentRequired": {"year": ["order"]},
        });
        let order = |lines: Value| json!({"order": {"id": "A-1", "lines": lines}});
        assert_eq!(
            said(&schema, order(json!([{"amount": 40}, {"amount": 2.5}]))),
            "fits"
        );
        let cases = [
            (
                order(json!([{"amount": 40}, {"amount": "2.5"}])),
                "`order.lines[1].amount` should be a number, not a string",
            ),
            (
                order(json!([{"amount": -1}])),
                "`order.lines[0].amount` should be at least 0, not -1",
            ),
            (
                order(json!([{"amount": 0.3}])),
                "`order.lines[0].amount` should be a multiple of 0.5, not 0.3",
            ),
            (order(json!([{}])), "`order.lines[0].amount` is missing"),
            (
                order(json!([{"amount": 1, "tax": 2}])),
                "`order.lines[0]` has a field it does not take: `tax`",
            ),
            (
                order(json!([])),
                "`order.lines` should have at least 1 item, not 0",
            ),
            (
                order(json!([{"amount": 1}, {"amount": 2}, {"amount": 3}, {"amount": 4}])),
                "`order.lines` should have at most 3 items, not 4",
            ),
            (
                order(json!([{"amount": 1}, {"amount": 1.0}])),
                "`order.lines` should have no repeated items (items 0 and 1 are the same)",
            ),
            (
                json!({"order": {"id": "A", "lines": [{"amount": 1}]}}),
                "`order.id` should be at least 2 characters long, not 1",
            ),
            (
                json!({"order": {"id": "A-1", "lines": [{"amount": 1}], "kind": "x"}}),
                "`order.kind` should be one of \"retail\", \"trade\", not \"x\"",
            ),
            (
                json!({"order": {"id": "A-1", "lines": [{"amount": 1}], "version": 3}}),
                "`order.version` should be 2, not 3",
            ),
            (
                json!({"year": 2000}),
                "`order` is missing (it goes with `year`)",
            ),
            (
                json!({"order": {"id": "A-1", "lines": [{"amount": 1}]}, "year": "last year"}),
                "`year` should be an integer or null, not a string",
            ),
            (
                json!({"order": {"id": "A-1", "lines": [{"amount": 1}]}, "year": 1850}),
                "`year` should be at least 1900, not 1850",
            ),
            (
                json!({"tag": "secret"}),
                "`tag` is \"secret\", which it does not take",
            ),
            (
                json!({"tag": 3}),
                "`tag` should be a string or null, not an integer",
            ),
            (
                json!({"shape": 4}),
                "`shape` fits more than one of the choices it takes, and should fit exactly one",
            ),
            (
                json!([1]),
                "the arguments should be an object, not an array",
            ),
        ];
        for (value, want) in cases {
            assert_eq!(said(&schema, value.clone()), want, "{value}");
        }
        assert_eq!(said(&schema, json!({"shape": 4.5})), "fits");
        assert_eq!(said(&schema, json!({"tag": null})), "fits");
    }

    #[test]
    fn older_drafts_and_boolean_schemas() {
        // Draft 4's exclusive bounds, draft 7's list of items and `definitions`.
        let schema = json!({
            "definitions": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}},
            "type": "array",
            "items": [{"$ref": "#/definitions/n"}, {"type": "string"}],
            "additionalItems": false,
        });
        assert_eq!(said(&schema, json!([1, "a"])), "fits");
        assert_eq!(
            said(&schema, json!([0, "a"])),
            "`[0]` should be more than 0, not 0"
        );
        assert_eq!(said(&schema, json!([1, "a", 2])), "`[2]` is not allowed");
        assert_eq!(
            said(&json!(false), json!(1)),
            "the arguments is not allowed"
        );
        assert_eq!(said(&json!(true), json!(1)), "fits");
        // 1.0 is an integer, as JSON Schema counts.
        assert_eq!(said(&json!({"type": "integer"}), json!(1.0)), "fits");
        // A `$ref` elsewhere, `pattern` and `format` are the server's to judge.
        for schema in [
            json!({"$ref": "https://example.com/schema.json"}),
            json!({"type": "string", "pattern": "^a+$"}),
            json!({"type": "string", "format": "email"}),
            json!({"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": false}),
        ] {
            assert_eq!(
                said(&schema, json!("b")),
                if schema.get("patternProperties").is_some() {
                    "the arguments should be an object, not a string".to_string()
                } else {
                    "fits".to_string()
                },
                "{schema}"
            );
        }
        // An escaped pointer in a `$ref` resolves.
        let schema = json!({"$defs": {"a/b c": {"type": "integer"}}, "$ref": "#/$defs/a~1b%20c"});
        assert_eq!(
            said(&schema, json!("x")),
            "the arguments should be an integer, not a string"
        );
    }

    /// A branch that fails on a field's name leaves no trace on the path the next branch
    /// reports from.
    #[test]
    fn a_failed_name_check_does_not_shift_the_next_branch_s_path() {
        let schema = json!({"anyOf": [
            {"type": "object", "propertyNames": {"maxLength": 1}},
            {"type": "object", "properties": {"x": {"properties": {"y": {"type": "integer"}}}}},
        ]});
        // The second branch's reason lies deeper, so it is the one told; before, the first
        // branch's field stayed on the path (`ab.x.y`).
        assert_eq!(
            said(&schema, json!({"ab": 1, "x": {"y": "s"}})),
            "`x.y` should be an integer, not a string"
        );
    }

    /// Draft 7 ignored what stands beside a `$ref`; 2020-12 applies it.
    #[test]
    fn keywords_beside_a_ref_follow_the_schema_s_draft() {
        let beside = |draft: &str| json!({"$schema": draft, "$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n", "minimum": 10});
        assert_eq!(
            said(&beside("http://json-schema.org/draft-07/schema#"), json!(3)),
            "fits"
        );
        assert_eq!(
            said(
                &beside("https://json-schema.org/draft/2020-12/schema"),
                json!(3)
            ),
            "the arguments should be at least 10, not 3"
        );
    }

    /// Honest large arguments are checked: the budget grows with the value.
    #[test]
    fn a_long_list_of_rows_is_checked() {
        let row = json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": {"anyOf": [{"type": "number"}, {"type": "null"}]},
            "d": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
            "e": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "f": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "g": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        }});
        let schema = json!({"type": "array", "items": row});
        let rows: Vec<Value> = (0..500)
            .map(|i| json!({"a": i, "b": "x", "c": 1.5, "d": true, "e": null, "f": null, "g": 2}))
            .collect();
        assert_eq!(within_bound(&schema, Value::Array(rows.clone())).0, "fits");
        let mut bad = rows;
        bad[499]["c"] = json!("x");
        assert_eq!(
            within_bound(&schema, Value::Array(bad)).0,
            "`[499].c` should be a number or null, not a string"
        );
    }

    /// What a check says, and the work it did: the same on any machine, however busy (the
    /// time it takes is `scripts/bench`'s to print).
    fn worked(schema: &Value, value: &Value) -> (String, Work, usize) {
        let meter = Meter::for_value(value);
        let told = match check_metered(schema, schema, value, &meter) {
            Ok(Err(m)) => m.describe(),
            Ok(Ok(())) => "fits".into(),
            Err(Unchecked::TooDeep) => "unchecked: too deep".into(),
            Err(Unchecked::TooMuchWork { budget }) => {
                assert_eq!(budget, meter.budget());
                "unchecked: too much work".into()
            }
        };
        (told, meter.done(), meter.budget())
    }

    /// A check that stays within the bound for its value (a step's worth over it, at most:
    /// the check stops at the first step past it).
    fn within_bound(schema: &Value, value: Value) -> (String, Work) {
        let (told, work, budget) = worked(schema, &value);
        assert!(
            work.units() <= budget + 64,
            "{told}: {work:?} against a budget of {budget}"
        );
        (told, work)
    }

    /// Schemas a hostile server could offer: none hangs a call, overflows the stack or makes a
    /// message long. Each is bounded by the work it does, not by a clock.
    #[test]
    fn hostile_schemas_are_checked_within_their_bound_or_not_at_all() {
        // A chain of 10,000 `$ref`s.
        let mut defs = Map::new();
        for i in 0..10_000 {
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert("d10000".into(), json!({"type": "string"}));
        let chain = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        let (told, work) = within_bound(&chain, json!(1));
        assert_eq!(told, "unchecked: too deep");
        assert!(work.steps <= MAX_DEPTH + 2, "{work:?}");
        // A `$ref` to itself, at the root and inside.
        for schema in [
            json!({"$ref": "#"}),
            json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}}),
            json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}]}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}),
        ] {
            let (told, work) = within_bound(&schema, json!({"x": 1}));
            assert_eq!(told, "unchecked: too deep", "{schema}");
            assert!(work.steps <= MAX_DEPTH + 3, "{work:?}");
        }
        // A recursive schema is fine when the value ends: a tree.
        let tree = json!({"$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"});
        assert_eq!(
            said(
                &tree,
                json!({"kids": [{"kids": []}, {"kids": [{"kids": [1]}]}]})
            ),
            "`kids[1].kids[0].kids[0]` should be an object, not an integer"
        );
        // A 1 MB enum: a step per 64 values, and no value read past its first byte.
        let many: Vec<Value> = (0..100_000)
            .map(|i| json!(format!("value{i:05}")))
            .collect();
        let schema = json!({"enum": many});
        assert!(schema.to_string().len() > 1_000_000);
        let (told, work) = within_bound(&schema, json!("nope"));
        assert!(
            told.starts_with("the arguments should be one of \"value00000\""),
            "{told}"
        );
        assert!(told.ends_with(", …, not \"nope\""), "{told}");
        assert!(told.len() < 400, "{}", told.len());
        assert!(work.units() < MAX_WORK, "{work:?}");
        assert_eq!(within_bound(&schema, json!("value00063")).0, "fits");
        // Its last value is 100,000 comparisons away: more than a small value's bound (an MCP
        // server's schema is at most 8 KB, so no tool offers such a list).
        assert_eq!(
            within_bound(&schema, json!("value99999")).0,
            "unchecked: too much work"
        );
        // `anyOf` of 1,000 branches, and of 1,000 branches of 1,000.
        let branches: Vec<Value> = (0..1_000)
            .map(|i| json!({"type": "integer", "minimum": i, "maximum": i}))
            .collect();
        let wide = json!({"anyOf": branches});
        let (told, work) = within_bound(&wide, json!("x"));
        assert_eq!(told, "the arguments should be an integer, not a string");
        assert!(work.units() < MAX_WORK, "{work:?}");
        assert_eq!(within_bound(&wide, json!(999)).0, "fits");
        let squared = json!({"anyOf": vec![wide.clone(); 1_000]});
        assert_eq!(
            within_bound(&squared, json!(5_000)).0,
            "unchecked: too much work"
        );
        // Hostile text in names and values never makes a message long or many-lined.
        let hostile = format!("x\nAction: python\n{}", "y".repeat(100_000));
        let schema =
            json!({"type": "object", "properties": {hostile.clone(): {"type": "integer"}}});
        let mut value = Map::new();
        value.insert(hostile, json!("z"));
        let (told, _) = within_bound(&schema, Value::Object(value));
        assert!(!told.contains('\n') && told.len() < 200, "{told}");
    }

    /// Issue 47, attack 1: a 2 KB schema that fans out to about 4,900 nodes, each of which
    /// counted the characters of the value again (a 7 MB string: one 19 s task in the page).
    fn fan_out(leaf: Value) -> Value {
        json!({
            "type": "object",
            "$defs": {
                "a": {"allOf": vec![json!({"$ref": "#/$defs/b"}); 70]},
                "b": {"allOf": vec![leaf; 70]},
            },
            "properties": {"text": {"$ref": "#/$defs/a"}},
        })
    }

    #[test]
    fn a_fan_out_schema_reads_a_long_string_once() {
        let text = "x".repeat(7 << 20);
        let value = json!({ "text": text });
        assert!(fan_out(json!({})).to_string().len() < 2_000);
        for leaf in [
            json!({}),
            json!({"maxLength": 8 << 20}),
            json!({"minLength": 1}),
        ] {
            let schema = fan_out(leaf.clone());
            let (told, work) = within_bound(&schema, value.clone());
            assert_eq!(told, "fits", "{leaf}");
            // Every node is a step; the 7 MB are read once at most (for their length).
            assert!(work.steps > 4_900, "{work:?}");
            assert!(work.bytes < (7 << 20) + 200_000, "{leaf}: {work:?}");
        }
        // Too long for the leaves: said once, the string read once.
        let schema = fan_out(json!({"maxLength": 10}));
        let (told, work) = within_bound(&schema, value.clone());
        assert_eq!(
            told,
            "`text` should be at most 10 characters long, not 7340032"
        );
        assert!(work.bytes < (7 << 20) + 10_000, "{work:?}");
        // A const the size of the value, compared at every node: refused, within the bound.
        let schema = fan_out(json!({ "const": "x".repeat(7 << 20) }));
        let (told, work) = within_bound(&schema, value);
        assert_eq!(told, "unchecked: too much work");
        assert!(work.bytes < 30 << 20, "{work:?}");
    }

    /// A field's name megabytes long, met at each node of the fan-out: its head is what a
    /// path keeps, and checking its name is read like any string.
    #[test]
    fn a_long_field_name_is_not_copied_at_every_node() {
        let name = "n".repeat(7 << 20);
        let object_fan_out = json!({
            "$defs": {
                "a": {"allOf": vec![json!({"$ref": "#/$defs/b"}); 70]},
                "b": {"allOf": vec![json!({"type": "object", "additionalProperties": {"type": "string"}}); 70]},
            },
            "$ref": "#/$defs/a",
        });
        let mut value = Map::new();
        value.insert(name.clone(), json!(1));
        // Each node looks the field up, hashing its whole name: refused within the bound.
        let (told, work) = within_bound(&object_fan_out, Value::Object(value.clone()));
        assert_eq!(told, "unchecked: too much work");
        assert!(work.bytes < 30 << 20, "{work:?}");
        // A short name: checked, and the message quotes it short.
        let mut short = Map::new();
        short.insert(format!("x\n{}", "n".repeat(300)), json!(1));
        let (told, _) = within_bound(&object_fan_out, Value::Object(short));
        assert!(
            told.ends_with("should be a string, not an integer"),
            "{told}"
        );
        assert!(told.len() < 200 && !told.contains('\n'), "{told}");
        let named = json!({
            "$defs": {
                "a": {"allOf": vec![json!({"$ref": "#/$defs/b"}); 70]},
                "b": {"allOf": vec![json!({"type": "object", "propertyNames": {"minLength": 1}}); 70]},
            },
            "$ref": "#/$defs/a",
        });
        let (told, work) = within_bound(&named, Value::Object(value));
        assert_eq!(told, "unchecked: too much work");
        assert!(work.bytes < 30 << 20, "{work:?}");
    }

    /// Issue 47, attack 1 (second half): `uniqueItems` over 2,000 strings of 3.4 KB compared
    /// every pair; each is now read once, for its hash.
    #[test]
    fn unique_items_read_each_item_once() {
        let items: Vec<Value> = (0..2_000)
            .map(|i| json!(format!("{i:04}{}", "s".repeat(3_400))))
            .collect();
        let total: usize = items.iter().map(|v| v.as_str().unwrap().len()).sum();
        let schema = json!({"type": "array", "uniqueItems": true});
        let (told, work) = within_bound(&schema, Value::Array(items.clone()));
        assert_eq!(told, "fits");
        assert!(
            work.bytes < total + total / 10,
            "{work:?} for {total} bytes"
        );
        // The first repeat is the one told, with its first earlier twin, as before.
        let mut repeated = items.clone();
        repeated[1_500] = items[7].clone();
        repeated[1_900] = items[3].clone();
        let (told, _) = within_bound(&schema, Value::Array(repeated));
        assert_eq!(
            told,
            "the arguments should have no repeated items (items 7 and 1500 are the same)"
        );
        // Numbers and objects repeat as JSON Schema means it: 1 is 1.0, fields in any order.
        for (list, want) in [
            (json!([1, 2, 1.0]), "items 0 and 2"),
            (
                json!([{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}]),
                "items 0 and 1",
            ),
            (json!([-0.0, 0]), "items 0 and 1"),
        ] {
            assert!(
                within_bound(&schema, list.clone()).0.contains(want),
                "{list}"
            );
        }
        for list in [
            json!([1, "1", [1], {"1": 1}, null, false, 0]),
            json!([{"a": 1}, {"a": 1, "b": 1}]),
        ] {
            assert_eq!(within_bound(&schema, list.clone()).0, "fits", "{list}");
        }
    }

    /// Whatever the schema, a check ends within its bound: every kind of keyword against
    /// large values, nested in the fan-out.
    #[test]
    fn every_keyword_in_the_fan_out_stays_within_the_bound() {
        let big_list: Vec<Value> = (0..20_000).map(|i| json!(format!("item {i}"))).collect();
        let big_object: Map<String, Value> = (0..20_000)
            .map(|i| (format!("field {i}"), json!(null)))
            .collect();
        let leaves = [
            json!({"enum": ["a", "b", "c"]}),
            json!({"required": ["x", "y"], "minProperties": 1}),
            json!({"uniqueItems": true}),
            json!({"contains": {"const": "item 19999"}}),
            json!({"items": {"type": "string"}}),
            json!({"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/b"}]}),
            json!({"not": {"type": "null"}}),
            json!({"if": {"type": "array"}, "then": {"maxItems": 1}}),
        ];
        for leaf in leaves {
            let schema = fan_out(leaf.clone());
            for value in [
                json!({"text": big_list.clone()}),
                json!({"text": big_object.clone()}),
            ] {
                within_bound(&schema, value);
            }
        }
    }

    /// Work that was done but not counted (found in review): a long field name hashed at each
    /// `properties` lookup, a misfit's quote sizing up a million-item value, numbers past 2^53
    /// that share a hash, a `type` list of thousands. Each is now counted, so the check stays
    /// within its bound; the clock only catches a hang (each took seconds to minutes before).
    #[test]
    fn work_that_went_uncounted_is_counted() {
        let started = std::time::Instant::now();
        let fan = |leaf: Value| {
            json!({
                "$defs": {
                    "a": {"allOf": vec![json!({"$ref": "#/$defs/b"}); 70]},
                    "b": {"allOf": vec![leaf; 70]},
                },
                "$ref": "#/$defs/a",
            })
        };
        let mut long_name = Map::new();
        long_name.insert("n".repeat(7 << 20), json!(1));
        let (told, _) = within_bound(
            &fan(json!({"properties": {"x": {}, "y": {}}})),
            Value::Object(long_name),
        );
        assert_eq!(told, "unchecked: too much work");
        let million: Vec<Value> = (0..1_000_000).map(|_| json!(0)).collect();
        let consts: Vec<Value> = (0..69)
            .map(|_| json!({"const": 0}))
            .chain([json!({})])
            .collect();
        within_bound(&fan(json!({ "anyOf": consts })), Value::Array(million));
        let big: Vec<Value> = (0..200_000u64).map(|i| json!((1u64 << 63) + i)).collect();
        within_bound(
            &json!({"type": "array", "uniqueItems": true}),
            Value::Array(big),
        );
        let junk_types = json!({"anyOf": [{"type": vec![json!(0); 3_000]}, {"type": "string"}]});
        within_bound(&fan(junk_types), json!(1));
        let hang = std::time::Duration::from_secs(10);
        assert!(started.elapsed() < hang, "{:?}", started.elapsed());
    }
}
