//! Display names as the players chose them, wherever another player sees them: a guest's
//! seek is listed under the name it chose (the name GetProfile answers), not a name made
//! from its id; an account's under its name as it is now.

use api::v1;
use cluster_tests::{Env, Player, queue};

async fn seek(p: &Player, key: &str) -> String {
    let req = v1::CreateSeekRequest {
        queue: Some(queue("gops", false)),
        idempotency_key: key.into(),
        ttl_seconds: 0,
    };
    let t = p.client.lobby().create_seek(p.client.request(req)).await.expect("a seek");
    t.into_inner().ticket.expect("its ticket").ticket_id
}

async fn listed_name(p: &Player, seek_id: &str) -> String {
    let list = v1::ListSeeksRequest { game: "gops".into(), limit: 200 };
    let seeks = p.client.lobby().list_seeks(list).await.expect("the seeks").into_inner().seeks;
    seeks.into_iter().find(|s| s.seek_id == seek_id).expect("listed").display_name
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeks_show_the_names_players_chose() {
    let env = Env::start().await;
    let url = env.cluster.gateway_url();
    let ada = Player::guest(&url, "  Ada   Lovelace ").await;
    let mut lobby = ada.client.lobby();
    let profile = lobby.get_profile(ada.client.request(v1::GetProfileRequest {})).await;
    let chosen = profile.expect("a profile").into_inner().profile.expect("it").display_name;
    assert_eq!(chosen, "Ada Lovelace");
    let id = seek(&ada, "ada-seek").await;
    // Seen by anyone (here another guest), under the name GetProfile gives.
    let bob = env.player("bob").await;
    assert_eq!(listed_name(&bob, &id).await, chosen, "not guest-<id>");
    // An account: the name as it is now, after a change.
    let cy = Player::account(&url, "cy").await;
    let id = seek(&cy, "cy-seek").await;
    assert_eq!(listed_name(&bob, &id).await, "cy");
    let update =
        v1::UpdateProfileRequest { display_name: Some("Cy Young".into()), leaderboard: None };
    cy.client.lobby().update_profile(cy.client.request(update)).await.expect("renamed");
    assert_eq!(listed_name(&bob, &id).await, "Cy Young");
    env.shutdown().await;
}
