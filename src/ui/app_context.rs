//! What any part of the page reaches without being handed it through every component between:
//! the settings, the token and the page's alert, provided once by `App` (a leptos context).
//! Settings' sections also reach the line under them where a field's problem is said
//! (`FieldError`, provided by the settings panel).

use leptos::prelude::*;

use crate::settings::Settings;

#[derive(Clone, Copy)]
pub struct AppContext {
    pub settings: RwSignal<Settings>,
    pub token: RwSignal<String>,
    /// The page's alert: what failed, said once, until dismissed.
    pub alert: RwSignal<Option<String>>,
}

impl AppContext {
    /// The page's handles: every view is drawn under `App`, which provides them.
    pub fn get() -> Self {
        expect_context()
    }
}

/// Where Settings say why a field's value was not taken.
#[derive(Clone, Copy)]
pub struct FieldError(pub RwSignal<Option<String>>);

impl FieldError {
    /// The settings panel's line: its sections are drawn under it.
    pub fn get() -> RwSignal<Option<String>> {
        expect_context::<Self>().0
    }
}

/// Whether Settings are open: what they show of the world outside (where the model in this
/// browser runs) is read again each time they open.
#[derive(Clone, Copy)]
pub struct SettingsOpen(pub RwSignal<bool>);

impl SettingsOpen {
    /// Outside the settings panel (a part drawn alone): never opened.
    pub fn get() -> RwSignal<bool> {
        use_context::<Self>()
            .map(|s| s.0)
            .unwrap_or_else(|| RwSignal::new(false))
    }
}
