//! The origin (scheme, host, port) of an http(s) URL, read the way a browser reads it, for the
//! decisions that depend on where a request goes: which host the token may be sent to, which
//! hosts count as this machine, and which links point back into the app.
//!
//! Anything a browser would read differently from a plain reading (whitespace or control
//! characters, backslashes, user names in the authority, an IPv4 address written otherwise
//! than as four decimal numbers) is refused rather than guessed. `tests/origin_reference.rs`
//! holds it to the `url` crate, which reads URLs as browsers do.

use std::fmt;

/// Hosts that are this machine, exactly as the page's Content-Security-Policy allows them over
/// plain http (`scripts/lib/csp.py` lists the same, and a browser test checks they agree).
/// `[::1]` is not among them: a CSP source cannot name an IPv6 address.
pub const LOCAL_HOSTS: [&str; 3] = ["localhost", "*.localhost", "127.0.0.1"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// `http` or `https`.
    pub scheme: String,
    /// Lower-cased; an IPv6 address in brackets, written as a browser writes it (`[::1]`).
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
                let address = ipv6_pieces(address)?;
                let port = match after {
                    "" => None,
                    _ => Some(after.strip_prefix(':')?),
                };
                (format!("[{}]", ipv6_text(address)), port)
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
                let host = host.to_ascii_lowercase();
                // A host ending in a number is an IPv4 address to a browser, which reads
                // `127.1`, `0x7f.0.0.1` or `2130706433` as 127.0.0.1: only four decimal numbers
                // are taken as they are written.
                if !valid || (ends_in_a_number(&host) && ipv4_bytes(&host).is_none()) {
                    return None;
                }
                (host, port)
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

/// The URL standard's "ends in a number": the last label (a final dot aside) is decimal
/// digits or `0x` and hex digits, so a browser reads the host as an IPv4 address.
fn ends_in_a_number(host: &str) -> bool {
    let host = host
        .strip_suffix('.')
        .filter(|h| !h.is_empty())
        .unwrap_or(host);
    let last = host.rsplit('.').next().unwrap_or("");
    let hex = last
        .strip_prefix("0x")
        .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    hex || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()))
}

/// Four decimal numbers of 0 to 255, each written as a browser writes it (no leading zero):
/// the one IPv4 form taken as written. (By hand: the standard library's address parsers cost
/// the first screen 1.8 KB gzip.)
fn ipv4_bytes(text: &str) -> Option<[u8; 4]> {
    let mut bytes = [0u8; 4];
    let mut numbers = text.split('.');
    for byte in &mut bytes {
        let number = numbers.next()?;
        let plain = !number.is_empty()
            && number.len() <= 3
            && number.bytes().all(|b| b.is_ascii_digit())
            && (number == "0" || !number.starts_with('0'));
        *byte = number.parse().ok().filter(|_| plain)?;
    }
    numbers.next().is_none().then_some(bytes)
}

/// The eight pieces of an IPv6 address written in brackets: hex pieces of one to four digits,
/// at most one `::` standing for at least one zero piece, and a dotted IPv4 address as the
/// last two pieces if any. `None` for anything else.
fn ipv6_pieces(text: &str) -> Option<[u16; 8]> {
    let side = |part: &str, may_end_in_v4: bool| -> Option<Vec<u16>> {
        let mut pieces = Vec::new();
        if part.is_empty() {
            return Some(pieces);
        }
        let groups: Vec<&str> = part.split(':').collect();
        for (i, group) in groups.iter().enumerate() {
            if may_end_in_v4 && i + 1 == groups.len() && group.contains('.') {
                let [a, b, c, d] = ipv4_bytes(group)?;
                pieces.extend([u16::from_be_bytes([a, b]), u16::from_be_bytes([c, d])]);
            } else if (1..=4).contains(&group.len()) && group.bytes().all(|b| b.is_ascii_hexdigit())
            {
                pieces.push(u16::from_str_radix(group, 16).ok()?);
            } else {
                return None;
            }
        }
        Some(pieces)
    };
    let mut pieces = [0u16; 8];
    match text.split_once("::") {
        None => {
            let all = side(text, true)?;
            if all.len() != 8 {
                return None;
            }
            pieces.copy_from_slice(&all);
        }
        Some((head, tail)) => {
            let (head, tail) = (side(head, false)?, side(tail, true)?);
            if head.len() + tail.len() > 7 {
                return None;
            }
            pieces[..head.len()].copy_from_slice(&head);
            pieces[8 - tail.len()..].copy_from_slice(&tail);
        }
    }
    Some(pieces)
}

/// An IPv6 address as a browser writes it (the URL standard's serializer): hex pieces in lower
/// case, the first longest run of two or more zero pieces as `::`, no dotted IPv4 part.
fn ipv6_text(pieces: [u16; 8]) -> String {
    let mut longest: Option<(usize, usize)> = None;
    let mut run_start = None;
    for i in 0..=pieces.len() {
        if i < pieces.len() && pieces[i] == 0 {
            run_start.get_or_insert(i);
        } else if let Some(start) = run_start.take() {
            let len = i - start;
            if len >= 2 && longest.is_none_or(|(_, l)| len > l) {
                longest = Some((start, len));
            }
        }
    }
    let mut text = String::new();
    let mut i = 0;
    while i < pieces.len() {
        if let Some((start, len)) = longest.filter(|&(start, _)| start == i) {
            text.push_str(if start == 0 { "::" } else { ":" });
            i += len;
            continue;
        }
        text.push_str(&format!("{:x}", pieces[i]));
        if i + 1 < pieces.len() {
            text.push(':');
        }
        i += 1;
    }
    text
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
    fn an_ip_address_is_read_as_a_browser_writes_it_or_refused() {
        // IPv6: any way of writing it, written back the one way a browser does (the longest
        // run of zeros as `::`, lower case, the last 32 bits in hex).
        assert_eq!(origin("http://[0:0::1]/"), "http://[::1]");
        assert_eq!(
            origin("http://[0:0:0:0:0:0:0:1]:8080/"),
            "http://[::1]:8080"
        );
        assert_eq!(origin("http://[FE80::01]/"), "http://[fe80::1]");
        assert_eq!(origin("http://[1:0:0:2:0:0:0:3]/"), "http://[1:0:0:2::3]");
        assert_eq!(
            origin("http://[::ffff:127.0.0.1]/"),
            "http://[::ffff:7f00:1]"
        );
        assert_eq!(origin("http://[::]/"), "http://[::]");
        // IPv4: four decimal numbers, as written; any other way of writing one (a browser
        // reads `127.1` and `0x7f.0.0.1` as 127.0.0.1) or a number that is none, refused.
        assert_eq!(origin("http://10.0.0.255:8/"), "http://10.0.0.255:8");
        for url in [
            "http://[1:2]/",
            "http://[1::2::3]/",
            "http://[:::]/",
            "http://[::ffff:127.0.0.01]/",
            "http://127.1/",
            "http://0x7f.0.0.1/",
            "http://0177.0.0.1/",
            "http://2130706433/",
            "http://127.0.0.1./",
            "http://256.0.0.1/",
            "http://1.2.3.4.5/",
            "http://example.123/",
            "http://example.0x1/",
            "http://0x/",
        ] {
            assert_eq!(Origin::of(url), None, "{url}");
        }
        // A name whose last label only starts with digits is a name.
        assert_eq!(origin("http://example.1a/"), "http://example.1a");
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
