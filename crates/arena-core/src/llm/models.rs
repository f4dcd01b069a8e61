//! The endpoint's model list (`GET {base}/models`), read into what the app uses: ids to pick
//! from, and per model the price, context window and tool support. The Hugging Face router
//! lists providers per model (`providers: [{provider, status, context_length, pricing {input,
//! output} in USD per million tokens, supports_tools, first_token_latency_ms, throughput}]`,
//! huggingface/hub-docs `docs/inference-providers/`); OpenAI-compatible servers such as
//! llama.cpp list bare ids. A model id may end in `:provider`, `:fastest` or `:cheapest`.

use serde::{Deserialize, Serialize};

/// Price of a model at a provider, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Pricing {
    pub input: f64,
    pub output: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ProviderInfo {
    pub provider: String,
    pub status: Option<String>,
    pub context_length: Option<u32>,
    pub pricing: Option<Pricing>,
    pub supports_tools: Option<bool>,
    pub first_token_latency_ms: Option<f64>,
    /// Tokens per second.
    pub throughput: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ModelEntry {
    pub id: String,
    pub context_length: Option<u32>,
    pub pricing: Option<Pricing>,
    pub supports_tools: Option<bool>,
    pub providers: Vec<ProviderInfo>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ModelList {
    pub data: Vec<ModelEntry>,
}

/// What is known of one model id (with its suffix) at this endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelFacts {
    pub pricing: Option<Pricing>,
    pub context_length: Option<u32>,
    pub supports_tools: Option<bool>,
}

impl ModelList {
    /// Reads a `/models` answer; entries that are not objects with an id are skipped.
    pub fn parse(json: &str) -> Option<ModelList> {
        let value: serde_json::Value = serde_json::from_str(json).ok()?;
        let data = value.get("data")?.as_array()?;
        Some(ModelList {
            data: data
                .iter()
                .filter_map(|m| serde_json::from_value::<ModelEntry>(m.clone()).ok())
                .filter(|m| !m.id.is_empty())
                .collect(),
        })
    }

    pub fn ids(&self) -> Vec<String> {
        self.data.iter().map(|m| m.id.clone()).collect()
    }

    /// The facts of `model`, with the provider its suffix picks: a named provider, the
    /// `:fastest` (highest throughput) or `:cheapest` (lowest input + output price) live one.
    /// Without a suffix the router picks: facts are given only where every live provider
    /// agrees (tools: any supports them, as the router then routes to one that does).
    pub fn facts(&self, model: &str) -> Option<ModelFacts> {
        let (id, suffix) = match model.trim().split_once(':') {
            Some((id, suffix)) => (id, Some(suffix)),
            None => (model.trim(), None),
        };
        let entry = self.data.iter().find(|m| m.id == id)?;
        let own = ModelFacts {
            pricing: entry.pricing,
            context_length: entry.context_length,
            supports_tools: entry.supports_tools,
        };
        let live: Vec<&ProviderInfo> = entry
            .providers
            .iter()
            .filter(|p| p.status.as_deref().is_none_or(|s| s == "live"))
            .collect();
        if live.is_empty() {
            return Some(own);
        }
        let pick = match suffix {
            Some("fastest") => live
                .iter()
                .filter(|p| p.throughput.is_some())
                .max_by(|a, b| a.throughput.partial_cmp(&b.throughput).unwrap())
                .copied(),
            Some("cheapest") => live
                .iter()
                .filter_map(|p| p.pricing.map(|pr| (p, pr.input + pr.output)))
                .min_by(|a, b| a.1.partial_cmp(&b.1).unwrap())
                .map(|(p, _)| *p),
            Some(name) => entry.providers.iter().find(|p| p.provider == name),
            None => None,
        };
        if let Some(p) = pick {
            return Some(ModelFacts {
                pricing: p.pricing.or(own.pricing),
                context_length: p.context_length.or(own.context_length),
                supports_tools: p.supports_tools.or(own.supports_tools),
            });
        }
        let agreed = |values: Vec<Option<Pricing>>| -> Option<Pricing> {
            let first = (*values.first()?)?;
            values.iter().all(|v| *v == Some(first)).then_some(first)
        };
        let tools: Vec<bool> = live.iter().filter_map(|p| p.supports_tools).collect();
        Some(ModelFacts {
            pricing: own
                .pricing
                .or_else(|| agreed(live.iter().map(|p| p.pricing).collect())),
            // The smallest window is the one the conversation surely fits.
            context_length: own
                .context_length
                .or_else(|| live.iter().filter_map(|p| p.context_length).min()),
            supports_tools: own
                .supports_tools
                .or_else(|| (!tools.is_empty()).then(|| tools.iter().any(|t| *t))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaped as the router's `/v1/models` documents it (values made up).
    const ROUTER: &str = r#"{"object":"list","data":[
        {"id":"openai/gpt-oss-20b","object":"model","owned_by":"openai","providers":[
            {"provider":"groq","status":"live","context_length":131072,"pricing":{"input":0.1,"output":0.5},"supports_tools":true,"first_token_latency_ms":120,"throughput":900},
            {"provider":"novita","status":"live","context_length":65536,"pricing":{"input":0.05,"output":0.2},"supports_tools":false,"throughput":80},
            {"provider":"old","status":"offline","pricing":{"input":0.0,"output":0.0},"throughput":5000}]},
        {"id":"same/price","providers":[
            {"provider":"a","status":"live","pricing":{"input":1.0,"output":2.0}},
            {"provider":"b","status":"live","pricing":{"input":1.0,"output":2.0}}]},
        {"id":"local","object":"model","context_length":4096},
        {"object":"model"},
        "not an object"
    ]}"#;

    #[test]
    fn tool_support_as_the_list_says_or_unknown() {
        let list = ModelList::parse(
            r#"{"data":[
                {"id":"base/model","providers":[{"provider":"x","supports_tools":false}]},
                {"id":"flagged","supports_tools":true},
                {"id":"bare","object":"model"}]}"#,
        )
        .unwrap();
        let tools = |m: &str| list.facts(m).and_then(|f| f.supports_tools);
        assert_eq!(tools("base/model"), Some(false));
        assert_eq!(tools("flagged"), Some(true));
        assert_eq!(
            tools("bare"),
            None,
            "llama.cpp lists models without the flag"
        );
        let router = ModelList::parse(ROUTER).unwrap();
        assert_eq!(
            router
                .facts("openai/gpt-oss-20b:novita")
                .unwrap()
                .supports_tools,
            Some(false)
        );
    }

    #[test]
    fn lists_ids_and_skips_what_is_not_a_model() {
        let list = ModelList::parse(ROUTER).unwrap();
        assert_eq!(list.ids(), ["openai/gpt-oss-20b", "same/price", "local"]);
        assert_eq!(ModelList::parse("{}"), None);
        assert_eq!(ModelList::parse("<html>"), None);
    }

    #[test]
    fn a_suffix_picks_the_provider() {
        let list = ModelList::parse(ROUTER).unwrap();
        let groq = list.facts("openai/gpt-oss-20b:groq").unwrap();
        assert_eq!(
            groq.pricing,
            Some(Pricing {
                input: 0.1,
                output: 0.5
            })
        );
        assert_eq!(
            (groq.context_length, groq.supports_tools),
            (Some(131072), Some(true))
        );
        let fastest = list.facts("openai/gpt-oss-20b:fastest").unwrap();
        assert_eq!(
            fastest.context_length,
            Some(131072),
            "offline providers do not count"
        );
        let cheapest = list.facts("openai/gpt-oss-20b:cheapest").unwrap();
        assert_eq!(
            cheapest.pricing,
            Some(Pricing {
                input: 0.05,
                output: 0.2
            })
        );
    }

    #[test]
    fn without_a_suffix_only_what_every_live_provider_agrees_on() {
        let list = ModelList::parse(ROUTER).unwrap();
        let any = list.facts("openai/gpt-oss-20b").unwrap();
        assert_eq!(
            any.pricing, None,
            "the price depends on the provider picked"
        );
        assert_eq!(any.context_length, Some(65536), "the smallest window");
        assert_eq!(any.supports_tools, Some(true));
        assert_eq!(
            list.facts("same/price").unwrap().pricing,
            Some(Pricing {
                input: 1.0,
                output: 2.0
            })
        );
        assert_eq!(list.facts("local").unwrap().context_length, Some(4096));
        assert_eq!(list.facts("unknown/model"), None);
    }
}
