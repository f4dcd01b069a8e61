// Opens the Evaluate view: a second wasm module the first load leaves out. Its glue's hashed
// name is in a meta tag (scripts/lib/lazy_modules.py); it is imported, instantiated and
// mounted the first time the view opens, into a <main> after the page's header (the arena's
// <main> is hidden meanwhile). Written in JS: it runs once and costs less here than in wasm.

let loading = null;

function place() {
  let section = document.getElementById("evaluate");
  if (!section) {
    section = document.createElement("main");
    section.id = "evaluate";
    section.setAttribute("aria-label", "Evaluate");
    const header = document.querySelector("header.top");
    header ? header.after(section) : document.body.prepend(section);
  }
  return section;
}

function say(section, text, retry) {
  section.replaceChildren();
  const line = document.createElement("p");
  line.className = retry ? "app-alert" : "evaluate-loading";
  line.setAttribute("role", retry ? "alert" : "status");
  line.textContent = text;
  if (retry) {
    const again = document.createElement("button");
    again.textContent = "Try again";
    again.onclick = () => openEvaluate();
    line.append(" ", again);
  }
  section.append(line);
}

export function openEvaluate() {
  if (loading) return;
  const section = place();
  const meta = document.querySelector('meta[name="react-arena-module-evaluate"]');
  if (!meta) {
    say(section, "This build of the page has no Evaluate view.", false);
    return;
  }
  say(section, "Loading the Evaluate view…", false);
  const url = new URL(meta.content, document.baseURI).href;
  loading = import(url)
    .then(async (module) => {
      await module.default();
      section.replaceChildren();
      module.mount_evaluation(section);
    })
    .catch((e) => {
      loading = null;
      say(section, "Could not load the Evaluate view: " + (e && e.message ? e.message : e), true);
    });
}
