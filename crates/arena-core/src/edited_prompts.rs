//! The system prompts a user edited in Settings, one per mode. An edited prompt is sent exactly
//! as written, in place of the mode's own (in any protocol); the default
//! (`Settings::default_prompt`) is what Settings show to start from, and Reset goes back to it.

use serde::{Deserialize, Serialize};

use crate::agent::Mode;

/// Longer than any prompt a person writes; a stored one longer than this is dropped (the
/// settings may come from a file).
pub const MAX_PROMPT_CHARS: usize = 20_000;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EditedPrompts {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub react: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codeact: Option<String>,
}

impl EditedPrompts {
    pub fn get(&self, mode: Mode) -> Option<&str> {
        match mode {
            Mode::Think => self.think.as_deref(),
            Mode::Act => self.act.as_deref(),
            Mode::ReAct => self.react.as_deref(),
            Mode::CodeAct => self.codeact.as_deref(),
        }
    }

    /// Where `mode`'s edited prompt is kept.
    fn slot(&mut self, mode: Mode) -> &mut Option<String> {
        match mode {
            Mode::Think => &mut self.think,
            Mode::Act => &mut self.act,
            Mode::ReAct => &mut self.react,
            Mode::CodeAct => &mut self.codeact,
        }
    }

    /// Keeps `text` as the mode's prompt; the default itself (or nothing but spaces) is no
    /// edit. Too long a text is refused with the reason, and the previous prompt stays.
    pub fn set(&mut self, mode: Mode, text: &str, default: &str) -> Result<(), String> {
        let chars = text.chars().count();
        if chars > MAX_PROMPT_CHARS {
            return Err(format!(
                "The {} prompt is {chars} characters long; at most {MAX_PROMPT_CHARS} are kept. The previous prompt stays.",
                mode.label()
            ));
        }
        *self.slot(mode) = (!text.trim().is_empty() && text != default).then(|| text.to_string());
        Ok(())
    }

    pub fn reset(&mut self, mode: Mode) {
        *self.slot(mode) = None;
    }

    /// Drops what no editor could have stored: empty or over-long prompts.
    pub fn clamped(mut self) -> Self {
        for mode in Mode::ALL {
            let slot = self.slot(mode);
            if slot
                .as_ref()
                .is_some_and(|t| t.trim().is_empty() || t.chars().count() > MAX_PROMPT_CHARS)
            {
                *slot = None;
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    fn default_prompt(settings: &Settings, mode: Mode) -> String {
        settings.default_prompt(mode)
    }

    #[test]
    fn an_edit_is_kept_as_written_and_the_default_or_blank_is_no_edit() {
        let settings = Settings::default();
        let default = default_prompt(&settings, Mode::ReAct);
        assert!(default.contains("- calculator:"), "{default}");
        let mut prompts = EditedPrompts::default();
        prompts.set(Mode::ReAct, "  Be brief.\n", &default).unwrap();
        assert_eq!(prompts.get(Mode::ReAct), Some("  Be brief.\n"));
        assert_eq!(prompts.get(Mode::Act), None);
        prompts.set(Mode::ReAct, &default, &default).unwrap();
        assert_eq!(prompts.get(Mode::ReAct), None);
        prompts.set(Mode::Think, " \n ", "x").unwrap();
        assert_eq!(prompts.get(Mode::Think), None);
        prompts.set(Mode::Act, "mine", "x").unwrap();
        prompts.reset(Mode::Act);
        assert_eq!(prompts, EditedPrompts::default());
    }

    #[test]
    fn codeact_s_prompt_is_its_own_lists_the_functions_a_run_defines_and_is_editable() {
        use crate::agent::protocols::code_action::python_signatures;
        use crate::tools::{calculator::Calculator, typed};
        let mut settings = Settings::default();
        let default = default_prompt(&settings, Mode::CodeAct);
        assert!(
            default.starts_with(Mode::CodeAct.prompt_heading()),
            "{default}"
        );
        // The calculator as a run's program gets it: the same signature and docstring,
        // parameters included. The python tool is not among them (a program is Python).
        let calculator = python_signatures(&[typed(Calculator).spec()]);
        let calculator = calculator.split("def final_answer").next().unwrap();
        assert!(
            calculator.contains("def calculator(input: str)"),
            "{calculator}"
        );
        assert!(default.contains(calculator), "{default}");
        assert!(!default.contains("def python("), "{default}");
        // Its own tools: off in CodeAct, still on in ReAct.
        settings.set_tool_enabled(Mode::CodeAct, "calculator", false);
        assert!(!default_prompt(&settings, Mode::CodeAct).contains("def calculator("));
        assert!(default_prompt(&settings, Mode::ReAct).contains("- calculator:"));
        let mut prompts = EditedPrompts::default();
        prompts.set(Mode::CodeAct, "mine", &default).unwrap();
        assert_eq!(prompts.get(Mode::CodeAct), Some("mine"));
        assert_eq!(prompts.get(Mode::ReAct), None);
        prompts.reset(Mode::CodeAct);
        assert_eq!(prompts, EditedPrompts::default());
    }

    #[test]
    fn the_default_lists_only_the_tools_the_mode_may_call() {
        let mut settings = Settings::default();
        settings.set_tool_enabled(Mode::Act, "python", false);
        assert!(!default_prompt(&settings, Mode::Act).contains("- python:"));
        assert!(default_prompt(&settings, Mode::ReAct).contains("- python:"));
        assert!(!default_prompt(&settings, Mode::Think).contains("Available tools"));
    }

    #[test]
    fn too_long_a_prompt_is_refused_and_a_stored_one_dropped() {
        let mut prompts = EditedPrompts::default();
        prompts.set(Mode::Think, "short", "").unwrap();
        let long = "x".repeat(MAX_PROMPT_CHARS + 1);
        let refused = prompts.set(Mode::Think, &long, "").unwrap_err();
        assert!(refused.contains("20001 characters"), "{refused}");
        assert_eq!(prompts.get(Mode::Think), Some("short"));
        let stored = EditedPrompts {
            act: Some(long),
            react: Some("   ".into()),
            ..EditedPrompts::default()
        };
        assert_eq!(stored.clamped(), EditedPrompts::default());
    }
}
