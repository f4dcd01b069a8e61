//! Browser storage of settings and the token. The token lives in sessionStorage unless the
//! user asked to remember it on this device.

use web_sys::Storage;

use crate::settings::Settings;

const SETTINGS_KEY: &str = "react-arena.settings";
const TOKEN_KEY: &str = "react-arena.token";

fn local() -> Option<Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn session() -> Option<Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

pub fn load_settings() -> Settings {
    local()
        .and_then(|s| s.get_item(SETTINGS_KEY).ok().flatten())
        .map(|json| Settings::from_json(&json))
        .unwrap_or_default()
}

pub fn save_settings(settings: &Settings) {
    if let Some(s) = local() {
        let _ = s.set_item(SETTINGS_KEY, &settings.to_json());
    }
}

/// The stored token: session first (this tab), then the remembered one.
pub fn load_token() -> String {
    [session(), local()]
        .into_iter()
        .flatten()
        .find_map(|s| s.get_item(TOKEN_KEY).ok().flatten())
        .unwrap_or_default()
}

/// Stores the token in exactly one place, chosen by `remember`.
pub fn save_token(token: &str, remember: bool) {
    let (keep, clear) = if remember {
        (local(), session())
    } else {
        (session(), local())
    };
    if let Some(s) = clear {
        let _ = s.remove_item(TOKEN_KEY);
    }
    if let Some(s) = keep {
        let _ = if token.is_empty() {
            s.remove_item(TOKEN_KEY)
        } else {
            s.set_item(TOKEN_KEY, token)
        };
    }
}

pub fn forget_token() {
    for s in [session(), local()].into_iter().flatten() {
        let _ = s.remove_item(TOKEN_KEY);
    }
}
