//! Loads a module the first load leaves out (the Evaluate view): its JavaScript glue is
//! imported and its wasm instantiated only when asked for. The build writes each module's
//! hashed file name into a meta tag (`scripts/lib/lazy_modules.py`).

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(inline_js = "export function importModule(url) { return import(url); }")]
extern "C" {
    // `import()` written in Rust's glue would resolve against the glue's own folder; the
    // address passed here is absolute, so it does not matter where this snippet lives.
    #[wasm_bindgen(js_name = importModule)]
    fn import_module(url: &str) -> Promise;
}

/// Where the page's build put module `name`, as an absolute address.
fn module_url(name: &str) -> Result<String, String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("No document.")?;
    let relative = document
        .query_selector(&format!("meta[name=\"react-arena-module-{name}\"]"))
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .ok_or_else(|| format!("This build of the page has no {name} module."))?;
    let base = document.base_uri().ok().flatten().unwrap_or_default();
    web_sys::Url::new_with_base(&relative, &base)
        .map(|u| u.href())
        .map_err(|_| format!("The {name} module's address is not valid."))
}

fn message(e: JsValue) -> String {
    Reflect::get(&e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// Imports module `name` and instantiates its wasm; resolves to the module's exports.
pub async fn load(name: &str) -> Result<JsValue, String> {
    let url = module_url(name)?;
    let module = JsFuture::from(import_module(&url))
        .await
        .map_err(|e| format!("Could not load the {name} module: {}", message(e)))?;
    let init: Function = Reflect::get(&module, &"default".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| format!("The {name} module has no initialiser."))?;
    let started = init
        .call0(&JsValue::NULL)
        .map_err(|e| format!("Could not start the {name} module: {}", message(e)))?;
    JsFuture::from(Promise::from(started))
        .await
        .map_err(|e| format!("Could not start the {name} module: {}", message(e)))?;
    Ok(module)
}

/// Calls the module's exported function `export` with `args`.
pub fn call(module: &JsValue, export: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let function: Function = Reflect::get(module, &export.into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| format!("The module has no function {export}."))?;
    function
        .apply(&JsValue::NULL, &args.iter().collect())
        .map_err(message)
}
