//! What each viewer sees of a host match: the GetView answer, and the views stored with
//! every step for watchers. Each is built by the rules for that viewer; the seed appears
//! only as the rules reveal it, once the match is over.

use api_convert::holder_name;
use games::host::Host;
use rules_core::{Audience, Seat, Viewer};
use store::{MatchMeta, VIEWERS, ViewerVersions};

/// What `viewer` sees of a match (at the versions `seen`, in the viewer's own numbering),
/// as GetView answers it (but for `deadline_in_ms`, which depends on when it is read).
pub(super) fn view_response(
    host: &dyn Host,
    meta: &MatchMeta,
    seen: ViewerVersions,
    due_ms: Option<u64>,
    viewer: Viewer,
    json: bool,
) -> api::v1::GetViewResponse {
    let out = host.view_proto(viewer, json);
    let outcome = host.outcome().map(|o| api::v1::Outcome {
        winner: o.winner.map(wire::seat_u32),
        reason: wire::reason(&o),
        // The rules reveal the seed once the match is over, and not before.
        seed: host.revealed_seed().map(|s| s.to_hex()).unwrap_or_default(),
    });
    api::v1::GetViewResponse {
        version: seen.of(viewer),
        seat: viewer.seat().map(wire::seat_u32),
        to_move: host.to_move().iter().map(wire::seat_u32).collect(),
        view: Some(out.view),
        outcome,
        deadline_in_ms: None,
        deadline_at_ms: due_ms,
        player_ids: Seat::BOTH.iter().map(|&seat| holder_name(&meta.seats[seat])).collect(),
        game: meta.game.clone(),
        legal_moves: out.legal,
        view_json: out.view_json.unwrap_or_default(),
    }
}

/// Each viewer's view after a step, stored with it so watchers need not ask. The seats'
/// own views are built by the rules, never filtered from another's.
pub(super) fn stored_views(
    host: &dyn Host,
    meta: &MatchMeta,
    seen: ViewerVersions,
    due_ms: Option<u64>,
) -> Vec<store::StoredEvent> {
    use prost::Message;
    VIEWERS
        .into_iter()
        .map(|viewer| store::StoredEvent {
            audience: viewer.seat().map_or(Audience::Public, Audience::Seat),
            payload: view_response(host, meta, seen, due_ms, viewer, false).encode_to_vec(),
        })
        .collect()
}
