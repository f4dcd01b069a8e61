//! A run's first turn set up from what the endpoint's model list says of its model: the price
//! and context window go into the run's configuration (a context window set in Settings wins),
//! and the protocol is chosen (Auto takes native tool calls only when the list says the model
//! supports them); the MCP servers' tools are named in it (read from the settings by the
//! caller: the page reads them in a chunk of their own, and only when servers were added).
//! The arena's panels and the Evaluate view's runs start the same way. It reads the settings, so it sits above the agent, which
//! runs what it set up.

use crate::agent::protocols::action_protocol::{ProtocolChoice, ProtocolPlan};
use crate::agent::record::RunConfig;
use crate::agent::run::RunOptions;
use crate::agent::turn::McpSource;
use crate::agent::Mode;
use crate::browser_model::Backend;
use crate::llm::models::{ModelFacts, Pricing};
use crate::settings::Settings;

/// Completes `config` with `facts` and `mcp_tools` (the MCP tools `mode` may call:
/// [`Settings::mcp_tools`]) and gives the options of the run's turns.
pub fn set_up_turn(
    config: &mut RunConfig,
    mode: Mode,
    settings: &Settings,
    facts: &ModelFacts,
    mcp_tools: Vec<McpSource>,
) -> RunOptions {
    config.pricing = facts.pricing;
    config.backend = settings.backend;
    config.edited_prompt = settings.prompts.get(mode).map(str::to_string);
    if settings.backend == Backend::Browser {
        // The model runs on the visitor's machine: nothing to pay, and its window is the one
        // the page loads it with.
        config.pricing = Some(Pricing {
            input: 0.0,
            output: 0.0,
        });
    }
    // The MCP servers' tools join the built-in ones here, in the engine's chunk: reading the
    // servers is not first-screen work.
    if mode.uses_tools() {
        config.mcp_tools = mcp_tools;
        config.tools = settings.offered_built_in_tools(mode);
        config
            .tools
            .extend(config.mcp_tools.iter().map(|s| s.tool.clone()));
    }
    // CodeAct's programs take Settings' Python time limit, as the python tool's calls do.
    config.program_secs = (mode == Mode::CodeAct).then_some(settings.python_timeout_secs);
    config.context_length = match settings.backend {
        Backend::Browser => Some(settings.browser_context),
        Backend::Endpoint => (settings.context_length > 0)
            .then_some(settings.context_length)
            .or(facts.context_length),
    };
    let supports = if mode.uses_tools() && settings.protocol == ProtocolChoice::Auto {
        facts.supports_tools
    } else {
        None
    };
    RunOptions {
        max_steps: settings.max_steps,
        plan: ProtocolPlan::resolve(settings.protocol, supports),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`set_up_turn`] with the MCP tools the settings give `mode`, as the page reads them.
    fn set_up(
        config: &mut RunConfig,
        mode: Mode,
        settings: &Settings,
        facts: &ModelFacts,
    ) -> RunOptions {
        set_up_turn(config, mode, settings, facts, settings.mcp_tools(mode))
    }
    use crate::agent::protocols::action_protocol::Protocol;
    use crate::llm::models::Pricing;

    fn facts(supports_tools: Option<bool>) -> ModelFacts {
        ModelFacts {
            pricing: Some(Pricing {
                input: 0.1,
                output: 0.5,
            }),
            context_length: Some(32_768),
            supports_tools,
        }
    }

    #[test]
    fn the_model_list_fills_in_price_and_context_and_auto_picks_native_only_if_told() {
        let settings = Settings {
            max_steps: 7,
            ..Settings::default()
        };
        assert_eq!(settings.protocol, ProtocolChoice::Auto);
        let mut config = RunConfig::default();
        let options = set_up(&mut config, Mode::ReAct, &settings, &facts(Some(true)));
        assert_eq!(config.pricing, facts(None).pricing);
        assert_eq!(config.context_length, Some(32_768));
        assert_eq!(options.max_steps, 7);
        assert_eq!(options.plan.protocol, Protocol::Native);
        assert!(options.plan.fall_back_to_text);

        for (mode, said) in [
            (Mode::ReAct, None),
            (Mode::ReAct, Some(false)),
            (Mode::Think, Some(true)),
        ] {
            let options = set_up(&mut RunConfig::default(), mode, &settings, &facts(said));
            assert_eq!(options.plan.protocol, Protocol::Text, "{mode:?} {said:?}");
        }
    }

    #[test]
    fn a_mode_s_edited_prompt_goes_into_its_run_and_only_its_own() {
        let mut settings = Settings::default();
        settings.prompts.set(Mode::Act, "Only tools.", "").unwrap();
        let settings = Settings::from_json(&settings.to_json());
        let mut act = RunConfig::default();
        set_up(&mut act, Mode::Act, &settings, &ModelFacts::default());
        assert_eq!(act.edited_prompt.as_deref(), Some("Only tools."));
        let mut react = RunConfig::default();
        set_up(&mut react, Mode::ReAct, &settings, &ModelFacts::default());
        assert_eq!(react.edited_prompt, None);
    }

    #[test]
    fn codeact_s_programs_take_settings_python_time_limit_and_the_record_keeps_it() {
        let settings = Settings {
            python_timeout_secs: 5,
            ..Settings::default()
        };
        let mut codeact = RunConfig::default();
        set_up(
            &mut codeact,
            Mode::CodeAct,
            &settings,
            &ModelFacts::default(),
        );
        assert_eq!(codeact.program_secs, Some(5));
        assert_eq!(codeact.program_limits().step_secs, 5);
        assert_eq!(codeact.program_limits().calls_per_step, 10);
        // Kept in the record: a follow-up or a replay reads the same limit.
        let kept: RunConfig =
            serde_json::from_str(&serde_json::to_string(&codeact).unwrap()).unwrap();
        assert_eq!(kept.program_limits().step_secs, 5);
        // Other modes run no programs; a run recorded before the limit was kept had 60 s.
        let mut react = RunConfig::default();
        set_up(&mut react, Mode::ReAct, &settings, &ModelFacts::default());
        assert_eq!(react.program_secs, None);
        let old: RunConfig = serde_json::from_str(r#"{"mode":"CodeAct"}"#).unwrap();
        assert_eq!(old.program_limits().step_secs, 60);
    }

    #[test]
    fn a_context_window_set_in_settings_wins_over_the_list() {
        let settings = Settings {
            context_length: 4_096,
            ..Settings::default()
        };
        let mut config = RunConfig::default();
        set_up(&mut config, Mode::Act, &settings, &ModelFacts::default());
        assert_eq!(config.context_length, Some(4_096));
        assert_eq!(config.pricing, None);
    }

    #[test]
    fn the_mcp_servers_tools_are_named_in_the_run_as_it_is_set_up() {
        use crate::mcp::client::Connected;
        let mut settings = Settings::default();
        let connected = Connected {
            version: "2025-11-25".into(),
            server_name: "Docs".into(),
            tools: vec![serde_json::json!({"name": "search_docs"})],
        };
        settings.put_mcp_server("", "https://mcp.test/mcp", &connected);
        settings.set_tool_enabled(Mode::Act, "python", false);
        let mut config = RunConfig {
            tools: settings.offered_built_in_tools(Mode::Act),
            ..RunConfig::default()
        };
        set_up(&mut config, Mode::Act, &settings, &facts(None));
        assert_eq!(
            config.tools,
            [
                "web_search",
                "wikipedia",
                "weather",
                "calculator",
                "search_docs"
            ]
        );
        assert_eq!(config.mcp_tools[0].url, "https://mcp.test/mcp");
        let mut think = RunConfig::default();
        set_up(&mut think, Mode::Think, &settings, &facts(None));
        assert!(think.tools.is_empty() && think.mcp_tools.is_empty());
    }
}
