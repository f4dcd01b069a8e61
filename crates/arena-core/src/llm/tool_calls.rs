//! Native tool calls: OpenAI streams them as `delta.tool_calls[{index, id, function: {name,
//! arguments}}]` fragments; the first fragment of a call carries its id and name, the rest
//! carry pieces of the JSON arguments. Joined here by `index`.

use serde::{Deserialize, Serialize};

/// One streamed fragment of a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCallDelta {
    pub index: usize,
    pub id: Option<String>,
    pub name: Option<String>,
    pub arguments: String,
}

/// A complete tool call, as sent back in the assistant message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// JSON text, as the model wrote it (possibly invalid: the caller reports that).
    pub arguments: String,
}

#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    calls: Vec<ToolCall>,
    /// Position in `calls` of each stream index, in order of first appearance.
    indexes: Vec<usize>,
}

impl ToolCallAssembler {
    pub fn push(&mut self, delta: &ToolCallDelta) {
        let slot = match self.indexes.iter().position(|&i| i == delta.index) {
            Some(slot) => slot,
            None => {
                self.indexes.push(delta.index);
                self.calls.push(ToolCall {
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[slot];
        if let Some(id) = delta.id.as_deref().filter(|id| !id.is_empty()) {
            call.id = id.to_string();
        }
        // Some servers repeat the name on every fragment, others split it: append only what is new.
        if let Some(name) = delta.name.as_deref() {
            if !call.name.ends_with(name) || call.name.is_empty() {
                call.name.push_str(name);
            }
        }
        call.arguments.push_str(&delta.arguments);
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls in index order; calls without an id get a stable one.
    pub fn finish(self) -> Vec<ToolCall> {
        let mut pairs: Vec<(usize, ToolCall)> = self.indexes.into_iter().zip(self.calls).collect();
        pairs.sort_by_key(|(i, _)| *i);
        pairs
            .into_iter()
            .map(|(i, mut call)| {
                if call.id.is_empty() {
                    call.id = format!("call_{i}");
                }
                call
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragment(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> ToolCallDelta {
        ToolCallDelta {
            index,
            id: id.map(str::to_string),
            name: name.map(str::to_string),
            arguments: args.to_string(),
        }
    }

    #[test]
    fn joins_interleaved_fragments_by_index() {
        let mut a = ToolCallAssembler::default();
        for d in [
            fragment(0, Some("call_a"), Some("weather"), ""),
            fragment(1, Some("call_b"), Some("calculator"), "{\"in"),
            fragment(0, None, None, "{\"input\":"),
            fragment(1, None, None, "put\":\"6*7\"}"),
            fragment(0, None, None, "\"Paris\"}"),
        ] {
            a.push(&d);
        }
        let calls = a.finish();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].id, "call_a");
        assert_eq!(calls[0].name, "weather");
        assert_eq!(calls[0].arguments, "{\"input\":\"Paris\"}");
        assert_eq!(calls[1].name, "calculator");
        assert_eq!(calls[1].arguments, "{\"input\":\"6*7\"}");
    }

    #[test]
    fn missing_ids_and_repeated_names() {
        let mut a = ToolCallAssembler::default();
        a.push(&fragment(3, None, Some("python"), "{}"));
        a.push(&fragment(3, None, Some("python"), ""));
        let calls = a.finish();
        assert_eq!(calls[0].id, "call_3");
        assert_eq!(calls[0].name, "python");
    }
}
