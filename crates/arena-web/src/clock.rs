//! The wall clock: when things happen, in milliseconds since the Unix epoch (what run records,
//! kept runs and the evaluation store are stamped with), and a time's local calendar fields.
//! Durations measured against these stamps use this clock too; `timer::now_ms` is the page's
//! monotonic clock, which starts at the page's load and so cannot be compared with them.

/// Milliseconds since the Unix epoch (`Date.now()`).
pub fn wall_ms() -> f64 {
    js_sys::Date::now()
}

/// A wall-clock time's fields in the browser's time zone.
pub struct LocalTime {
    pub year: u32,
    /// 1 to 12.
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
}

/// `ms` (since the Unix epoch) in the browser's time zone.
pub fn local_time(ms: f64) -> LocalTime {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    LocalTime {
        year: d.get_full_year(),
        month: d.get_month() + 1,
        day: d.get_date(),
        hour: d.get_hours(),
        minute: d.get_minutes(),
    }
}
