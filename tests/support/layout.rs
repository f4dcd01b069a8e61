//! The layout check: the page as drawn at 360, 768, 1280 and 1920 px wide, in light and in
//! dark, read from the browser's own boxes. It finds what a reader of the text alone misses:
//! controls, fieldsets or table cells that overlap (text included), text its box clips or lets
//! run out, a page that scrolls sideways, and controls smaller than 24 × 24 px (WCAG 2.2's
//! target size, with its exception for links inside a sentence).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use serde_json::json;

use super::browser::Rig;
use super::cdp::{cdp, emulate_color_scheme};

/// Widths a user reaches the page at: a phone, a tablet, a laptop, a desktop. Each with a
/// height such a screen has.
pub const SCREENS: [(u32, u32); 4] = [(360, 740), (768, 1024), (1280, 900), (1920, 1080)];
pub const THEMES: [&str; 2] = ["light", "dark"];
/// Widths whose screenshots are kept (target/e2e/layout/<view>-<width>-<theme>.png).
const SCREENSHOT_WIDTHS: [u32; 2] = [360, 1280];

/// Runs in the page. Returns one line per problem found, each naming the elements.
const CHECK: &str = r#"
const MIN_TARGET = 24, SLACK = 1.5;
const found = [];
const modal = document.querySelector('dialog[open]:modal');
const scope = modal || document.body;
const styles = new Map();
const css = el => { let s = styles.get(el); if (!s) { s = getComputedStyle(el); styles.set(el, s); } return s; };
const name = el => {
  let n = el.tagName.toLowerCase();
  if (el.id) n += '#' + el.id;
  for (const c of Array.from(el.classList).slice(0, 2)) n += '.' + c;
  for (const a of ['data-mode', 'data-label', 'type']) if (el.hasAttribute(a)) n += `[${a}=${el.getAttribute(a)}]`;
  const words = (el.getAttribute('aria-label') || el.innerText || el.value || '').replace(/\s+/g, ' ').trim();
  if (words) n += ` "${words.length > 32 ? words.slice(0, 31) + '…' : words}"`;
  const home = el.parentElement && el.parentElement.closest('[id]');
  if (home && !el.id) n += ` in #${home.id}`;
  return n;
};
const shown = el => el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
const clips = s => s.overflowX !== 'visible' || s.overflowY !== 'visible';
const scrolls = v => v === 'auto' || v === 'scroll';
// The part of a box left visible by the ancestors that clip it (for text, its own element
// too); whether a scroller clipped it.
const visible = (r, el, own = false) => {
  const box = { l: r.left, t: r.top, r: r.right, b: r.bottom, scrolled: false, clippedBy: null };
  for (let a = el; a && a !== document.documentElement && a !== document.body; a = a.parentElement) {
    const s = css(a);
    if ((own || a !== el) && clips(s)) {
      const ar = a.getBoundingClientRect();
      const l = ar.left + a.clientLeft, t = ar.top + a.clientTop;
      const cut = { l: Math.max(box.l, l), r: Math.min(box.r, l + a.clientWidth),
                    t: Math.max(box.t, t), b: Math.min(box.b, t + a.clientHeight) };
      if (s.overflowX === 'visible') { cut.l = box.l; cut.r = box.r; }
      if (s.overflowY === 'visible') { cut.t = box.t; cut.b = box.b; }
      const lost = (box.l - cut.l) < -SLACK || (box.r - cut.r) > SLACK || (box.t - cut.t) < -SLACK || (box.b - cut.b) > SLACK;
      if (lost) {
        if (scrolls(s.overflowX) || scrolls(s.overflowY)) box.scrolled = true;
        else if (!box.clippedBy) box.clippedBy = a;
      }
      Object.assign(box, cut);
    }
    if (s.position === 'fixed') break;
  }
  return box;
};
const area = b => Math.max(0, b.r - b.l) * Math.max(0, b.b - b.t);
const overlap = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > SLACK && Math.min(a.b, b.b) - Math.max(a.t, b.t) > SLACK;
// A layer of its own: fixed and sticky boxes, and a button floating over a scrolling region
// (its text scrolls out from under it, as "Jump to latest" over a streaming panel).
const overScroller = el => {
  if (css(el).position !== 'absolute' || !el.offsetParent) return false;
  return Array.from(el.offsetParent.querySelectorAll('*')).some(x => !el.contains(x) && scrolls(css(x).overflowY) && x.scrollHeight > x.clientHeight);
};
const floating = el => {
  for (let a = el; a; a = a.parentElement) {
    const p = css(a).position;
    if (p === 'fixed' || p === 'sticky' || (p === 'absolute' && overScroller(a))) return true;
  }
  return false;
};

// Boxes: controls, fieldsets and table cells. A label holding an invisible file input is
// what a user clicks.
const CONTROLS = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex="-1"]), label:has(> input[type=file])';
// A box of a pixel or so hides its content on purpose (text for screen readers only).
const tiny = el => el.clientWidth * el.clientHeight <= 4;
const boxes = [];
for (const el of scope.querySelectorAll(CONTROLS + ', fieldset, td, th')) {
  if (!shown(el)) continue;
  // An inline box (a link in a sentence) is one box per line it runs on.
  const rects = css(el).display === 'inline' ? Array.from(el.getClientRects()) : [el.getBoundingClientRect()];
  for (const r of rects) {
    if (r.width * r.height <= 4) continue;
    const b = visible(r, el);
    // Cut by a box that does not scroll: that part cannot be reached at all.
    if (b.clippedBy && !tiny(b.clippedBy) && el.matches(CONTROLS)) found.push(`control cut off: ${name(el)} by ${name(b.clippedBy)}`);
    if (area(b) <= 4) continue;
    boxes.push({ el, b, control: el.matches(CONTROLS), float: floating(el) });
  }
}

// Text, line by line, with the block that holds it.
const texts = [];
const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
const range = document.createRange();
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (!node.data.trim()) continue;
  const parent = node.parentElement;
  if (!parent || parent.closest('script, style, textarea, select, option, noscript') || !shown(parent)) continue;
  let owner = parent;
  while (owner !== scope && ['inline', 'contents'].includes(css(owner).display)) owner = owner.parentElement;
  range.selectNodeContents(node);
  for (const r of range.getClientRects()) {
    if (r.width < 1 || r.height < 1) continue;
    const b = visible(r, parent, true);
    texts.push({ node, parent, owner, r, b, float: floating(parent) });
  }
}

// 1. The page scrolls sideways.
const width = document.documentElement.clientWidth;
if (document.documentElement.scrollWidth > width + 1) {
  const wide = [];
  for (const el of scope.querySelectorAll('*')) {
    if (!shown(el)) continue;
    const b = visible(el.getBoundingClientRect(), el);
    if (b.r > width + 1 && area(b) > 0 && !(el.parentElement && visible(el.parentElement.getBoundingClientRect(), el.parentElement).r > width + 1)) wide.push(`${name(el)} (to ${Math.round(b.r)} px)`);
  }
  found.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px wide): ${wide.slice(0, 6).join('; ')}`);
}

// 2. Boxes that overlap (neither holding the other).
const related = (a, b) => a.contains(b) || b.contains(a);
const sorted = boxes.slice().sort((x, y) => x.b.t - y.b.t);
for (let i = 0; i < sorted.length; i++) {
  for (let j = i + 1; j < sorted.length && sorted[j].b.t < sorted[i].b.b; j++) {
    const x = sorted[i], y = sorted[j];
    if (x.float !== y.float || related(x.el, y.el) || !overlap(x.b, y.b)) continue;
    found.push(`overlap: ${name(x.el)} and ${name(y.el)}`);
  }
}

// 3. Text over a box it is not part of, or over other text.
for (const t of texts) {
  if (area(t.b) <= 1) continue;
  for (const x of boxes) {
    // A box's own text (a legend on its fieldset's border, a cell's words) is in it.
    if (x.float !== t.float || x.el.contains(t.node) || !overlap(x.b, t.b)) continue;
    found.push(`text over a box: "${t.node.data.trim().slice(0, 30)}" (${name(t.parent)}) over ${name(x.el)}`);
  }
}
const textsByTop = texts.filter(t => area(t.b) > 1).sort((x, y) => x.b.t - y.b.t);
for (let i = 0; i < textsByTop.length; i++) {
  for (let j = i + 1; j < textsByTop.length && textsByTop[j].b.t < textsByTop[i].b.b - SLACK; j++) {
    const x = textsByTop[i], y = textsByTop[j];
    if (x.node === y.node || x.float !== y.float || !overlap(x.b, y.b)) continue;
    found.push(`text over text: "${x.node.data.trim().slice(0, 30)}" (${name(x.parent)}) and "${y.node.data.trim().slice(0, 30)}" (${name(y.parent)})`);
  }
}

// 4. Text clipped by its box, or running out of it.
const seen = new Set();
for (const t of texts) {
  if (seen.has(t.node)) continue;
  if (t.b.clippedBy) {
    // Text hidden on purpose is not clipped text.
    if (tiny(t.b.clippedBy)) continue;
    seen.add(t.node);
    const ellipsis = css(t.b.clippedBy).textOverflow === 'ellipsis' ? ' (cut with an ellipsis)' : '';
    found.push(`text clipped: "${t.node.data.trim().slice(0, 40)}" by ${name(t.b.clippedBy)}${ellipsis}`);
    continue;
  }
  // Text in a scroller is reached by scrolling; a drawing's text is placed by its coordinates.
  if (t.b.scrolled || t.parent.closest('svg')) continue;
  const o = t.owner.getBoundingClientRect();
  const l = o.left + t.owner.clientLeft, r = l + (t.owner.clientWidth || o.width);
  // White space at a wrap hangs past the edge, unseen, in text that keeps its spaces.
  const hanging = ['pre-wrap', 'break-spaces'].includes(css(t.parent).whiteSpace) ? parseFloat(css(t.parent).fontSize) / 2 : 0;
  if (t.r.right > r + SLACK + hanging || t.r.left < l - SLACK) {
    seen.add(t.node);
    found.push(`text runs out of its box: "${t.node.data.trim().slice(0, 40)}" out of ${name(t.owner)} by ${Math.round(Math.max(t.r.right - r, l - t.r.left))} px`);
  }
}
// A select's chosen option wider than the select shows.
const ruler = document.createElement('canvas').getContext('2d');
for (const s of scope.querySelectorAll('select')) {
  if (!shown(s) || s.selectedIndex < 0) continue;
  const st = css(s);
  ruler.font = `${st.fontStyle} ${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
  const need = ruler.measureText(s.options[s.selectedIndex].text).width;
  const room = s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 20;
  if (need > room + SLACK) found.push(`text clipped: ${name(s)} shows ${Math.round(room)} px of its ${Math.round(need)} px choice`);
}

// 5. Controls smaller than 24 × 24 (a checkbox or radio counts with its label).
const measured = new Set();
for (const { el, control } of boxes) {
  if (!control || el.disabled || measured.has(el)) continue;
  measured.add(el);
  // Its own size: what a scroller or a clipping box hides of it is another finding.
  const own = el.getBoundingClientRect();
  let w = own.width, h = own.height;
  if (el.labels && el.labels.length && ['checkbox', 'radio'].includes(el.type)) {
    const all = [el, ...el.labels].map(x => x.getBoundingClientRect());
    w = Math.max(...all.map(r => r.right)) - Math.min(...all.map(r => r.left));
    h = Math.max(...all.map(r => r.bottom)) - Math.min(...all.map(r => r.top));
  }
  if (w >= MIN_TARGET - 0.5 && h >= MIN_TARGET - 0.5) continue;
  // WCAG's exception: a link inside a sentence, sized by the text around it.
  if (el.tagName === 'A' && css(el).display === 'inline') {
    let block = el.parentElement;
    while (block && css(block).display === 'inline') block = block.parentElement;
    if (block && block.textContent.trim().length > el.textContent.trim().length) continue;
  }
  found.push(`too small: ${name(el)} is ${Math.round(w)} × ${Math.round(h)} px`);
}
return Array.from(new Set(found));
"#;

/// What the check found, per view, with the screens it was found at. Findings that differ
/// only in their figures (a box's width at each screen) are one, shown by its first message.
#[derive(Default)]
pub struct LayoutCheck {
    found: BTreeMap<(String, String), (String, Vec<String>)>,
    screenshots: Vec<PathBuf>,
}

impl LayoutCheck {
    /// Checks the page as it is now at every width and theme, and keeps screenshots at 360
    /// and 1280. `view` names the state in the findings and the screenshots' file names.
    pub async fn view(&mut self, rig: &Rig, view: &str) {
        for theme in THEMES {
            emulate_color_scheme(&rig.client, theme).await;
            for (width, height) in SCREENS {
                resize(rig, width, height).await;
                for finding in findings(rig).await {
                    let kind: String = finding.chars().filter(|c| !c.is_ascii_digit()).collect();
                    self.found
                        .entry((view.to_string(), kind))
                        .or_insert_with(|| (finding, Vec::new()))
                        .1
                        .push(format!("{width} {theme}"));
                }
                if SCREENSHOT_WIDTHS.contains(&width) {
                    let file = format!("{view}-{width}-{theme}.png");
                    self.screenshots
                        .push(full_page_screenshot(rig, &file).await);
                }
            }
        }
        resize(rig, 1400, 900).await;
        emulate_color_scheme(&rig.client, "light").await;
        // Written after each view, so a test that stops later still leaves what it found.
        let report = screenshot_dir().join(format!(
            "findings-{}.txt",
            std::thread::current().name().unwrap_or("test")
        ));
        std::fs::write(&report, self.report()).unwrap();
    }

    /// Every finding, one per line: the view, the screens, what is wrong.
    pub fn report(&self) -> String {
        self.found
            .iter()
            .map(|((view, _), (finding, screens))| {
                format!("{view} @ {}: {finding}", screens.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Fails with every finding, after printing where the screenshots are.
    pub fn assert_clean(&self) {
        println!(
            "layout check: {} screenshots in {}",
            self.screenshots.len(),
            screenshot_dir().display()
        );
        assert!(
            self.found.is_empty(),
            "the layout check found {} problems:\n{}",
            self.found.len(),
            self.report()
        );
    }
}

/// What the check finds on the page as it is now, at the current size and theme.
pub async fn findings(rig: &Rig) -> Vec<String> {
    let found = rig.client.execute(CHECK, vec![]).await.unwrap();
    serde_json::from_value(found).expect("a list of findings")
}

/// Gives the page this viewport, as a phone or a desktop would, and lets it lay out.
pub async fn resize(rig: &Rig, width: u32, height: u32) {
    cdp(
        &rig.client,
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
    )
    .await;
    rig.client
        .execute_async(
            "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done()));",
            vec![],
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(30)).await;
}

fn screenshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e/layout")
}

/// The whole page, not only what the viewport shows (up to 8000 px down).
async fn full_page_screenshot(rig: &Rig, file: &str) -> PathBuf {
    let size = rig
        .js("return [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        .await;
    let (width, height) = (
        size[0].as_f64().unwrap(),
        size[1].as_f64().unwrap().min(8000.0),
    );
    let shot = cdp(
        &rig.client,
        "Page.captureScreenshot",
        json!({
            "format": "png",
            "captureBeyondViewport": true,
            "clip": { "x": 0, "y": 0, "width": width, "height": height, "scale": 1 },
        }),
    )
    .await;
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().expect("screenshot data"))
        .unwrap();
    let dir = screenshot_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, png).unwrap();
    path
}
