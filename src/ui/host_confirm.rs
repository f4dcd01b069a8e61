use leptos::prelude::*;

use crate::origin::Origin;

/// Asks before the token goes to a host the user has not confirmed: a changed base URL, an
/// imported setting or a typo must not send it anywhere unnoticed.
#[component]
pub fn HostConfirm(
    origin: Origin,
    on_confirm: Callback<()>,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let plain_http = !origin.is_https();
    let host = origin.to_string();
    let cancel = NodeRef::<leptos::html::Button>::new();
    // The safe choice has the focus, so Enter does not send the token by accident.
    Effect::new(move || {
        if let Some(button) = cancel.get() {
            let _ = button.focus();
        }
    });
    view! {
        <div id="host-confirm" class="host-confirm" role="alertdialog" aria-labelledby="host-confirm-text">
            <p id="host-confirm-text">
                "Send your Hugging Face token to "<strong class="host">{host.clone()}</strong>"? "
                "You have not used this host before. Whoever runs it can use your token."
                {plain_http.then_some(" The connection is plain http, on this machine.")}
            </p>
            <button id="confirm-host" class="warn" on:click=move |_| on_confirm.run(())>
                {format!("Send it to {host}")}
            </button>
            <button id="cancel-host" node_ref=cancel on:click=move |_| on_cancel.run(())>
                "Cancel"
            </button>
        </div>
    }
}
