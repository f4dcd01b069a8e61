//! The user's consent to what an MCP tool does in their name. A tool result is untrusted input
//! to the model (OWASP LLM01: prompt injection), whichever server or tool sent it: one
//! server's answer can tell the model to call another server's tools. So a call that may
//! change something is shown to the user, with its server, tool and exact arguments, before it
//! is made; and a call to a server after any other source's result entered the run is shown
//! too, unless the user trusts that server. The data follows the run, not the step: a result
//! read three steps ago (or held in a program's variable) can still be sent to the next tool,
//! and a tool that says it only reads may lie, so what was read earlier counts, whatever came
//! since.
//!
//! One [`ConsentGate`] per run: it keeps what the user allowed for the run (and which sources
//! they were told of when they did) and every source the run has read. The page answers its questions ([`Asker`]); a run that cannot ask (a
//! blind vote, an evaluation) answers them itself with [`ConsentAnswer::Skipped`].

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::hidden_text::is_invisible;
use crate::origin::without_query;
use crate::tools::program::{ProgramLimits, ProgramRun, PythonTool};
use crate::tools::registry::{normalise_tool_name, CACHED_NOTE};
use crate::tools::{FailureKind, ProgramCalls, ToolFailure, ToolSpec, Toolbox};

/// When the page asks before a server's tool is called. Kept per server in the settings.
/// Declared from the one that asks least to the one that asks most (the order `stricter`
/// reads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskPolicy {
    /// The user trusts the server: never ask, not even after another source's result.
    Never,
    /// Ask before each call of a tool the server does not mark as only reading
    /// (`annotations.readOnlyHint`).
    #[default]
    UnlessReadOnly,
    /// Ask before every call.
    Always,
}

impl AskPolicy {
    pub const ALL: [AskPolicy; 3] = [Self::UnlessReadOnly, Self::Always, Self::Never];

    pub fn id(self) -> &'static str {
        match self {
            Self::UnlessReadOnly => "unless_read_only",
            Self::Always => "always",
            Self::Never => "never",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.id() == id)
    }

    /// What Settings call it.
    pub fn label(self) -> &'static str {
        match self {
            Self::UnlessReadOnly => "Ask unless it only reads",
            Self::Always => "Ask every time",
            Self::Never => "Never ask (trusted)",
        }
    }
}

/// Why a call is shown to the user before it is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AskReason {
    /// The server does not say the tool only reads.
    MayChangeSomething,
    /// The user asked to see every call of this server.
    EveryCall,
    /// The run has read results from other sources before this call: any of them may have
    /// told the model to make it, or be what its arguments carry. Every source the run has
    /// read before the call (other than this server) is named, in the order read; and
    /// whether the tool may also act in the user's name (not marked as only reading).
    AfterOtherSource { sources: Vec<String>, may_act: bool },
}

impl AskReason {
    /// One line for the question.
    pub fn explain(&self) -> String {
        match self {
            Self::MayChangeSomething => {
                "The server does not say this tool only reads: it may act in your name.".into()
            }
            Self::EveryCall => "You asked to see every call to this server.".into(),
            Self::AfterOtherSource { sources, may_act } => {
                let read = match sources.as_slice() {
                    [one] => format!(
                        "The model asks for this after reading a result from {one} in this run, which may have told it to, or be what it sends."
                    ),
                    many => format!(
                        "The model asks for this after reading results from {} in this run, any of which may have told it to, or be what it sends.",
                        list_text(many)
                    ),
                };
                if *may_act {
                    format!("{read} {}", Self::MayChangeSomething.explain())
                } else {
                    read
                }
            }
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn list_text(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A call waiting for the user: what would be sent, to whom, and why it is asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentRequest {
    /// How the server is named: `The MCP server "Notes" (https://notes.test/mcp)`.
    pub server: String,
    /// Where the call goes: the server's address as the user added it, without its query
    /// (a name the server chose cannot pass for another server's here).
    pub address: String,
    /// The tool as the prompt offers it ([`ToolNames::shown`]: callable characters only, and
    /// the server's own name beside it, made visible, where that differs).
    pub tool: String,
    /// The exact arguments sent, as indented JSON.
    pub arguments: String,
    /// The arguments' fields, each with its length and the head of its value: a long
    /// argument's later fields would sit thousands of lines down the exact text.
    pub fields: Vec<ArgumentField>,
    pub reason: AskReason,
}

impl ConsentRequest {
    /// The question's first line: `Allow send_email of the MCP server "Notes" (https://…)?`
    pub fn title(&self) -> String {
        format!("Allow {} of {}?", self.tool, mid_sentence(&self.server))
    }

    /// Whether the exact arguments are long enough to be shown field by field first.
    pub fn is_long(&self) -> bool {
        self.arguments.chars().count() > LONG_ARGUMENTS_CHARS
    }
}

/// Arguments longer than this (as indented JSON) are shown as a list of their fields, with
/// the whole text a click away.
pub const LONG_ARGUMENTS_CHARS: usize = 600;
/// How much of each field's value the list shows.
const FIELD_HEAD_CHARS: usize = 120;

/// One field of a call's arguments, as the question lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentField {
    /// The field's name, made visible and cut.
    pub name: String,
    /// How long its value is, in characters of its JSON text (of the string, for a string).
    pub chars: usize,
    /// The head of its value, made visible, ending in `…` where it was cut.
    pub head: String,
}

/// The fields of `args` (an object; anything else is one field named `(arguments)`).
pub fn argument_fields(args: &Value) -> Vec<ArgumentField> {
    let field = |name: &str, value: &Value| {
        // A string is read where it lies (it may be megabytes); anything else is written out.
        let written;
        let text: &str = match value {
            Value::String(s) => s,
            other => {
                written = other.to_string();
                &written
            }
        };
        let chars = text.chars().count();
        let head: String = text.chars().take(FIELD_HEAD_CHARS).collect();
        let cut = if chars > FIELD_HEAD_CHARS { "…" } else { "" };
        ArgumentField {
            name: shown_name(name),
            chars,
            head: format!("{}{cut}", escaped(&head)),
        }
    };
    match args {
        Value::Object(map) => {
            let mut fields: Vec<ArgumentField> = map
                .iter()
                .take(LISTED_FIELDS)
                .map(|(k, v)| field(k, v))
                .collect();
            if map.len() > LISTED_FIELDS {
                fields.push(ArgumentField {
                    name: format!("… and {} more fields", map.len() - LISTED_FIELDS),
                    chars: 0,
                    head: String::new(),
                });
            }
            fields
        }
        other => vec![field("(arguments)", other)],
    }
}

/// Most fields the question lists (the exact text has them all).
const LISTED_FIELDS: usize = 50;

/// A tool's names as the user is told them: the one the prompt offers, and the server's own
/// when it differs.
pub struct ToolNames<'a> {
    pub offered: &'a str,
    pub raw: &'a str,
}

impl ToolNames<'_> {
    /// `read_notes`, or `read_notes (the server calls it "x\u202egnp.exe")`: one safe form
    /// for the question and for what the model is told of a declined or skipped call.
    pub fn shown(&self) -> String {
        let offered = shown_name(self.offered);
        if self.raw == self.offered {
            offered
        } else {
            format!(
                "{offered} (the server calls it \"{}\")",
                shown_name(self.raw)
            )
        }
    }
}

/// Most characters of a name a question shows.
const SHOWN_NAME_CHARS: usize = 80;

/// A name from a server, shown whole in meaning: one line, every hidden, direction or
/// control character written as its escape (`\u202e`), cut with `…`.
pub fn shown_name(name: &str) -> String {
    let cut: String = name.chars().take(SHOWN_NAME_CHARS).collect();
    let more = if name.chars().nth(SHOWN_NAME_CHARS).is_some() {
        "…"
    } else {
        ""
    };
    // Shown in quotes: a quote or backslash of its own is escaped, so it cannot close them.
    let quoted = cut.replace('\\', "\\\\").replace('"', "\\\"");
    format!("{}{more}", escaped(&quoted))
}

/// `text` with every invisible or control character written as its escape.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // Line and paragraph separators break a line as a newline does.
        if is_invisible(c) || c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            if (c as u32) > 0xFFFF {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            } else {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A server's label (`The MCP server "…"`) to go inside a sentence.
fn mid_sentence(label: &str) -> String {
    match label.strip_prefix("The ") {
        Some(rest) => format!("the {rest}"),
        None => label.to_string(),
    }
}

/// The user's answer (or the run's own, when it cannot ask).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsentAnswer {
    AllowOnce,
    /// This tool of this server, for the rest of the run, given what the question said: a
    /// source read after it (one the user was not told of) asks again.
    AllowForRun,
    Deny,
    /// The run cannot ask (the text says why); the call is not made.
    Skipped(String),
}

/// Asks the user about one call; the future ends with their answer. Dropping it (Stop) takes
/// the question away.
pub type Asker = Rc<dyn Fn(ConsentRequest) -> LocalBoxFuture<'static, ConsentAnswer>>;

/// Why an evaluation's runs skip such calls (told to the model, and said in its setup).
pub const EVALUATION_SKIPS: &str = "an evaluation runs unattended and does not ask";
/// Why a blind vote's runs skip them: a question in one panel would tell the modes apart.
pub const BLIND_SKIPS: &str =
    "a blind vote does not ask, since a question would tell the panels apart";

/// An asker for runs that cannot ask: every call that needs consent is skipped, and `why`
/// tells the model (and the user reading the run) why.
pub fn skipping(why: &str) -> Asker {
    let why = why.to_string();
    Rc::new(move |_| {
        let why = why.clone();
        Box::pin(async move { ConsentAnswer::Skipped(why) })
    })
}

/// What the settings say now of a server's tool (its server's ask policy, whether it only
/// reads), read at each call: a change in Settings applies to runs already open. `None` when
/// the server is gone.
pub type LivePolicy = Rc<dyn Fn() -> Option<(AskPolicy, bool)>>;

impl AskPolicy {
    /// The one of `self` and `other` that asks more.
    pub fn stricter(self, other: AskPolicy) -> AskPolicy {
        self.max(other)
    }
}

impl GatedCall {
    pub fn names(&self) -> ToolNames<'_> {
        ToolNames {
            offered: &self.offered,
            raw: &self.tool,
        }
    }

    /// This call as the settings now have it: the stricter policy, and read-only only if
    /// both say so.
    pub fn with_live(&self, live: Option<(AskPolicy, bool)>) -> GatedCall {
        match live {
            Some((policy, read_only)) => GatedCall {
                policy: self.policy.stricter(policy),
                read_only: self.read_only && read_only,
                ..self.clone()
            },
            None => self.clone(),
        }
    }
}

/// What the run knows of a server's tool when it is called.
#[derive(Debug, Clone, PartialEq)]
pub struct GatedCall {
    pub server_url: String,
    /// How messages name the server (its label: its name and origin).
    pub server_label: String,
    /// The server's name, unique among the servers (the question shows it with the whole
    /// address).
    pub server_name: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The name the prompt offers it by.
    pub offered: String,
    pub read_only: bool,
    pub policy: AskPolicy,
}

/// A tool the user allowed for the rest of the run.
struct AllowedForRun {
    server_url: String,
    tool: String,
    /// The other sources the question named when the user allowed it: the allowance covers
    /// calls after those, and no others.
    told_of: Vec<String>,
}

#[derive(Default)]
struct GateState {
    allowed: Vec<AllowedForRun>,
    /// Offered tool name (normalised) → server URL and label, for the servers' tools.
    servers: Vec<(String, String, String)>,
    /// Every source whose result had entered the run when the latest calls began: what the
    /// model (or a program) may have read, and may be sending on.
    read: Vec<String>,
    /// Every source whose result entered this run (the calls under way included).
    seen: Vec<String>,
}

/// One run's consent: shared by its servers' tools (which ask) and its toolbox (which notes
/// where each result came from).
#[derive(Default)]
pub struct ConsentGate {
    state: RefCell<GateState>,
    asker: RefCell<Option<Asker>>,
}

/// How a built-in tool is named as a source of results (a server is named by its URL).
const BUILT_IN_SOURCE: &str = "tool:";

fn built_in_source(tool: &str) -> String {
    format!("{BUILT_IN_SOURCE}{}", normalise_tool_name(tool))
}

impl ConsentGate {
    pub fn new() -> Rc<Self> {
        Rc::new(Self::default())
    }

    /// Who answers this turn's questions (each turn of a run is driven anew).
    pub fn set_asker(&self, asker: Asker) {
        *self.asker.borrow_mut() = Some(asker);
    }

    /// Notes that the tool offered as `offered` belongs to the server at `url` (`label`).
    pub fn register(&self, offered: &str, url: &str, label: &str) {
        self.state.borrow_mut().servers.push((
            normalise_tool_name(offered),
            url.to_string(),
            label.to_string(),
        ));
    }

    fn source_of(&self, offered: &str) -> String {
        let wanted = normalise_tool_name(offered);
        self.state
            .borrow()
            .servers
            .iter()
            .find(|(name, _, _)| *name == wanted)
            .map_or_else(|| built_in_source(offered), |(_, url, _)| url.clone())
    }

    /// How a source is named to the user.
    fn describe_source(&self, source: &str) -> String {
        match source.strip_prefix(BUILT_IN_SOURCE) {
            Some(tool) => format!("the {tool} tool"),
            None => self
                .state
                .borrow()
                .servers
                .iter()
                .find(|(_, url, _)| url == source)
                .map_or_else(|| source.to_string(), |(_, _, label)| mid_sentence(label)),
        }
    }

    /// A step's calls are beginning (all of them, before any runs; each call of a program is a
    /// step of its own): every result that came before has now been read. Calls of one step
    /// are judged together, by what came before it: a sibling's result cannot have shaped
    /// their arguments.
    pub fn calls_begin(&self) {
        let mut state = self.state.borrow_mut();
        state.read = state.seen.clone();
    }

    /// A turn begins (a follow-up, Retry, Continue, more steps): the model reads the whole
    /// conversation again. (Retry drops an attempt from what the model reads, but its calls
    /// were made: counting them only asks more.)
    pub fn turn_begins(&self) {
        self.calls_begin();
    }

    fn result_from(&self, source: String) {
        let mut state = self.state.borrow_mut();
        if !state.seen.contains(&source) {
            state.seen.push(source);
        }
    }

    /// The sources read before the current calls, other than the server at `url`, in the
    /// order read.
    fn read_from_others(&self, url: &str) -> Vec<String> {
        let state = self.state.borrow();
        state.read.iter().filter(|s| *s != url).cloned().collect()
    }

    /// The server at `url` answered a call: its words enter the conversation. (A call the
    /// page refused, or the user declined, brought none.)
    pub fn answered_by(&self, url: &str) {
        self.result_from(url.to_string());
    }

    /// Why `call` must be asked about, or `None` when it may go ahead.
    pub fn reason(&self, call: &GatedCall) -> Option<AskReason> {
        if call.policy == AskPolicy::Never {
            return None;
        }
        let others = self.read_from_others(&call.server_url);
        let state = self.state.borrow();
        let allowance = state
            .allowed
            .iter()
            .find(|a| a.server_url == call.server_url && a.tool == call.tool);
        // Anything another source said earlier in the run may have steered the model, or sit
        // in the arguments: asked, even of a tool that says it only reads, unless the user
        // allowed this tool for the run knowing of every one of those sources.
        let told_of_all = allowance.is_some_and(|a| others.iter().all(|s| a.told_of.contains(s)));
        if !others.is_empty() && !told_of_all {
            drop(state);
            let sources = others.iter().map(|s| self.describe_source(s)).collect();
            return Some(AskReason::AfterOtherSource {
                sources,
                may_act: !call.read_only,
            });
        }
        match call.policy {
            _ if allowance.is_some() => None,
            AskPolicy::Always => Some(AskReason::EveryCall),
            AskPolicy::UnlessReadOnly if !call.read_only => Some(AskReason::MayChangeSomething),
            _ => None,
        }
    }

    /// Asks about `call` with `args` when it must: `Err` is what the model is told instead of
    /// a result (the user declined, or the run could not ask).
    pub async fn check(&self, call: &GatedCall, args: &Value) -> Result<(), ToolFailure> {
        let declined = |text: String| ToolFailure::new(FailureKind::Declined, text);
        let Some(reason) = self.reason(call) else {
            return Ok(());
        };
        // What the question names (sources read before this call) is what an "Allow for this
        // run" is given after.
        let told_of = self.read_from_others(&call.server_url);
        let asker = self.asker.borrow().clone();
        let Some(asker) = asker else {
            return Err(declined(skipped_text(call, "this run has no one to ask")));
        };
        let address = without_query(call.server_url.trim()).to_string();
        let request = ConsentRequest {
            server: format!("The MCP server \"{}\" ({address})", call.server_name),
            address,
            tool: call.names().shown(),
            arguments: visible(
                &serde_json::to_string_pretty(args).unwrap_or_else(|_| args.to_string()),
            ),
            fields: argument_fields(args),
            reason,
        };
        match asker(request).await {
            ConsentAnswer::AllowOnce => Ok(()),
            ConsentAnswer::AllowForRun => {
                let mut state = self.state.borrow_mut();
                state
                    .allowed
                    .retain(|a| !(a.server_url == call.server_url && a.tool == call.tool));
                state.allowed.push(AllowedForRun {
                    server_url: call.server_url.clone(),
                    tool: call.tool.clone(),
                    told_of,
                });
                Ok(())
            }
            ConsentAnswer::Deny => Err(declined(format!(
                "The user declined this call: {} of {} was not made. Do not try it again; \
                 go on without it or give your answer.",
                call.names().shown(),
                mid_sentence(&call.server_label)
            ))),
            ConsentAnswer::Skipped(why) => Err(declined(skipped_text(call, &why))),
        }
    }
}

/// JSON `text` with every character a reader cannot see (bidirectional controls, zero-width
/// spaces) written as its JSON escape (`\u202e`): what the user reads is what is sent, and
/// it is still the same JSON.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_invisible(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn skipped_text(call: &GatedCall, why: &str) -> String {
    format!(
        "This call needs the user's consent and was not made ({why}): {} of {}. Go on without it.",
        call.names().shown(),
        mid_sentence(&call.server_label)
    )
}

/// A run's toolbox with its consent gate: it notes where each result came from, so a call
/// after another source's result is asked about.
pub struct GatedTools<'a, T> {
    pub tools: &'a T,
    pub gate: &'a ConsentGate,
}

impl<T: Toolbox> Toolbox for GatedTools<'_, T> {
    fn specs(&self) -> Vec<ToolSpec> {
        self.tools.specs()
    }

    fn begin_calls(&self) {
        self.gate.calls_begin();
        self.tools.begin_calls();
    }

    async fn call(&self, name: &str, args: &Value) -> Result<String, ToolFailure> {
        let result = self.tools.call(name, args).await;
        let source = self.gate.source_of(name);
        // A built-in tool's answer counts, failures too (counting one the page wrote, no such
        // tool or arguments that do not fit, only asks once more than needed); so does a
        // server's earlier answer from the run's cache. A server's own answers are noted
        // where they arrive (`answered_by`).
        let counts = source.starts_with(BUILT_IN_SOURCE)
            || result
                .as_ref()
                .is_ok_and(|text| text.ends_with(CACHED_NOTE));
        if counts {
            self.gate.result_from(source);
        }
        result
    }

    /// As [`Self::call`], but every result a program got counts: a value from the run's
    /// cache carries no note to tell it by, and counting one the server's own handler has
    /// noted changes nothing.
    async fn call_value(&self, name: &str, args: &Value) -> Result<Value, ToolFailure> {
        let result = self.tools.call_value(name, args).await;
        let source = self.gate.source_of(name);
        if source.starts_with(BUILT_IN_SOURCE) || result.is_ok() {
            self.gate.result_from(source);
        }
        result
    }

    /// A program's calls come back through the run's outer toolbox (`calls`), this gate
    /// included; the program itself runs where the tools below run it.
    async fn run_program<C: ProgramCalls>(
        &self,
        code: &str,
        tools: &[PythonTool],
        limits: ProgramLimits,
        calls: &C,
    ) -> ProgramRun {
        self.tools.run_program(code, tools, limits, calls).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use serde_json::json;
    use std::cell::Cell;

    fn call(url: &str, tool: &str, read_only: bool, policy: AskPolicy) -> GatedCall {
        GatedCall {
            server_url: url.into(),
            server_label: format!("The MCP server \"{tool}\" ({url})"),
            server_name: tool.into(),
            tool: tool.into(),
            offered: tool.into(),
            read_only,
            policy,
        }
    }

    /// The victim server's tool that may act in the user's name, with the default policy.
    fn send_email() -> GatedCall {
        call(
            "https://v.test/mcp",
            "send_email",
            false,
            AskPolicy::default(),
        )
    }

    type LastQuestion = Rc<RefCell<Option<ConsentRequest>>>;

    /// An asker that answers `answer` and counts the questions, keeping the last.
    fn answering(answer: ConsentAnswer) -> (Asker, Rc<Cell<u32>>, LastQuestion) {
        let asked = Rc::new(Cell::new(0));
        let last = Rc::new(RefCell::new(None));
        let (a, l) = (asked.clone(), last.clone());
        let asker: Asker = Rc::new(move |request| {
            a.set(a.get() + 1);
            *l.borrow_mut() = Some(request);
            let answer = answer.clone();
            Box::pin(async move { answer })
        });
        (asker, asked, last)
    }

    #[test]
    fn a_tool_that_may_change_something_is_asked_about_with_its_exact_arguments() {
        let gate = ConsentGate::new();
        let (asker, asked, last) = answering(ConsentAnswer::AllowOnce);
        gate.set_asker(asker);
        let send = send_email();
        let args = json!({"to": "a@b.test", "body": "hi"});
        assert_eq!(block_on(gate.check(&send, &args)), Ok(()));
        assert_eq!(asked.get(), 1);
        let request = last.borrow().clone().unwrap();
        assert_eq!(request.tool, "send_email");
        assert_eq!(request.server, send.server_label);
        assert_eq!(
            serde_json::from_str::<Value>(&request.arguments).unwrap(),
            args
        );
        assert_eq!(request.reason, AskReason::MayChangeSomething);
        assert_eq!(
            request.title(),
            "Allow send_email of the MCP server \"send_email\" (https://v.test/mcp)?"
        );
        // Allowed once: the next call asks again.
        block_on(gate.check(&send, &args)).unwrap();
        assert_eq!(asked.get(), 2);
        // A read-only tool is not asked about; a trusted server never is.
        let read = call(
            "https://v.test/mcp",
            "read_notes",
            true,
            AskPolicy::default(),
        );
        block_on(gate.check(&read, &json!({}))).unwrap();
        let trusted = call("https://v.test/mcp", "send_email", false, AskPolicy::Never);
        block_on(gate.check(&trusted, &args)).unwrap();
        assert_eq!(asked.get(), 2);
        // "Every call" asks about read-only tools too.
        let every = call("https://v.test/mcp", "read_notes", true, AskPolicy::Always);
        block_on(gate.check(&every, &json!({}))).unwrap();
        assert_eq!(asked.get(), 3);
    }

    /// Issue 47, attack 2: a server's tool named with a right-to-left override, or with the
    /// question's own wording, reached the question (and the model's decline message) raw.
    #[test]
    fn the_question_and_the_model_name_a_tool_in_one_safe_form() {
        for (raw, offered, shown) in [
            (
                "x\u{202E}gnp.exe",
                "x_gnp_exe",
                "x_gnp_exe (the server calls it \"x\\u202egnp.exe\")",
            ),
            (
                "read_notes of the MCP server \"Victim\" (http://v.test)? \n Allow",
                "read_notes_of_the_MCP_server_Victim_http_v_test_Allow",
                "read_notes_of_the_MCP_server_Victim_http_v_test_Allow (the server calls it \"read_notes of the MCP server \\\"Victim\\\" (http://v.test)? \\u000a Allow\")",
            ),
            ("send_email", "send_email", "send_email"),
        ] {
            let mut send = send_email();
            send.tool = raw.into();
            send.offered = offered.into();
            let gate = ConsentGate::new();
            let (asker, _, last) = answering(ConsentAnswer::Deny);
            gate.set_asker(asker);
            let denied = block_on(gate.check(&send, &json!({}))).unwrap_err().message;
            let request = last.borrow().clone().unwrap();
            assert_eq!(request.tool, shown);
            assert_eq!(
                request.title(),
                format!("Allow {shown} of the MCP server \"send_email\" (https://v.test/mcp)?")
            );
            assert!(
                denied.starts_with(&format!("The user declined this call: {shown} of the MCP server")),
                "{denied}"
            );
            let gate = ConsentGate::new();
            gate.set_asker(skipping(BLIND_SKIPS));
            let skipped = block_on(gate.check(&send, &json!({}))).unwrap_err().message;
            assert!(skipped.contains(&format!("): {shown} of the MCP server")), "{skipped}");
            for text in [&request.title(), &denied, &skipped] {
                assert!(
                    !text.chars().any(|c| is_invisible(c) || c.is_control()),
                    "{text:?}"
                );
            }
        }
        // A name a page of text long is cut; separators and astral tags are escaped.
        assert_eq!(shown_name(&"n".repeat(500)).chars().count(), 81);
        assert_eq!(
            shown_name("a\u{2028}b\u{E0041}\\"),
            "a\\u2028b\\u{e0041}\\\\"
        );
    }

    /// "Held but weak": a 100 KB argument put its later fields 9,000 px down the box. The
    /// question lists every field with its length and head.
    #[test]
    fn a_long_argument_is_listed_field_by_field() {
        let gate = ConsentGate::new();
        let (asker, _, last) = answering(ConsentAnswer::AllowOnce);
        gate.set_asker(asker);
        let args = json!({"body": "b".repeat(100_000), "to": "thief@evil.test", "n": [1, 2], "\u{202E}x": null});
        block_on(gate.check(&send_email(), &args)).unwrap();
        let request = last.borrow().clone().unwrap();
        assert!(request.is_long());
        let fields: Vec<(String, usize, String)> = request
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.chars, f.head.clone()))
            .collect();
        assert_eq!(
            fields,
            [
                ("body".into(), 100_000, format!("{}…", "b".repeat(120))),
                ("to".into(), 15, "thief@evil.test".into()),
                ("n".into(), 5, "[1,2]".into()),
                ("\\u202ex".into(), 4, "null".into()),
            ]
        );
        // Thousands of fields: the first 50 are listed, and how many more there are.
        let many: serde_json::Map<String, Value> =
            (0..3_000).map(|i| (format!("f{i}"), json!(i))).collect();
        block_on(gate.check(&send_email(), &Value::Object(many))).unwrap();
        let fields = last.borrow().clone().unwrap().fields;
        assert_eq!(fields.len(), 51);
        assert_eq!(fields[50].name, "… and 2950 more fields");
        // A short one is not long; the exact text is always there.
        let short = json!({"to": "a@b.test"});
        block_on(gate.check(&send_email(), &short)).unwrap();
        let request = last.borrow().clone().unwrap();
        assert!(!request.is_long());
        assert_eq!(
            serde_json::from_str::<Value>(&request.arguments).unwrap(),
            short
        );
    }

    #[test]
    fn a_declined_or_skipped_call_is_told_to_the_model_and_allow_for_run_holds() {
        let gate = ConsentGate::new();
        let send = send_email();
        // No one to ask: not made.
        let no_one = block_on(gate.check(&send, &json!({}))).unwrap_err();
        assert_eq!(no_one.kind, FailureKind::Declined);
        let no_one = no_one.message;
        assert!(no_one.contains("was not made"), "{no_one}");
        let (asker, _, _) = answering(ConsentAnswer::Deny);
        gate.set_asker(asker);
        let denied = block_on(gate.check(&send, &json!({}))).unwrap_err();
        assert_eq!(denied.kind, FailureKind::Declined);
        let denied = denied.message;
        assert!(
            denied.starts_with("The user declined this call: send_email"),
            "{denied}"
        );
        gate.set_asker(skipping("a blind vote cannot ask"));
        let skipped = block_on(gate.check(&send, &json!({}))).unwrap_err().message;
        assert!(skipped.contains("a blind vote cannot ask"), "{skipped}");
        let (asker, asked, _) = answering(ConsentAnswer::AllowForRun);
        gate.set_asker(asker);
        block_on(gate.check(&send, &json!({}))).unwrap();
        block_on(gate.check(&send, &json!({"x": 1}))).unwrap();
        assert_eq!(asked.get(), 1, "allowed for the run: asked once");
        // Another tool of the same server is still asked about.
        let other = call(
            "https://v.test/mcp",
            "delete_all",
            false,
            AskPolicy::default(),
        );
        block_on(gate.check(&other, &json!({}))).unwrap();
        assert_eq!(asked.get(), 2);
    }

    /// A toolbox whose every call answers with the tool's name.
    struct Echo;
    impl Toolbox for Echo {
        fn specs(&self) -> Vec<ToolSpec> {
            Vec::new()
        }
        async fn call(&self, name: &str, _: &Value) -> Result<String, ToolFailure> {
            Ok(format!("result of {name}"))
        }
    }

    #[test]
    fn a_call_after_another_source_s_result_is_asked_about_even_when_read_only() {
        let gate = ConsentGate::new();
        gate.register(
            "evil_lookup",
            "https://evil.test/mcp",
            "The MCP server \"Evil\"",
        );
        gate.register(
            "read_notes",
            "https://v.test/mcp",
            "The MCP server \"Victim\"",
        );
        let (asker, asked, last) = answering(ConsentAnswer::AllowForRun);
        gate.set_asker(asker);
        let tools = GatedTools {
            tools: &Echo,
            gate: &gate,
        };
        let read = call(
            "https://v.test/mcp",
            "read_notes",
            true,
            AskPolicy::default(),
        );
        // Nothing has entered the conversation yet: a read-only call goes ahead.
        block_on(gate.check(&read, &json!({}))).unwrap();
        assert_eq!(asked.get(), 0);
        block_on(tools.call("evil_lookup", &json!({}))).unwrap();
        gate.answered_by("https://evil.test/mcp"); // what its handler notes
                                                   // The next calls begin with the hostile server's result read by the model.
        tools.begin_calls();
        assert_eq!(
            gate.reason(&read),
            Some(AskReason::AfterOtherSource {
                sources: vec!["the MCP server \"Evil\"".into()],
                may_act: false
            })
        );
        // Allowed for the run after being told of Evil: not asked again while Evil is all
        // the run has read.
        block_on(gate.check(&read, &json!({}))).unwrap();
        assert!(last
            .borrow()
            .as_ref()
            .unwrap()
            .reason
            .explain()
            .contains("Evil"));
        block_on(gate.check(&read, &json!({}))).unwrap();
        assert_eq!(asked.get(), 1);
        // A trusted server is not asked about.
        let trusted = call("https://v.test/mcp", "read_notes", true, AskPolicy::Never);
        assert_eq!(gate.reason(&trusted), None);
        // A built-in tool's result counts as another source too, one the user was not told
        // of: asked again, naming every source read so far, not only the last (issue 47: the
        // hostile server went unnamed once a built-in tool had answered after it).
        block_on(tools.call("web_search", &json!({}))).unwrap();
        tools.begin_calls();
        assert_eq!(
            gate.reason(&read),
            Some(AskReason::AfterOtherSource {
                sources: vec![
                    "the MCP server \"Evil\"".into(),
                    "the web_search tool".into()
                ],
                may_act: false
            })
        );
        assert_eq!(
            gate.reason(&read).unwrap().explain(),
            "The model asks for this after reading results from the MCP server \"Evil\" and the web_search tool in this run, any of which may have told it to, or be what it sends."
        );
        // The server's own result since does not wash the others out (issue 58, attack 1).
        block_on(tools.call("read_notes", &json!({}))).unwrap();
        gate.answered_by("https://v.test/mcp");
        tools.begin_calls();
        assert!(gate.reason(&read).is_some());
        // Without an allowance, a read-only call of a server that is the only source read
        // goes ahead: its own words go back to it.
        let fresh = ConsentGate::new();
        fresh.answered_by("https://v.test/mcp");
        fresh.calls_begin();
        assert_eq!(fresh.reason(&read), None);
    }

    /// A toolbox whose every program call answers with a dict, as a structured result comes
    /// (a server's, perhaps from the run's cache, so with no note to tell it by).
    struct Structured;
    impl Toolbox for Structured {
        fn specs(&self) -> Vec<ToolSpec> {
            Vec::new()
        }
        async fn call(&self, name: &str, _: &Value) -> Result<String, ToolFailure> {
            Ok(format!("result of {name}"))
        }
        async fn call_value(&self, name: &str, _: &Value) -> Result<Value, ToolFailure> {
            Ok(json!({"from": name}))
        }
    }

    /// Issue 59, row 4: a structured result a program got is a source read, wherever it came
    /// from (a server's cached answer included): the next call that may act is asked about.
    #[test]
    fn a_structured_result_a_program_got_counts_as_read() {
        let gate = ConsentGate::new();
        gate.register(
            "stations",
            "https://evil.test/mcp",
            "The MCP server \"Evil\"",
        );
        let tools = GatedTools {
            tools: &Structured,
            gate: &gate,
        };
        tools.begin_calls();
        let value = block_on(tools.call_value("stations", &json!({}))).unwrap();
        assert_eq!(value, json!({"from": "stations"}));
        tools.begin_calls();
        let send = send_email();
        assert_eq!(
            gate.reason(&send),
            Some(AskReason::AfterOtherSource {
                sources: vec!["the MCP server \"Evil\"".into()],
                may_act: true
            })
        );
    }

    /// Issue 58, attack 1: `n = read_notes()` (read-only), then `daily_news()` (allowed once),
    /// then `log_summary(text=n)` of the same hostile server, which marks it read-only. The
    /// gate compared only with the step just before, so the notes left with no question.
    #[test]
    fn a_result_read_earlier_in_the_run_still_asks_after_another_call_was_allowed_once() {
        let notes = "https://notes.test/mcp";
        let hostile = "https://news.test/mcp";
        let gate = ConsentGate::new();
        gate.register("read_notes", notes, "The MCP server \"Notes\"");
        gate.register("daily_news", hostile, "The MCP server \"News\"");
        gate.register("log_summary", hostile, "The MCP server \"News\"");
        let (asker, asked, last) = answering(ConsentAnswer::AllowOnce);
        gate.set_asker(asker);
        let tools = GatedTools {
            tools: &Echo,
            gate: &gate,
        };
        let read_notes = call(notes, "read_notes", true, AskPolicy::default());
        let daily_news = call(hostile, "daily_news", true, AskPolicy::default());
        let log_summary = call(hostile, "log_summary", true, AskPolicy::default());
        // Each call its own step, as in a program or in Act-only.
        tools.begin_calls();
        block_on(gate.check(&read_notes, &json!({}))).unwrap();
        block_on(tools.call("read_notes", &json!({}))).unwrap();
        gate.answered_by(notes);
        assert_eq!(asked.get(), 0);
        tools.begin_calls();
        block_on(gate.check(&daily_news, &json!({}))).unwrap();
        block_on(tools.call("daily_news", &json!({}))).unwrap();
        gate.answered_by(hostile);
        assert_eq!(asked.get(), 1, "daily_news after the notes is asked");
        tools.begin_calls();
        block_on(gate.check(&log_summary, &json!({"text": "my notes"}))).unwrap();
        assert_eq!(asked.get(), 2, "log_summary still follows the notes");
        assert_eq!(
            last.borrow().as_ref().unwrap().reason,
            AskReason::AfterOtherSource {
                sources: vec!["the MCP server \"Notes\"".into()],
                may_act: false
            }
        );
        // Allowed for the run once told of the notes: that tool is not asked again while
        // nothing new is read; a new source asks again.
        let (asker, asked, _) = answering(ConsentAnswer::AllowForRun);
        gate.set_asker(asker);
        block_on(gate.check(&log_summary, &json!({}))).unwrap();
        block_on(gate.check(&log_summary, &json!({}))).unwrap();
        assert_eq!(asked.get(), 1);
        block_on(tools.call("wikipedia", &json!({}))).unwrap();
        tools.begin_calls();
        block_on(gate.check(&log_summary, &json!({}))).unwrap();
        assert_eq!(asked.get(), 2);
        // A tool not marked read-only, after another source: both reasons are said.
        let send = call(hostile, "send_email", false, AskPolicy::default());
        let why = gate.reason(&send).unwrap().explain();
        assert!(why.contains("the MCP server \"Notes\""), "{why}");
        assert!(why.ends_with("it may act in your name."), "{why}");
    }

    #[test]
    fn calls_of_one_step_are_judged_by_the_results_before_it() {
        let gate = ConsentGate::new();
        gate.register("evil_lookup", "https://evil.test/mcp", "Evil");
        gate.register("read_notes", "https://v.test/mcp", "Victim");
        let tools = GatedTools {
            tools: &Echo,
            gate: &gate,
        };
        let read = call(
            "https://v.test/mcp",
            "read_notes",
            true,
            AskPolicy::default(),
        );
        tools.begin_calls();
        assert_eq!(gate.reason(&read), None);
        // A built-in tool of the same step answers at once: the step's other calls are still
        // judged by what came before the step.
        block_on(tools.call("calculator", &json!({}))).unwrap();
        gate.answered_by("https://evil.test/mcp");
        assert_eq!(gate.reason(&read), None);
        tools.begin_calls();
        assert!(gate.reason(&read).is_some());
    }

    #[test]
    fn a_refused_or_declined_call_does_not_pass_for_its_server_s_answer() {
        // Evil's result is read; a call to Victim is refused (arguments, Deny, a skip): the
        // page wrote that answer, Victim did not, so the next call still follows Evil.
        let gate = ConsentGate::new();
        gate.register("read_notes", "https://v.test/mcp", "Victim");
        let (asker, _, _) = answering(ConsentAnswer::Deny);
        gate.set_asker(asker);
        struct Refusing;
        impl Toolbox for Refusing {
            fn specs(&self) -> Vec<ToolSpec> {
                Vec::new()
            }
            async fn call(&self, _: &str, _: &Value) -> Result<String, ToolFailure> {
                Err(ToolFailure::bad_arguments(
                    "The arguments of read_notes do not fit",
                ))
            }
        }
        let tools = GatedTools {
            tools: &Refusing,
            gate: &gate,
        };
        gate.answered_by("https://evil.test/mcp");
        tools.begin_calls();
        let _ = block_on(tools.call("read_notes", &json!(42)));
        tools.begin_calls();
        let read = call(
            "https://v.test/mcp",
            "read_notes",
            true,
            AskPolicy::default(),
        );
        assert!(matches!(
            gate.reason(&read),
            Some(AskReason::AfterOtherSource { .. })
        ));
        // A cached answer of a server is its words again.
        let gate = ConsentGate::new();
        gate.register("evil_lookup", "https://evil.test/mcp", "Evil");
        struct Cached;
        impl Toolbox for Cached {
            fn specs(&self) -> Vec<ToolSpec> {
                Vec::new()
            }
            async fn call(&self, _: &str, _: &Value) -> Result<String, ToolFailure> {
                Ok(format!("old news\n{CACHED_NOTE}"))
            }
        }
        let tools = GatedTools {
            tools: &Cached,
            gate: &gate,
        };
        tools.begin_calls();
        block_on(tools.call("evil_lookup", &json!({}))).unwrap();
        tools.begin_calls();
        assert!(gate.reason(&read).is_some());
    }

    #[test]
    fn a_new_turn_counts_every_source_the_run_has_read() {
        let gate = ConsentGate::new();
        gate.register("read_notes", "https://v.test/mcp", "Victim");
        let read = call(
            "https://v.test/mcp",
            "read_notes",
            true,
            AskPolicy::default(),
        );
        gate.answered_by("https://evil.test/mcp");
        gate.calls_begin();
        gate.answered_by("https://v.test/mcp");
        gate.calls_begin();
        assert!(
            gate.reason(&read).is_some(),
            "Victim answered last; Evil before"
        );
        // Retry or a follow-up: every source the run has read counts, this turn's included.
        let gate = ConsentGate::new();
        gate.answered_by("https://evil.test/mcp");
        assert_eq!(gate.reason(&read), None, "not yet read: no calls began");
        gate.turn_begins();
        assert!(gate.reason(&read).is_some());
    }

    #[test]
    fn a_stricter_choice_in_settings_applies_to_an_open_run() {
        let fixed = call("https://v.test/mcp", "read_notes", true, AskPolicy::Never);
        let gate = ConsentGate::new();
        assert_eq!(gate.reason(&fixed), None);
        let now = fixed.with_live(Some((AskPolicy::Always, true)));
        assert_eq!(gate.reason(&now), Some(AskReason::EveryCall));
        // The server no longer says the tool only reads.
        let now = call("https://v.test/mcp", "x", true, AskPolicy::UnlessReadOnly)
            .with_live(Some((AskPolicy::Never, false)));
        assert_eq!(gate.reason(&now), Some(AskReason::MayChangeSomething));
        assert_eq!(fixed.with_live(None), fixed);
    }

    #[test]
    fn hidden_characters_in_the_arguments_are_shown_as_escapes() {
        let gate = ConsentGate::new();
        let (asker, _, last) = answering(ConsentAnswer::AllowOnce);
        gate.set_asker(asker);
        let send = send_email();
        let args =
            json!({"to": "me@home.test\u{202e}tset.live@kcatta", "body": "a\u{200b}b\u{e0041}"});
        block_on(gate.check(&send, &args)).unwrap();
        let shown = last.borrow().clone().unwrap().arguments;
        assert!(shown.contains("me@home.test\\u202etset"), "{shown}");
        assert!(shown.contains("a\\u200bb\\udb40\\udc41"), "{shown}");
        assert!(!shown.chars().any(is_invisible));
        // Still the same JSON: what is shown is what is sent.
        assert_eq!(serde_json::from_str::<Value>(&shown).unwrap(), args);
    }

    #[test]
    fn ask_policies_round_trip_by_id() {
        for p in AskPolicy::ALL {
            assert_eq!(AskPolicy::from_id(p.id()), Some(p));
        }
        assert_eq!(AskPolicy::from_id("nope"), None);
        assert_eq!(
            serde_json::to_string(&AskPolicy::UnlessReadOnly).unwrap(),
            "\"unless_read_only\""
        );
    }
}
