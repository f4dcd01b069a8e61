use crate::agent::Toolbox;

use super::{calculator::Calculator, Tool, ToolSpec};

/// The tools available to a run, in the order they are listed to the model.
pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
}

impl Registry {
    pub fn new(tools: Vec<Box<dyn Tool>>) -> Self {
        Self { tools }
    }

    /// Every tool this build has.
    pub fn standard() -> Self {
        Self::new(vec![Box::new(Calculator)])
    }

    fn find(&self, name: &str) -> Option<&dyn Tool> {
        let wanted = normalise_tool_name(name);
        self.tools
            .iter()
            .map(|t| t.as_ref())
            .find(|t| t.spec().name == wanted)
    }
}

/// Models write `Calculator`, `` `calculator` `` or `calculator tool`; all mean the same.
fn normalise_tool_name(name: &str) -> String {
    let n = name
        .trim()
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c == '*')
        .trim();
    let n = n.strip_suffix(" tool").unwrap_or(n);
    n.to_ascii_lowercase()
}

impl Toolbox for Registry {
    fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }

    async fn call(&self, name: &str, input: &str) -> Result<String, String> {
        match self.find(name) {
            Some(tool) => tool.call(input).await,
            None => {
                let names: Vec<&str> = self.tools.iter().map(|t| t.spec().name).collect();
                Err(format!(
                    "There is no tool named \"{}\". Available tools: {}.",
                    name.trim(),
                    names.join(", ")
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    #[test]
    fn finds_tools_by_loose_name_and_reports_unknown_ones() {
        let r = Registry::standard();
        assert_eq!(block_on(r.call("Calculator", "2+3")), Ok("5".into()));
        assert_eq!(block_on(r.call("`calculator`", "2*3")), Ok("6".into()));
        let err = block_on(r.call("search", "x")).unwrap_err();
        assert!(
            err.contains("no tool named \"search\"") && err.contains("calculator"),
            "{err}"
        );
    }
}
