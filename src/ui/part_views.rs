//! What each of the page's parts, jobs and turns is, drawn or done: the page's split points
//! (src/split_points.rs) call these once their chunk is in, so the code they reach lands in
//! that chunk. The seam the views call (`show`, `start`, `start_turns`) is `parts.rs`, which
//! names no view: views import it, and only this file imports the views.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::blind_vote::BlindVoting;
use crate::ui::comparison::Comparison;
use crate::ui::embed_code::EmbedCode;
use crate::ui::host_confirm::HostConfirm;
use crate::ui::hub::community::CommunityBoard;
use crate::ui::hub::open_run::show_hub_run;
use crate::ui::hub::publish::HubPublish;
use crate::ui::hub::HubSections;
use crate::ui::leaderboard::Leaderboard;
use crate::ui::mode_tabs::ModeTabs;
use crate::ui::panel::panel_run::RunBody;
use crate::ui::panel::run_body::run_body;
use crate::ui::parts::{FirstPart, HubPart, Job, Part, Turns};
use crate::ui::runs::from_address::show_carried_run;
use crate::ui::runs::history::History;
use crate::ui::runs::keep::Keeper;
use crate::ui::runs::recording_cards::{play_card, play_recording_named, RecordingCards};
use crate::ui::runs::run_files::{export_to_file, import_file, RecordingBanner};
use crate::ui::settings::backend_settings::ModelBackend;
use crate::ui::settings::kept_secrets::KeptSecretsLine;
use crate::ui::settings::mcp_servers::McpServers;
use crate::ui::settings::prompt_settings::PromptSettings;
use crate::ui::settings::tools_settings::ToolsSettings;
use crate::ui::turn_driver;

/// Draws a part: what the split point calls once its chunk is in.
pub fn draw(part: Part) -> AnyView {
    match part {
        Part::Comparison(panels) => view! { <Comparison panels=panels /> }.into_any(),
        Part::BlindVote(panels) => view! { <BlindVoting panels=panels /> }.into_any(),
        Part::ModeTabs(tabs) => view! { <ModeTabs tabs=tabs /> }.into_any(),
        Part::EmbedCode {
            panels,
            question,
            mode_choice,
            open,
        } => view! { <EmbedCode panels=panels question=question mode_choice=mode_choice open=open /> }
            .into_any(),
        Part::RecordingBanner { panels, replay } => {
            view! { <RecordingBanner panels=panels replay=replay /> }.into_any()
        }
        Part::History {
            wiring,
            opened,
            drawn,
        } => {
            let keeper = Keeper::start(wiring);
            let opened = opened.get_untracked();
            drawn.set(true);
            view! {
                <History keeper=keeper open=opened == Some("history") />
                <Leaderboard runs=keeper.runs open=opened == Some("leaderboard") />
                <HubSections runs=keeper.runs />
            }
            .into_any()
        }
        Part::HostConfirm {
            origin,
            on_confirm,
            on_cancel,
        } => view! { <HostConfirm origin=origin on_confirm=on_confirm on_cancel=on_cancel /> }
            .into_any(),
        Part::ToolSettings => view! {
            <ToolsSettings />
            <McpServers />
            <PromptSettings />
        }
        .into_any(),
        Part::ModelBackend => view! { <ModelBackend /> }.into_any(),
    }
}

/// Draws a Hub view: what its split point calls once its chunk is in.
pub fn draw_hub(part: HubPart) -> AnyView {
    match part {
        HubPart::Publish(runs) => view! { <HubPublish runs=runs /> }.into_any(),
        HubPart::Community => view! { <CommunityBoard /> }.into_any(),
    }
}

/// Draws a first visit's part: what its split point calls once its chunk is in.
pub fn draw_first(part: FirstPart) -> AnyView {
    match part {
        FirstPart::RecordingCards(shower) => view! { <RecordingCards shower=shower /> }.into_any(),
        FirstPart::KeptSecrets { changed } => {
            view! { <KeptSecretsLine changed=changed /> }.into_any()
        }
    }
}

/// Draws a panel's run: what the engine's split point calls once its chunk is in.
pub fn draw_run(body: RunBody) -> AnyView {
    run_body(body)
}

/// Drives a run's turns: what the engine's split point calls once its chunk is in.
pub fn drive(turns: Turns) {
    match turns {
        Turns::One(turn) => turn_driver::drive(*turn),
        Turns::First(first) => turn_driver::begin(first),
    }
}

/// Starts a job: what the split point calls once its chunk is in.
pub fn carry_out(job: Job) {
    spawn_local(async move {
        match job {
            Job::ShowCarriedRun {
                encoded,
                shower,
                alert,
            } => show_carried_run(&encoded, shower, alert).await,
            Job::ShowHubRun {
                address,
                shower,
                alert,
            } => show_hub_run(&address, shower, alert).await,
            Job::PlayRecording {
                file,
                shower,
                alert,
            } => {
                if let Err(why) = play_recording_named(&file, shower).await {
                    alert.set(Some(why));
                }
            }
            Job::PlayCard {
                entry,
                shower,
                problem,
                loading,
            } => play_card(entry, shower, problem, loading).await,
            Job::Export {
                panels,
                as_markdown,
                alert,
            } => export_to_file(panels, as_markdown, alert),
            Job::Import {
                file,
                shower,
                alert,
            } => import_file(file, shower, alert).await,
        }
    });
}
