//! What this browser keeps of the user's secrets, and where, in the words Settings shows next
//! to Forget: the Hugging Face token, the MCP servers' tokens and the hosts the user confirmed
//! as places to send them. The storage is read at the edge; this only says it.

/// Where a secret is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// This tab's session storage: gone when the tab closes.
    Tab,
    /// This browser's local storage: kept until Forget.
    Device,
}

impl Place {
    fn words(self) -> &'static str {
        match self {
            Place::Tab => "this tab only",
            Place::Device => "on this device",
        }
    }
}

/// The secrets found in storage.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeptSecrets {
    pub hf_token: Option<Place>,
    /// How many MCP tokens, and where (they are kept together).
    pub mcp_tokens: Option<(usize, Place)>,
    /// The origins the user confirmed for either token (kept on this device).
    pub confirmed_hosts: Vec<String>,
}

/// Most hosts named; the rest are counted.
const NAMED_HOSTS: usize = 3;

impl KeptSecrets {
    /// One sentence: `Kept in this browser: the Hugging Face token (this tab only); 2 MCP
    /// tokens (on this device); confirmed hosts (on this device): https://a, https://b.`
    pub fn summary(&self) -> String {
        let mut kept = Vec::new();
        if let Some(place) = self.hf_token {
            kept.push(format!("the Hugging Face token ({})", place.words()));
        }
        match self.mcp_tokens {
            Some((1, place)) => kept.push(format!("1 MCP token ({})", place.words())),
            Some((n, place)) if n > 1 => kept.push(format!("{n} MCP tokens ({})", place.words())),
            _ => {}
        }
        if !self.confirmed_hosts.is_empty() {
            let mut named =
                self.confirmed_hosts[..self.confirmed_hosts.len().min(NAMED_HOSTS)].join(", ");
            let more = self.confirmed_hosts.len().saturating_sub(NAMED_HOSTS);
            if more > 0 {
                named.push_str(&format!(" and {more} more"));
            }
            kept.push(format!(
                "confirmed hosts ({}): {named}",
                Place::Device.words()
            ));
        }
        if kept.is_empty() {
            "This browser keeps no token and no confirmed host.".into()
        } else {
            format!(
                "Kept in this browser: {}. Forget clears them all.",
                kept.join("; ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_each_secret_and_where_it_is() {
        assert_eq!(
            KeptSecrets::default().summary(),
            "This browser keeps no token and no confirmed host."
        );
        let kept = KeptSecrets {
            hf_token: Some(Place::Tab),
            mcp_tokens: Some((2, Place::Device)),
            confirmed_hosts: [
                "https://a.test",
                "https://b.test",
                "https://c.test",
                "https://d.test",
            ]
            .map(String::from)
            .to_vec(),
        };
        assert_eq!(
            kept.summary(),
            "Kept in this browser: the Hugging Face token (this tab only); 2 MCP tokens (on this \
             device); confirmed hosts (on this device): https://a.test, https://b.test, \
             https://c.test and 1 more. Forget clears them all."
        );
        let one = KeptSecrets {
            mcp_tokens: Some((1, Place::Tab)),
            ..KeptSecrets::default()
        };
        assert_eq!(
            one.summary(),
            "Kept in this browser: 1 MCP token (this tab only). Forget clears them all."
        );
    }
}
