//! Search snippets' HTML as plain text.

use crate::tools::observation::squash_whitespace;

/// Snippet HTML to plain text: tags dropped (search matches are `<span>`s), entities decoded
/// once (so an escaped `&lt;i&gt;` stays visible text), whitespace squashed.
pub fn strip_html(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        text.push_str(&rest[..lt]);
        match rest[lt..].find('>') {
            Some(gt) => rest = &rest[lt + gt + 1..],
            None => {
                // An unclosed `<` is not a tag: keep it as text.
                text.push_str(&rest[lt..]);
                rest = "";
            }
        }
    }
    text.push_str(rest);
    squash_whitespace(&decode_entities(&text))
}

pub(super) fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let decoded = after
            .find(';')
            .filter(|&semi| semi <= 10)
            .and_then(|semi| decode_entity(&after[..semi]).map(|c| (c, semi)));
        match decoded {
            Some((c, semi)) => {
                out.push(c);
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub(super) fn decode_entity(name: &str) -> Option<char> {
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code).filter(|c| !c.is_control() || c.is_whitespace())?
        }
    };
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_snippets_become_plain_text() {
        assert_eq!(
            strip_html("<span class=\"searchmatch\">Ça</span>  va &amp;amp; &#39;x&#x27; &#8212; 1 &lt; 2 &bogus; &#0; a & b <unclosed"),
            "Ça va &amp; 'x' — 1 < 2 &bogus; &#0; a & b <unclosed"
        );
    }
}
