//! Markdown from models and tools to HTML that is safe to insert: raw HTML is shown as text,
//! links with script-capable schemes lose their link, images are not loaded.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};

pub fn render_markdown(text: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut dropped_links = Vec::new(); // per open link: was it dropped?
    let mut image_links = Vec::new(); // per open image: is it shown as a link?
    let events = Parser::new_ext(text, options).flat_map(|ev| -> Vec<Event> {
        let one = |e| vec![e];
        match ev {
            Event::Html(raw) | Event::InlineHtml(raw) => one(Event::Text(raw)),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let unsafe_link = !is_safe_url(&dest_url);
                dropped_links.push(unsafe_link);
                if unsafe_link {
                    vec![]
                } else {
                    one(Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }))
                }
            }
            Event::End(TagEnd::Link) => {
                if dropped_links.pop().unwrap_or(false) {
                    vec![]
                } else {
                    one(Event::End(TagEnd::Link))
                }
            }
            // An image would be fetched by the browser on its own, possibly to leak data in its
            // URL: it becomes a placeholder naming the host, a link that opens it only on click.
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let label = Event::Text(CowStr::from(format!(
                    "[image from {}: ",
                    host_of(&dest_url)
                )));
                let linked = is_safe_url(&dest_url) && dest_url.contains("://");
                image_links.push(linked);
                if linked {
                    vec![
                        Event::Start(Tag::Link {
                            link_type,
                            dest_url,
                            title,
                            id,
                        }),
                        label,
                    ]
                } else {
                    vec![label]
                }
            }
            Event::End(TagEnd::Image) => {
                let close = Event::Text(CowStr::Borrowed("]"));
                if image_links.pop().unwrap_or(false) {
                    vec![close, Event::End(TagEnd::Link)]
                } else {
                    vec![close]
                }
            }
            other => one(other),
        }
    });
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    html::push_html(&mut out, events);
    // Every anchor here came from a markdown link (raw HTML was escaped): open them apart.
    out.replace(
        "<a href=",
        "<a target=\"_blank\" rel=\"noopener noreferrer\" href=",
    )
}

/// Only http(s), mailto and relative links are kept: an allowlist, whatever the scheme's length.
fn is_safe_url(url: &str) -> bool {
    // Browsers ignore whitespace and control characters inside a scheme ("java\tscript:").
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect();
    let lower = cleaned.to_ascii_lowercase();
    let Some(colon) = lower.find(':') else {
        return true; // no scheme: a relative link or fragment
    };
    let scheme = &lower[..colon];
    if scheme.contains(['/', '?', '#']) {
        return true; // the colon is past the path start: relative
    }
    matches!(scheme, "http" | "https" | "mailto")
}

fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() {
        "an unknown host".into()
    } else {
        host.chars().take(80).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_or_odd_schemes_lose_their_link() {
        for url in [
            "ms-settings-connectabledevices:x",
            "x-apple-systempreferences:x",
            "java\tscript:alert(1)",
        ] {
            let out = render_markdown(&format!("[a]({url})"));
            assert!(!out.contains("<a"), "{url}: {out}");
        }
        assert!(render_markdown("[a](https://example.org/a:b)").contains("<a "));
        assert!(render_markdown("[a](/docs/x:y)").contains("<a "));
    }

    #[test]
    fn images_become_placeholders_that_open_only_on_click() {
        let out = render_markdown("![chart](http://127.0.0.1:9/leak?d=secret)");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("[image from 127.0.0.1:9: chart]"), "{out}");
        assert!(out.contains("<a target=\"_blank\" rel=\"noopener noreferrer\" href=\"http://127.0.0.1:9/leak?d=secret\">"), "{out}");
        let out = render_markdown("![x](javascript:alert(1))");
        assert!(!out.contains("<a") && !out.contains("<img"), "{out}");
    }

    #[test]
    fn formats_markdown() {
        let h = render_markdown("**bold** and `code`\n\n- a\n- b");
        assert!(h.contains("<strong>bold</strong>"));
        assert!(h.contains("<code>code</code>"));
        assert!(h.contains("<li>a</li>"));
    }

    #[test]
    fn raw_html_is_text() {
        let h =
            render_markdown("<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)> there");
        assert!(!h.contains("<script"), "{h}");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("&lt;script&gt;"), "{h}");
        assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;"), "{h}");
    }

    #[test]
    fn dangerous_links_lose_their_href() {
        for url in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html,x",
            "vbscript:x",
        ] {
            let h = render_markdown(&format!("[click]({url})"));
            assert!(!h.contains("href"), "{url}: {h}");
            assert!(h.contains("click"));
        }
        let h = render_markdown("[ok](https://example.org/a)");
        assert!(h.contains(r#"<a target="_blank" rel="noopener noreferrer" href="https://example.org/a">ok</a>"#), "{h}");
    }

    #[test]
    fn images_are_not_loaded() {
        let h = render_markdown("![secret](http://127.0.0.1:9/leak?d=abc)");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("[image from 127.0.0.1:9: secret]"), "{h}");
    }
}
