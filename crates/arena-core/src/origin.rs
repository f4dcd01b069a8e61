//! The origin (scheme, host, port) of an http(s) URL, read the way a browser reads it, for the
//! decisions that depend on where a request goes: which host the token may be sent to, which
//! hosts count as this machine, and which links point back into the app.
//!
//! Anything a browser would read differently from a plain reading (whitespace or control
//! characters, backslashes, user names in the authority) is refused rather than guessed.

use std::fmt;

/// Hosts that are this machine, exactly as the page's Content-Security-Policy allows them over
/// plain http (`scripts/lib/csp.py` lists the same, and a browser test checks they agree).
/// `[::1]` is not among them: a CSP source cannot name an IPv6 address.
pub const LOCAL_HOSTS: [&str; 3] = ["localhost", "*.localhost", "127.0.0.1"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// `http` or `https`.
    pub scheme: String,
    /// Lower-cased; IPv6 addresses keep their brackets.
    pub host: String,
    /// `None` for the scheme's default port.
    pub port: Option<u16>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme, self.host)?;
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        Ok(())
    }
}

impl Origin {
    /// Reads an absolute http(s) URL; `None` for anything else or anything ambiguous.
    pub fn of(url: &str) -> Option<Origin> {
        if url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
        {
            return None;
        }
        let (scheme, rest) = url.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') || authority.is_empty() {
            return None;
        }
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => {
                let (address, after) = v6.split_once(']')?;
                let valid = !address.is_empty()
                    && address
                        .chars()
                        .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
                if !valid {
                    return None;
                }
                let port = match after {
                    "" => None,
                    _ => Some(after.strip_prefix(':')?),
                };
                (format!("[{}]", address.to_ascii_lowercase()), port)
            }
            None => {
                let (host, port) = match authority.split_once(':') {
                    Some((h, p)) => (h, Some(p)),
                    None => (authority, None),
                };
                let valid = !host.is_empty()
                    && host
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
                if !valid {
                    return None;
                }
                (host.to_ascii_lowercase(), port)
            }
        };
        let port = match port {
            None => None,
            Some(p) => {
                let n: u16 = p.parse().ok().filter(|_| !p.starts_with('+'))?;
                (n != default_port).then_some(n)
            }
        };
        Some(Origin { scheme, host, port })
    }

    /// This machine, as the page's policy allows it over plain http.
    pub fn is_local(&self) -> bool {
        self.host == "localhost" || self.host == "127.0.0.1" || self.host.ends_with(".localhost")
    }

    pub fn is_https(&self) -> bool {
        self.scheme == "https"
    }
}

/// `url` without its query and fragment (which can carry a key).
pub fn without_query(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or("")
}

/// Whether the page at `page_url` shares its origin with pages it does not control: a GitHub
/// Pages project site (`https://<owner>.github.io/<repo>/`) has the origin of every other
/// project site of that owner, and of the owner's own site, so any of them can read what
/// this page keeps in local storage and Cache Storage. A user or organisation site served at
/// its root, a custom domain or this machine has an origin of its own.
pub fn is_shared_origin(page_url: &str) -> bool {
    let Some(origin) = Origin::of(page_url) else {
        return false;
    };
    let owner = origin.host.strip_suffix(".github.io").unwrap_or("");
    if owner.is_empty() || owner.contains('.') {
        return false;
    }
    let after_host = page_url.split_once("://").map_or("", |(_, rest)| rest);
    let path = without_query(after_host.find('/').map_or("", |at| &after_host[at..]));
    // A folder below the root: `/<repo>/…`.
    path.trim_start_matches('/').contains('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(url: &str) -> String {
        Origin::of(url).map_or("-".into(), |o| o.to_string())
    }

    #[test]
    fn reads_the_origin_as_a_browser_does() {
        assert_eq!(
            origin("https://router.huggingface.co/v1"),
            "https://router.huggingface.co"
        );
        assert_eq!(
            origin("HTTPS://Router.HuggingFace.co:443/v1"),
            "https://router.huggingface.co"
        );
        assert_eq!(origin("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080");
        assert_eq!(origin("http://localhost:80"), "http://localhost");
        assert_eq!(origin("http://[::1]:8080/v1"), "http://[::1]:8080");
        assert_eq!(origin("https://x.org?q=1"), "https://x.org");
        assert_eq!(origin("https://x.org#f"), "https://x.org");
    }

    #[test]
    fn refuses_what_a_browser_might_read_otherwise() {
        for url in [
            "http://127.0.0.1@evil.example/v1",
            "http://evil.example@127.0.0.1/v1",
            "http://localhost\\@evil.example/",
            "http://local host/",
            "http://localhost\t.evil.example/",
            "http://evil.example:80@localhost/",
            "https://x.org:99999/",
            "https://x.org:+80/",
            "https://x.org:/",
            "https://[::1/",
            "https://[::1]x/",
            "https:///v1",
            "ftp://x.org/",
            "javascript://x.org/%0aalert(1)",
            "//x.org/v1",
            "/v1",
            "",
        ] {
            assert_eq!(Origin::of(url), None, "{url}");
        }
    }

    #[test]
    fn local_means_what_the_policy_allows() {
        for url in [
            "http://localhost:1/v1",
            "http://127.0.0.1/v1",
            "http://app.localhost/v1",
            "http://LOCALHOST:8/v1",
        ] {
            assert!(Origin::of(url).unwrap().is_local(), "{url}");
        }
        for url in [
            "https://router.huggingface.co/v1",
            "http://localhost.evil.com/v1",
            "http://127.0.0.1.nip.io/",
            "http://127.0.0.2/",
            "http://[::1]:8/v1",
            "http://localhost./v1",
        ] {
            assert!(!Origin::of(url).unwrap().is_local(), "{url}");
        }
    }

    #[test]
    fn a_github_pages_project_site_shares_its_origin() {
        for shared in [
            "https://o.github.io/repo/",
            "https://o.github.io/repo/index.html?embed=1#run=x",
            "https://Owner-1.GitHub.io/react-arena/",
            "http://o.github.io:8080/repo/",
        ] {
            assert!(is_shared_origin(shared), "{shared}");
        }
        for own in [
            "https://o.github.io/",
            "https://o.github.io",
            "https://o.github.io/index.html",
            "https://o.github.io/?q=a/b#run=c/d",
            "https://arena.example.org/repo/",
            "https://github.io/repo/",
            "https://a.b.github.io/repo/",
            "https://o.github.io.evil.test/repo/",
            "http://localhost:8080/repo/",
            "http://127.0.0.1:8080/",
            "not a url",
        ] {
            assert!(!is_shared_origin(own), "{own}");
        }
    }
}
