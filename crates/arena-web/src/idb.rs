//! IndexedDB through the one small module `idb.js`: a database by name with its stores, JSON
//! text in, JSON text out. Errors come back as the browser's name for them
//! (`QuotaExceededError`…) and its message. What is kept where is said by the stores built on
//! it (`run_store`, `eval_store`).

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/idb.js")]
extern "C" {
    #[wasm_bindgen(js_name = put)]
    fn put_js(name: &str, stores: &str, writes: &Array) -> Promise;
    #[wasm_bindgen(js_name = get)]
    fn get_js(name: &str, stores: &str, store: &str, key: &str) -> Promise;
    #[wasm_bindgen(js_name = getAll)]
    fn get_all_js(name: &str, stores: &str, store: &str, prefix: &str) -> Promise;
    #[wasm_bindgen(js_name = remove)]
    fn remove_js(name: &str, stores: &str, removals: &Array) -> Promise;
    #[wasm_bindgen(js_name = mayExist)]
    fn may_exist_js(name: &str) -> Promise;
}

/// Why the browser refused: its error's name and message.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub name: String,
    pub message: String,
}

impl From<JsValue> for Refusal {
    fn from(e: JsValue) -> Self {
        let field = |key: &str| {
            Reflect::get(&e, &JsValue::from_str(key))
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        };
        let name = field("name");
        Refusal {
            name: if name.is_empty() {
                "UnknownError".into()
            } else {
                name
            },
            message: field("message"),
        }
    }
}

/// A database and its stores (every transaction spans them all).
#[derive(Clone, Copy)]
pub struct Database {
    pub name: &'static str,
    /// The stores' names, joined by commas.
    pub stores: &'static str,
}

/// A key, or every key starting with it.
pub enum Key<'a> {
    One(&'a str),
    StartingWith(&'a str),
}

async fn settle(promise: Promise) -> Result<JsValue, Refusal> {
    JsFuture::from(promise).await.map_err(Refusal::from)
}

fn flat(items: impl IntoIterator<Item = JsValue>) -> Array {
    items.into_iter().collect()
}

impl Database {
    /// Whether the database may hold something: `false` only when the browser says it does
    /// not exist (it is not opened to ask, which would create it).
    pub async fn may_exist(self) -> bool {
        settle(may_exist_js(self.name))
            .await
            .map_or(true, |v| v.as_bool() != Some(false))
    }

    /// Starts writing (store, key, value) triples in one transaction; the promise says when
    /// they are committed.
    fn start_put(self, writes: &[(&str, &str, &str)]) -> Promise {
        let writes = flat(
            writes
                .iter()
                .flat_map(|(store, key, value)| [(*store).into(), (*key).into(), (*value).into()]),
        );
        put_js(self.name, self.stores, &writes)
    }

    /// Writes (store, key, value) triples together.
    pub async fn put(self, writes: &[(&str, &str, &str)]) -> Result<(), Refusal> {
        settle(self.start_put(writes)).await.map(|_| ())
    }

    /// The same, without waiting: for the last save as the page goes away.
    pub fn put_now(self, writes: &[(&str, &str, &str)]) {
        let _ = self.start_put(writes);
    }

    pub async fn get(self, store: &str, key: &str) -> Result<Option<String>, Refusal> {
        settle(get_js(self.name, self.stores, store, key))
            .await
            .map(|v| v.as_string())
    }

    /// Every value of `store`, or of the keys starting with `prefix` if it is not empty.
    pub async fn get_all(self, store: &str, prefix: &str) -> Result<Vec<String>, Refusal> {
        let all = settle(get_all_js(self.name, self.stores, store, prefix)).await?;
        Ok(Array::from(&all)
            .iter()
            .filter_map(|v| v.as_string())
            .collect())
    }

    /// Removes keys from stores, together.
    pub async fn remove(self, removals: &[(&str, Key<'_>)]) -> Result<(), Refusal> {
        let removals = flat(removals.iter().flat_map(|(store, key)| {
            let (key, whole) = match key {
                Key::One(k) => (*k, false),
                Key::StartingWith(k) => (*k, true),
            };
            [(*store).into(), key.into(), whole.into()]
        }));
        settle(remove_js(self.name, self.stores, &removals))
            .await
            .map(|_| ())
    }
}
