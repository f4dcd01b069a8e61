//! Leptos components (wasm32 only). They render state and dispatch user intent; decisions
//! live in `agent`, `settings` and `llm`.
