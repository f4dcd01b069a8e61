//! Settings → MCP servers: add a server by its URL (with a name and a bearer token, both
//! optional), connect, see its tools and choose which mode may call each, remove it. Drawn in
//! the parts chunk. Everything a server sends is shown as text.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::mcp::consent::AskPolicy;
use crate::mcp::server_tools::McpServer;
use crate::origin::Origin;
use crate::settings::{mcp_url_problem, Settings, MAX_MCP_SERVERS, MAX_MCP_TIMEOUT_SECS};
use crate::tools::args::expected;
use crate::ui::app_context::AppContext;
use crate::ui::settings::tools_settings::{tool_toggle, TOOL_MODES};
use crate::web::mcp_tools::{self, client, page_origin};
use crate::web::storage;

/// Where a connection stands, shown under the form or its server.
#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Connecting(String),
    Failed(String),
    Connected(String),
}

/// A connection the user asked for, waiting for them to confirm the token's host.
#[derive(Clone)]
struct Pending {
    name: String,
    url: String,
    token: String,
    origin: Origin,
}

#[component]
pub fn McpServers() -> impl IntoView {
    let settings = AppContext::get().settings;
    let url = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let token = RwSignal::new(String::new());
    let status = RwSignal::new(Status::Idle);
    let pending = RwSignal::new(None::<Pending>);

    // The token and the host confirmed for it are kept only once the server has answered:
    // a Connect that fails leaves nothing behind.
    let connect_now = move |name_given: String,
                            url_given: String,
                            token_given: String,
                            confirmed: Option<Origin>| {
        let timeout = settings.with_untracked(|s| s.mcp_timeout_secs);
        let sent = Some(token_given.trim().to_string()).filter(|t| !t.is_empty());
        status.set(Status::Connecting(format!("Connecting to {url_given}…")));
        spawn_local(async move {
            let session = client(&url_given, sent, timeout, true);
            match session.connect().await {
                Ok(connected) => {
                    let mut kept = true;
                    settings
                        .update(|s| kept = s.put_mcp_server(&name_given, &url_given, &connected));
                    if !kept {
                        status.set(Status::Failed(format!(
                            "At most {MAX_MCP_SERVERS} MCP servers are kept: remove one first."
                        )));
                        return;
                    }
                    let remember = settings.with_untracked(|s| s.remember_token);
                    let saved = storage::keep_mcp_token(
                        &url_given,
                        &token_given,
                        remember,
                        confirmed.as_ref(),
                    );
                    if let Err(e) = saved {
                        status.set(Status::Failed(e));
                        return;
                    }
                    let count = settings.with_untracked(|s| {
                        s.mcp_servers
                            .servers()
                            .iter()
                            .find(|s| s.url == url_given.trim())
                            .map_or(0, |s| s.tools.len())
                    });
                    status.set(Status::Connected(format!(
                        "Connected to {url_given}: {count} tools (protocol {}).",
                        connected.version
                    )));
                    url.set(String::new());
                    name.set(String::new());
                    token.set(String::new());
                }
                Err(failure) => {
                    let label = format!("The MCP server at {url_given}");
                    status.set(Status::Failed(failure.describe(&label, &page_origin())));
                }
            }
        });
    };

    // A token goes to a host only once the user confirmed it: Connect and Reconnect alike.
    let ask_connect = move |name_given: String, url_given: String, token_given: String| {
        if let Some(problem) = mcp_url_problem(&url_given) {
            status.set(Status::Failed(problem));
            return;
        }
        let url_given = url_given.trim().to_string();
        let origin = Origin::of(&url_given).expect("checked above");
        let confirmed = storage::load_mcp_token_hosts().contains(&origin);
        if !token_given.trim().is_empty() && !confirmed {
            pending.set(Some(Pending {
                name: name_given,
                url: url_given,
                token: token_given,
                origin,
            }));
            return;
        }
        connect_now(name_given, url_given, token_given, None);
    };

    let on_connect = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        ask_connect(
            name.get_untracked(),
            url.get_untracked(),
            token.get_untracked(),
        );
    };

    let confirm = move |_| {
        let Some(p) = pending.get_untracked() else {
            return;
        };
        pending.set(None);
        connect_now(p.name, p.url, p.token, Some(p.origin));
    };

    let reconnect = move |server: McpServer| {
        let kept = storage::load_mcp_tokens()
            .get(&server.url)
            .unwrap_or_default()
            .to_string();
        ask_connect(server.name, server.url, kept);
    };

    // Its token goes with it, and its confirmed host when no other server is on it.
    let remove = move |url_gone: String| {
        settings.update(|s| s.remove_mcp_server(&url_gone));
        mcp_tools::forget(&url_gone);
        let (urls, remember) = settings.with_untracked(|s| {
            let urls: Vec<String> = s.mcp_servers.servers().into_iter().map(|s| s.url).collect();
            (urls, s.remember_token)
        });
        let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
        match storage::keep_mcp_secrets_for(&urls, remember) {
            Err(e) => status.set(Status::Failed(e)),
            Ok(()) => status.set(Status::Idle),
        }
    };

    // Read again only when the servers change, not at every tick of a checkbox.
    let kept = Memo::new(move |_| settings.with(|s| s.mcp_servers.clone()));
    let servers = move || {
        kept.with(|k| k.servers()).into_iter().map(move |server| {
            view! { <ServerCard server=server.clone() settings=settings on_reconnect=Callback::new(reconnect) on_remove=Callback::new(remove) /> }
        }).collect_view()
    };

    view! {
        <details id="mcp-servers" class="mcp-servers wide">
            <summary>"MCP servers"</summary>
            <p class="hint">
                "Add a server's Streamable HTTP endpoint. The page calls it directly, so the server must allow this page's origin ("
                {page_origin()}
                ") with CORS. A token is sent to that server only, never the Hugging Face token."
            </p>
            <form class="mcp-add" on:submit=on_connect>
                <label for="mcp-url">"Server URL"</label>
                <input id="mcp-url" type="url" spellcheck="false" placeholder="http://localhost:3001/mcp"
                    prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev)) />
                <label for="mcp-name">"Name (optional)"</label>
                <input id="mcp-name" type="text" spellcheck="false"
                    prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
                <label for="mcp-token">"Bearer token (optional)"</label>
                <input id="mcp-token" type="password" autocomplete="off" spellcheck="false"
                    prop:value=move || token.get() on:input=move |ev| token.set(event_target_value(&ev)) />
                <button id="mcp-connect" type="submit"
                    disabled=move || matches!(status.get(), Status::Connecting(_))>"Connect"</button>
            </form>
            {move || pending.get().map(|p| view! {
                <div id="mcp-host-confirm" class="host-confirm" role="alertdialog" aria-labelledby="mcp-host-confirm-text">
                    <p id="mcp-host-confirm-text">
                        "Send this token to "<strong class="host">{p.origin.to_string()}</strong>"? "
                        "Whoever runs that server can use it. It goes to that server only."
                    </p>
                    <button id="mcp-confirm-host" class="warn" on:click=confirm>{format!("Send it to {}", p.origin)}</button>
                    <button id="mcp-cancel-host" on:click=move |_| pending.set(None)>"Cancel"</button>
                </div>
            })}
            {move || match status.get() {
                Status::Idle => None,
                Status::Connecting(text) | Status::Connected(text) => {
                    Some(view! { <p id="mcp-status" class="hint" role="status">{text}</p> }.into_any())
                }
                Status::Failed(text) => {
                    Some(view! { <p id="mcp-error" class="field-error" role="alert">{text}</p> }.into_any())
                }
            }}
            <div class="mcp-list">{servers}</div>
            <label for="mcp-timeout">"MCP call time limit (s)"</label>
            <input id="mcp-timeout" type="number" min="1" max=MAX_MCP_TIMEOUT_SECS
                prop:value=move || settings.with(|s| s.mcp_timeout_secs.to_string())
                on:change=move |ev| {
                    match event_target_value(&ev).trim().parse::<u32>() {
                        Ok(v) if (1..=MAX_MCP_TIMEOUT_SECS).contains(&v) => {
                            settings.update(|s| s.mcp_timeout_secs = v);
                        }
                        _ => {
                            status.set(Status::Failed(format!("MCP call time limit: a whole number from 1 to {MAX_MCP_TIMEOUT_SECS}. Kept the previous value.")));
                            settings.update(|_| {});
                        }
                    }
                } />
        </details>
    }
}

/// One server: its name and URL, its tools with their descriptions, parameters and the choice
/// of modes, Reconnect and Remove.
#[component]
fn ServerCard(
    server: McpServer,
    settings: RwSignal<Settings>,
    on_reconnect: Callback<McpServer>,
    on_remove: Callback<String>,
) -> impl IntoView {
    let url = server.url.clone();
    let gone = url.clone();
    let again = server.clone();
    let ask_url = url.clone();
    let ask_id = format!(
        "mcp-ask-{}",
        settings.with_untracked(|s| s
            .mcp_servers
            .servers()
            .iter()
            .position(|s| s.url == url)
            .unwrap_or(0))
    );
    let current = server.ask;
    let on_ask = move |ev: leptos::ev::Event| {
        if let Some(policy) = AskPolicy::from_id(&event_target_value(&ev)) {
            settings.update(|s| s.set_mcp_ask(&ask_url, policy));
        }
    };
    let rows = server
        .tools
        .iter()
        .map(|tool| {
            let params = expected(&tool.schema());
            view! {
                <tr class="mcp-tool">
                    <th scope="row">
                        <code class="mcp-tool-name">{tool.offered.clone()}</code>
                        {tool.renamed.clone().map(|why| view! { <span class="mcp-renamed">{why}</span> })}
                    </th>
                    <td class="mcp-tool-about">
                        {tool.read_only.then(|| view! { <span class="mcp-read-only" title="The server marks this tool as only reading (readOnlyHint)">"Only reads. "</span> })}
                        <span class="mcp-tool-description">{tool.description.clone()}</span>
                        <span class="mcp-tool-params">{params}</span>
                    </td>
                    {TOOL_MODES.map(|mode| view! { <td>{tool_toggle(settings, mode, tool.offered.clone())}</td> })}
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="mcp-server" data-url=server.url.clone() aria-label=format!("MCP server {}", server.name)>
            <h4 class="mcp-server-name">{server.name.clone()}</h4>
            <span class="mcp-server-url">{url}</span>
            <button class="mcp-reconnect" on:click=move |_| on_reconnect.run(again.clone())>"Reconnect"</button>
            <button class="mcp-remove" on:click=move |_| on_remove.run(gone.clone())>"Remove"</button>
            <div class="mcp-ask">
                <label for=ask_id.clone()>"Before its tools run"</label>
                <select id=ask_id class="mcp-ask-select" on:change=on_ask>
                    {AskPolicy::ALL.map(|p| view! { <option value=p.id() selected=p == current>{p.label()}</option> })}
                </select>
                <p class="hint">"'Ask unless it only reads' asks before each call of a tool the server does not mark as only reading. A tool's result can tell the model what to call next, so a call right after another source's result is asked about too, unless you trust this server. Blind votes and evaluations skip calls that would ask."</p>
            </div>
            <table class="tool-choice">
                <thead>
                    <tr>
                        <th scope="col">"Tool"</th>
                        <th scope="col">"What it does"</th>
                        {TOOL_MODES.map(|mode| view! { <th scope="col">{mode.label()}</th> })}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}
