//! The agent engine as the browser runs it: the loop with the browser's model client and
//! tools. On the page it is in the engine's chunk with the turn driver
//! (`ui/turn_driver.rs`, `src/split_points.rs`); the Evaluate module links it directly.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use web_sys::AbortSignal;

use crate::args_chunk;
use crate::browser_model::Caller;
use crate::fetch::{BrowserChatModel, InBrowser};
use crate::mcp_chunk::{self, McpEntries};
use crate::program_chunk::Interpreter;
use crate::program_tools::ProgramTools;
use crate::stoppable_tools::StoppableTools;
use crate::tool_chunk;
use arena_core::agent::run::run_turn;
use arena_core::agent::{AgentEvent, Mode};
use arena_core::llm::ChatParams;
use arena_core::mcp::consent::{Asker, ConsentGate, GatedTools};
use arena_core::settings::{Backend, Settings};
use arena_core::tools::Registry;
use arena_core::turn_request::TurnRequest;

/// The runs whose tools are kept for Continue and follow-ups: the newest, one per panel the
/// page can show. Older ones are dropped, ending their Python workers (each holds a Pyodide
/// of tens of megabytes); a run shown again later that goes on gets fresh tools.
const KEPT_TOOLS: usize = Mode::ALL.len();

thread_local! {
    static TOOLS: RefCell<VecDeque<(String, Rc<RunTools>)>> = RefCell::default();
}

/// How long the model in this browser may be silent: its first token waits for the whole
/// prompt to be read, at tens of tokens a second on a slow machine.
const IN_BROWSER_IDLE_SECS: u32 = 600;

/// The model the run `run_id` calls: the endpoint in the settings, or the one in this
/// browser (the panels waiting for it name the caller as `name`).
pub fn chat_model(
    settings: &Settings,
    token: &str,
    params: &ChatParams,
    signal: AbortSignal,
    (run_id, name): (&str, &str),
) -> BrowserChatModel {
    let in_browser = (settings.backend == Backend::Browser).then(|| InBrowser {
        url: settings.browser_model_url.trim().to_string(),
        context: settings.browser_context,
        caller: Caller {
            run_id: run_id.to_string(),
            mode: name.to_string(),
        },
    });
    BrowserChatModel {
        base_url: settings.base_url.clone(),
        // Nothing goes to an endpoint from a model in the page.
        token: if in_browser.is_some() {
            String::new()
        } else {
            token.to_string()
        },
        params: params.clone(),
        signal,
        idle_timeout_secs: if in_browser.is_some() {
            settings.stream_idle_timeout_secs.max(IN_BROWSER_IDLE_SECS)
        } else {
            settings.stream_idle_timeout_secs
        },
        max_stream_secs: settings.stream_max_secs,
        in_browser,
    }
}

/// One run's tools and the consent its servers' tools need (what the user allowed for the run,
/// where the last results came from).
pub struct RunTools {
    pub registry: Registry,
    pub gate: Rc<ConsentGate>,
    /// CodeAct's interpreter, for the run's programs (none in the other modes).
    pub python: Option<Rc<Interpreter>>,
}

impl RunTools {
    /// The run's toolbox for a turn whose questions `asker` answers, stopped by `signal`.
    pub fn for_turn(
        &self,
        asker: Asker,
        signal: AbortSignal,
    ) -> StoppableTools<ProgramTools<GatedTools<'_, Registry>>> {
        self.gate.set_asker(asker);
        self.gate.turn_begins();
        StoppableTools {
            tools: ProgramTools {
                tools: GatedTools {
                    tools: &self.registry,
                    gate: &self.gate,
                },
                python: self.python.clone(),
            },
            signal,
        }
    }
}

/// Each panel's run has its own tools: its own cache, Wikipedia page and Python worker; the
/// MCP tools `mode` may call share their servers' sessions. None of them is given the token.
/// The built-in tools are made at their first call, in their own chunk (`tool_chunk`); the MCP
/// tools are added by `mcp`, the MCP chunk's entries (none when no server was added).
pub fn run_tools(settings: &Settings, mode: Mode, mcp: Option<&McpEntries>) -> RunTools {
    let enabled = Registry::enabled_names(|name| settings.tool_enabled(mode, name));
    let load = tool_chunk::loader(
        enabled,
        settings.tool_endpoints.clone(),
        settings.python_timeout_secs,
    );
    let mut registry = Registry::deferred(
        |name| settings.tool_enabled(mode, name),
        load,
        args_chunk::loader(),
    );
    let gate = ConsentGate::new();
    if let Some(mcp) = mcp {
        (mcp.add_tools)(&mut registry, settings, mode, &gate);
    }
    let python = (mode == Mode::CodeAct)
        .then(|| Rc::new(Interpreter::new(settings.tool_endpoints.pyodide.clone())));
    RunTools {
        registry,
        gate,
        python,
    }
}

/// What a call of `model` sends besides the conversation.
pub fn chat_params(settings: &Settings, model: &str) -> ChatParams {
    ChatParams {
        model: model.trim().to_string(),
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
    }
}

/// The tools kept under `key`, or new ones kept from now on.
fn panel_tools(
    key: &str,
    settings: &Settings,
    mode: Mode,
    mcp: Option<&McpEntries>,
) -> Rc<RunTools> {
    TOOLS.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some((_, tools)) = kept.iter().find(|(k, _)| k == key) {
            return tools.clone();
        }
        let tools = Rc::new(run_tools(settings, mode, mcp));
        kept.push_back((key.to_string(), tools.clone()));
        if kept.len() > KEPT_TOOLS {
            kept.pop_front();
        }
        tools
    })
}

/// Runs the turn `request` asks for, reporting every event; stopped by `signal`. `asker`
/// answers the questions of calls that need the user's consent.
pub async fn run_request(
    request: TurnRequest,
    signal: AbortSignal,
    asker: Asker,
    emit: &mut dyn FnMut(AgentEvent),
) {
    let TurnRequest {
        record,
        next,
        settings,
        token,
        options,
        tools_key,
    } = request;
    let params = chat_params(&settings, &record.config.model);
    let model = chat_model(
        &settings,
        &token,
        &params,
        signal.clone(),
        (&record.id, &record.shown_name()),
    );
    // The MCP servers' tools are offered in the run's first request: their chunk comes first.
    let Ok(mcp) = mcp_chunk::entries_for(&settings).await else {
        emit(AgentEvent::Error(mcp_chunk::MCP_MISSING.into()));
        return;
    };
    let run_tools = panel_tools(&tools_key, &settings, record.config.mode, mcp);
    let _sandbox = SandboxEndsWithTurn(run_tools.python.clone());
    let tools = run_tools.for_turn(asker, signal);
    run_turn(record, next, &model, &tools, &options, emit).await;
}

/// CodeAct's sandbox ends with the turn, however it ends (answered, failed, or dropped by
/// Stop): nothing a program left running there (a timer, a task) outlives the run, and a
/// follow-up starts a fresh interpreter. The panel's other tools (their cache, its MCP
/// sessions) stay for the follow-up.
struct SandboxEndsWithTurn(Option<Rc<Interpreter>>);

impl Drop for SandboxEndsWithTurn {
    fn drop(&mut self) {
        if let Some(python) = &self.0 {
            python.end();
        }
    }
}
