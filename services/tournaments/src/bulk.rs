//! CreateMatches: up to [`MAX_MATCHES`] matches, all or none. Every entry is checked before
//! anything is stored (a bad one refuses the call, naming every bad entry); then the
//! request is stored under its idempotency key with the tenant's record of each match (ids
//! derived from the tenant, the key and the index, so a retry names the same matches), the
//! matches are created, and the request is finished, announcing them on the tenant's
//! stream once. A request whose caller died midway is finished by the driver
//! ([`crate::driver`]), so what was acknowledged as begun always completes.

use crate::error::Error;
use crate::records::{Envelope, Event, GameSpec, OwnedMatch, State, derived_id};
use api::{internal, v1};
use engines::{CallError, Created, Engines};
use futures_util::StreamExt;
use prost::Message;
use serde::{Deserialize, Serialize};
use service_kit::time::now_ms;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use store::{
    Append, Begin, Begun, MatchId, PlayerId, ResultsStream, SeatHolder, TenantId, TenantStore,
};

/// The request kind in the store.
pub const KIND: &str = "bulk";
/// The most matches one call creates.
pub const MAX_MATCHES: usize = 10_000;
/// The furthest ahead a match may be scheduled.
pub const MAX_AHEAD_MS: u64 = 30 * 24 * 3600 * 1000;
/// The longest label.
pub const MAX_LABEL_BYTES: usize = 64;
/// Matches in one batch: one CreateMatches call to each engine replica hosting some.
const CREATING_AT_ONCE: usize = 256;
/// How many batches of [`CREATING_AT_ONCE`] are in flight at once.
const BATCHES_AT_ONCE: usize = 2;
/// Player lookups in flight.
const CHECKING_AT_ONCE: usize = 64;

/// What the store keeps of a bulk request.
#[derive(Serialize, Deserialize)]
struct Record {
    /// The match ids, in the request's order.
    ids: Vec<MatchId>,
}

/// An idempotency key: 1 to 64 bytes of `[A-Za-z0-9._:-]`.
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn check_key(key: &str) -> Result<(), Error> {
    let ok = (1..=64).contains(&key.len())
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b".-_:".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(api_convert::bad(
            "idempotency_key",
            "idempotency_key must be 1 to 64 bytes of letters, digits, '.', '_', ':' or '-'".into(),
        )
        .into())
    }
}

/// A game spec checked as the rules engine would check it: the game, its options, the
/// time per move (`games::time::accept`, hosted: 0 is the rules' fixed time, or a minute).
///
/// # Errors
/// What is wrong, bounded (never the whole options text).
pub fn check_game(spec: Option<&v1::GameSpec>) -> Result<GameSpec, String> {
    let spec = spec.ok_or("game is required")?;
    if spec.game.len() > api_convert::text::MAX_GAME_LEN
        || games::registry::info(&spec.game).is_none()
    {
        return Err(format!(
            "unknown game {:?} (the games: {})",
            service_kit::status::clip(&spec.game),
            games::registry::names()
        ));
    }
    if spec.options_json.len() > api_convert::text::MAX_OPTIONS_JSON_BYTES {
        return Err(format!(
            "options_json is at most {} bytes",
            api_convert::text::MAX_OPTIONS_JSON_BYTES
        ));
    }
    games::host::start_text(&spec.game, &spec.options_json, rules_core::Seed::ZERO)
        // The setup error says "bad options: ..." itself; cut, as it may quote the options.
        .map_err(|e| service_kit::status::truncate(e.to_string(), 200))?;
    let options: serde_json::Value =
        serde_json::from_str(&spec.options_json).unwrap_or(serde_json::Value::Null);
    let move_time_ms =
        games::time::accept(&spec.game, &options, spec.move_time_ms, games::time::Policy::Hosted)
            .map_err(|e| e.to_string())?;
    Ok(GameSpec { game: spec.game.clone(), options_json: spec.options_json.clone(), move_time_ms })
}

/// Which of `players` exist (a session or an account was ever made for them).
///
/// # Errors
/// The store failed.
pub async fn missing_players(
    store: &Arc<dyn TenantStore>,
    players: BTreeSet<PlayerId>,
) -> Result<BTreeSet<PlayerId>, Error> {
    let checked: Vec<(PlayerId, Result<bool, store::StoreError>)> =
        futures_util::stream::iter(players)
            .map(|p| async move { (p, store.player_exists(p).await) })
            .buffer_unordered(CHECKING_AT_ONCE)
            .collect()
            .await;
    let mut missing = BTreeSet::new();
    for (p, exists) in checked {
        if !exists? {
            missing.insert(p);
        }
    }
    Ok(missing)
}

/// Creates a tenant match in its engine (a match already there is this one: its id is
/// derived), answering its seed commitment. `listed`: whether it goes on its game's public
/// live list (ListLiveMatches): only a public tournament's games do; a bulk match or a
/// private tournament's game is the tenant's alone.
///
/// # Errors
/// The engine refused or did not answer.
pub async fn create_in_engine(
    engines: &Engines,
    m: &OwnedMatch,
    listed: bool,
) -> Result<String, Error> {
    match engines.create_match(new_match(m, listed), tonic::metadata::MetadataMap::new()).await? {
        Created::New { seed_commitment } => Ok(seed_commitment),
        Created::Exists => commitment_of(engines, m).await,
    }
}

/// The engine's match for `m`, both seats its players' (`listed`: see [`create_in_engine`]).
fn new_match(m: &OwnedMatch, listed: bool) -> engines::NewMatch {
    engines::NewMatch {
        id: m.match_id,
        game: m.game.game.clone(),
        options_json: m.game.options_json.clone(),
        seats: m.players.map(SeatHolder::Player),
        move_time_ms: m.game.move_time_ms,
        listed,
    }
}

/// The seed commitment of a tenant's match that exists, from its engine.
///
/// # Errors
/// The engine refused or did not answer.
pub async fn commitment_of(engines: &Engines, m: &OwnedMatch) -> Result<String, Error> {
    let meta = engines
        .for_match(&m.game.game, m.match_id)?
        .get_meta(internal::GetMetaRequest { match_id: m.match_id.to_string() })
        .await
        .map_err(CallError::from)?;
    Ok(meta.into_inner().commitment)
}

/// The bulk creator.
#[derive(Clone)]
pub struct Bulk {
    store: Arc<dyn TenantStore>,
    engines: Engines,
}

impl Bulk {
    /// Over `store`, creating through `engines`.
    pub fn new(store: Arc<dyn TenantStore>, engines: Engines) -> Bulk {
        Bulk { store, engines }
    }

    /// The engines it creates through.
    pub fn engines(&self) -> &Engines {
        &self.engines
    }

    /// CreateMatches for `tenant`: the ids, in order (none when `validate_only`).
    ///
    /// # Errors
    /// [`Error::BadEntries`] naming every bad entry; [`Error::KeyReused`]; the store or an
    /// engine failed (a retry with the same key finishes the call).
    pub async fn create(
        &self,
        tenant: TenantId,
        req: v1::CreateMatchesRequest,
    ) -> Result<Vec<MatchId>, Error> {
        check_key(&req.idempotency_key)?;
        if req.matches.is_empty() || req.matches.len() > MAX_MATCHES {
            return Err(api_convert::bad(
                "matches",
                format!("matches holds 1 to {MAX_MATCHES} entries, not {}", req.matches.len()),
            )
            .into());
        }
        let now = now_ms();
        let mut bad: Vec<(String, String)> = Vec::new();
        let mut checked_games: BTreeMap<(String, String, u64), Result<GameSpec, String>> =
            BTreeMap::new();
        let mut specs = Vec::with_capacity(req.matches.len());
        let mut players_used = BTreeSet::new();
        for (i, m) in req.matches.iter().enumerate() {
            let mut entry_bad = |field: &str, why: String| {
                bad.push((format!("matches[{i}].{field}"), why));
            };
            let game = match &m.game {
                Some(g) => checked_games
                    .entry((g.game.clone(), g.options_json.clone(), g.move_time_ms))
                    .or_insert_with(|| check_game(Some(g)))
                    .clone(),
                None => Err("game is required".into()),
            };
            let game = game.map_err(|why| entry_bad("game", why)).ok();
            let player = |field: &str, text: &str, bad: &mut dyn FnMut(&str, String)| {
                text.parse::<PlayerId>()
                    .map_err(|_| {
                        bad(field, format!("{field} is not a player id (a hyphenated UUID)"))
                    })
                    .ok()
            };
            let p0 = player("seat0_player_id", &m.seat0_player_id, &mut entry_bad);
            let p1 = player("seat1_player_id", &m.seat1_player_id, &mut entry_bad);
            if let (Some(a), Some(b)) = (p0, p1)
                && a == b
            {
                entry_bad("seat1_player_id", "the two seats name the same player".into());
            }
            if m.start_at_ms > now.saturating_add(MAX_AHEAD_MS) {
                entry_bad("start_at_ms", "start_at_ms is more than 30 days ahead".into());
            }
            if m.label.len() > MAX_LABEL_BYTES {
                entry_bad("label", format!("label is at most {MAX_LABEL_BYTES} bytes"));
            }
            if let (Some(game), Some(a), Some(b)) = (game, p0, p1) {
                players_used.insert(a);
                players_used.insert(b);
                // A start already past is a start at once.
                let start_at_ms = if m.start_at_ms > now { m.start_at_ms } else { 0 };
                specs.push((game, [a, b], start_at_ms, m.label.clone()));
            }
        }
        let missing = missing_players(&self.store, players_used).await?;
        for (i, m) in req.matches.iter().enumerate() {
            for (field, text) in
                [("seat0_player_id", &m.seat0_player_id), ("seat1_player_id", &m.seat1_player_id)]
            {
                if text.parse::<PlayerId>().is_ok_and(|p| missing.contains(&p)) {
                    bad.push((format!("matches[{i}].{field}"), format!("no player {text}")));
                }
            }
        }
        if !bad.is_empty() {
            bad.sort_by_key(|(field, _)| index_of(field));
            return Err(Error::BadEntries(bad));
        }
        if req.validate_only {
            return Ok(Vec::new());
        }
        let key = req.idempotency_key.clone();
        let ids: Vec<MatchId> = (0..specs.len())
            .map(|i| {
                MatchId(derived_id(&[
                    b"bulk",
                    tenant.to_string().as_bytes(),
                    key.as_bytes(),
                    &(i as u64).to_be_bytes(),
                ]))
            })
            .collect();
        let owned: Vec<OwnedMatch> = specs
            .into_iter()
            .zip(&ids)
            .map(|((game, players, start_at_ms, label), &match_id)| OwnedMatch {
                tenant,
                match_id,
                game,
                players,
                label,
                tournament: None,
                start_at_ms,
                state: State::Scheduled,
                commitment: String::new(),
                result: None,
            })
            .collect();
        let digest = request_digest(&req);
        let record = serde_json::to_string(&Record { ids: ids.clone() }).expect("a record");
        let rows: Vec<(MatchId, String)> = owned.iter().map(|m| (m.match_id, m.json())).collect();
        let scheduled: Vec<(MatchId, u64)> = owned
            .iter()
            .filter(|m| m.start_at_ms != 0)
            .map(|m| (m.match_id, m.start_at_ms))
            .collect();
        let begin = Begin {
            kind: KIND,
            tenant,
            key: &key,
            digest: &digest,
            record_json: &record,
            owned: &rows,
            scheduled: &scheduled,
            now_ms: now,
        };
        match self.store.begin(&begin).await? {
            Begun::Mismatch => return Err(Error::KeyReused),
            Begun::Same { done: true, record_json } => return ids_of(&record_json),
            Begun::Same { done: false, .. } | Begun::New => {}
        }
        self.run(tenant, &key, owned).await?;
        Ok(ids)
    }

    /// Finishes a begun request: creates its matches that start at once (a match already
    /// there is this one), then marks it done and announces them, once. Matches with a
    /// start time are the driver's ([`Bulk::start_scheduled`]).
    ///
    /// # Errors
    /// The store or an engine failed: the request stays unfinished.
    pub async fn run(
        &self,
        tenant: TenantId,
        key: &str,
        all: Vec<OwnedMatch>,
    ) -> Result<(), Error> {
        let now = now_ms();
        let due: Vec<OwnedMatch> = all.into_iter().filter(|m| m.start_at_ms == 0).collect();
        // A batch per engine call (each replica's matches of a batch in one CreateMatches),
        // two batches in flight so an engine is not idle between them.
        let created: Vec<Result<(OwnedMatch, String), Error>> =
            futures_util::stream::iter(due.chunks(CREATING_AT_ONCE).map(<[_]>::to_vec))
                .map(|batch| self.create_batch(batch))
                .buffered(BATCHES_AT_ONCE)
                .collect::<Vec<_>>()
                .await
                .into_iter()
                .flatten()
                .collect();
        let mut started = Vec::with_capacity(created.len());
        for c in created {
            let (mut m, commitment) = c?;
            m.state = State::Running;
            m.commitment = commitment;
            started.push(m);
        }
        started.sort_by_key(|m| m.match_id);
        let events: Vec<String> = started
            .iter()
            .map(|m| {
                Envelope {
                    at_ms: now,
                    tournament: None,
                    event: Event::MatchStarted { m: m.clone() },
                }
                .json()
            })
            .collect();
        self.store.finish(KIND, tenant, key, &events, now).await?;
        Ok(())
    }

    /// Creates a batch of a tenant's matches in their engines (never on a public list): each
    /// with its seed commitment, a match already there answered by its engine's meta.
    async fn create_batch(
        &self,
        batch: Vec<OwnedMatch>,
    ) -> Vec<Result<(OwnedMatch, String), Error>> {
        let new = batch.iter().map(|m| new_match(m, false)).collect();
        let created = self.engines.create_matches(new, tonic::metadata::MetadataMap::new()).await;
        let answers = batch.into_iter().zip(created).map(|(m, c)| async move {
            let commitment = match c? {
                Created::New { seed_commitment } => seed_commitment,
                Created::Exists => commitment_of(&self.engines, &m).await?,
            };
            Ok((m, commitment))
        });
        futures_util::future::join_all(answers).await
    }

    /// Creates a scheduled match whose time has come, announces it once, and takes it off
    /// the schedule.
    ///
    /// # Errors
    /// The store or its engine failed: it stays scheduled (the driver comes back).
    pub async fn start_scheduled(&self, id: MatchId) -> Result<(), Error> {
        let Some(json) = self.store.owned(id).await? else {
            self.store.unschedule(id).await?;
            return Ok(());
        };
        let mut m = OwnedMatch::parse(&json)?;
        m.commitment = create_in_engine(&self.engines, &m, false).await?;
        m.state = State::Running;
        let at_ms = now_ms();
        self.store
            .append_results(&Append {
                stream: ResultsStream::Tenant(m.tenant),
                expect_seq: None,
                once: Some(format!("started:{id}")),
                events: vec![
                    Envelope { at_ms, tournament: None, event: Event::MatchStarted { m } }.json(),
                ],
                owned: Vec::new(),
                at_ms,
                close: false,
            })
            .await?;
        self.store.unschedule(id).await?;
        Ok(())
    }

    /// The matches of a begun request, read back from the store (a takeover, a retry).
    ///
    /// # Errors
    /// The store failed, or a record is damaged.
    pub async fn matches_of(&self, record_json: &str) -> Result<Vec<OwnedMatch>, Error> {
        let ids = ids_of(record_json)?;
        let read: Vec<Result<Option<String>, store::StoreError>> =
            futures_util::stream::iter(ids.iter().copied())
                .map(|id| async move { self.store.owned(id).await })
                .buffered(CHECKING_AT_ONCE)
                .collect()
                .await;
        let mut out = Vec::with_capacity(ids.len());
        for r in read {
            let json =
                r?.ok_or_else(|| Error::Corrupt("a bulk match without its record".into()))?;
            out.push(OwnedMatch::parse(&json)?);
        }
        Ok(out)
    }
}

fn ids_of(record_json: &str) -> Result<Vec<MatchId>, Error> {
    serde_json::from_str::<Record>(record_json)
        .map(|r| r.ids)
        .map_err(|e| Error::Corrupt(e.to_string()))
}

/// The entry index in a field path `matches[<i>].<field>`, for ordering.
fn index_of(field: &str) -> usize {
    field
        .strip_prefix("matches[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX)
}

/// The request's identity: its matches as encoded (the key names it; `validate_only` is
/// not part of it).
fn request_digest(req: &v1::CreateMatchesRequest) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for m in &req.matches {
        let bytes = m.encode_to_vec();
        h.update((bytes.len() as u64).to_be_bytes());
        h.update(bytes);
    }
    hex::encode(h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_games_are_checked() {
        assert!(check_key("round-1:batch_2.a").is_ok());
        for bad in ["", "has space", &"k".repeat(65), "é"] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
        let spec = |game: &str, options: &str, ms: u64| v1::GameSpec {
            game: game.into(),
            options_json: options.into(),
            move_time_ms: ms,
        };
        let gops = check_game(Some(&spec("gops", "", 0))).expect("gops");
        assert_eq!(gops.move_time_ms, games::time::Policy::Hosted.bounds().default_ms);
        assert!(check_game(Some(&spec("gops", "{\"cards\":5}", 5_000))).is_ok());
        assert!(check_game(Some(&spec("nope", "", 0))).expect_err("game").contains("unknown"));
        let why = check_game(Some(&spec("gops", "{\"cards\":99}", 0))).expect_err("options");
        assert_eq!(why.matches("bad options").count(), 1, "said once: {why}");
        assert!(check_game(Some(&spec("gops", "", 10))).expect_err("time").contains("move_time"));
        assert!(check_game(None).is_err());
        let long = "x".repeat(5_000);
        let why = check_game(Some(&spec(&long, "", 0))).expect_err("long");
        assert!(why.len() < 600, "never the whole input: {}", why.len());
    }

    #[test]
    fn violations_sort_by_entry() {
        assert_eq!(index_of("matches[12].game"), 12);
        assert_eq!(index_of("matches"), usize::MAX);
    }
}
