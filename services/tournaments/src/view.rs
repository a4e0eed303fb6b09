//! Public pages (`colosseum.v1.TournamentViewService`): a tournament its organiser opened
//! (`public_page`) read by its id alone, with no key, as a bounded page of standings lines
//! with their crosstable rows and games by round; a watch sends a new page each time the
//! tournament's results stream moves on. Nothing of the tenant's (its id, name, keys, the
//! player ids) is ever on a page.

use crate::error::Error;
use crate::fold::Loaded;
use crate::records::Row;
use crate::results::{WATCH_POLL, Wakes, appended};
use crate::tournaments::Tournaments;
use api::v1::{self, tournament_view_service_server::TournamentViewService};
use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{TenantId, TenantStore, TournamentId};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, mpsc};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};
use tournament_rules::{Outcome, PlayerResult};

/// Standings lines on a page when the caller does not say.
pub const DEFAULT_LINES: u32 = 100;
/// The most standings lines a page holds.
pub const MAX_LINES: u32 = 1_000;
/// Games on a page when the caller does not say.
pub const DEFAULT_GAMES: u32 = 500;
/// The most games a page holds.
pub const MAX_GAMES: u32 = 1_000;
/// The most crosstable cells of one line (its latest): a swiss (50 rounds at most) is
/// whole; a long round robin or an arena shows its latest and counts the rest.
pub const CROSSTABLE_CELLS: usize = 50;
/// The most public watches one replica follows at once: a page's watch needs no key, so
/// the count is bounded here.
pub const MAX_WATCHES: usize = 10_000;
/// The least time between two pages of one watch: a burst of results makes one page.
pub const WATCH_GAP: Duration = Duration::from_millis(500);
/// Pages kept made (per tournament and window, at one sequence number), so that many
/// watchers of one tournament cost one page per change; and the most bytes they hold.
const PAGES_KEPT: usize = 256;
const PAGES_BYTES: usize = 32 << 20;

/// What a page shows: which standings lines and which games.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Window {
    /// The first standings line, 0-based.
    pub lines_from: usize,
    /// How many lines.
    pub lines: usize,
    /// How many of the newest games to leave out.
    pub games_skipped: usize,
    /// How many games (the newest left).
    pub games: usize,
}

impl Window {
    /// A request's window, its limits checked.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming a limit over its bound.
    pub fn of(
        standings_offset: u32,
        standings_limit: u32,
        games_offset: u32,
        games_limit: u32,
    ) -> Result<Window, Error> {
        use api_convert::text::page_size;
        let size = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
        Ok(Window {
            lines_from: size(standings_offset),
            lines: size(page_size("standings_limit", standings_limit, DEFAULT_LINES, MAX_LINES)?),
            games_skipped: size(games_offset),
            games: size(page_size("games_limit", games_limit, DEFAULT_GAMES, MAX_GAMES)?),
        })
    }
}

/// The page of `l` in window `w`.
pub fn page(l: &Loaded, w: Window) -> v1::PublicTournament {
    let lines = l.t.standings();
    let mut rank_of = vec![0; l.spec.entrants.len()];
    for s in &lines {
        rank_of[s.player.index()] = s.rank;
    }
    let from = w.lines_from.min(lines.len());
    let shown = &lines[from..(from.saturating_add(w.lines)).min(lines.len())];
    let standings = shown
        .iter()
        .zip(l.t.crosstable_rows(shown))
        .map(|(s, row)| standing(&l.row(s), &row.cells, &rank_of))
        .collect();
    let games = l.t.games();
    let end = games.len().saturating_sub(w.games_skipped);
    let mut round_games: Vec<v1::PublicRound> = Vec::new();
    for g in &games[end.saturating_sub(w.games)..end] {
        let game = v1::PublicGame {
            match_id: l.match_of(g.no.0).to_string(),
            seat0_name: l.name_of(g.players[0]).to_string(),
            seat1_name: l.name_of(g.players[1]).to_string(),
            seat0_rank: rank_of[g.players[0].index()],
            seat1_rank: rank_of[g.players[1].index()],
            result: game_result(g.outcome) as i32,
        };
        // Games are numbered in the order their rounds start: one round's are together.
        match round_games.last_mut() {
            Some(r) if r.round == g.round => r.games.push(game),
            _ => round_games.push(v1::PublicRound {
                round: g.round,
                games: vec![game],
                bye_names: l.t.byes_of(g.round).iter().map(|p| l.name_of(*p).into()).collect(),
            }),
        }
    }
    v1::PublicTournament {
        tournament_id: l.spec.id.to_string(),
        name: l.spec.name.clone(),
        game: Some(l.spec.game.to_proto()),
        format: Some(l.spec.format.to_proto()),
        format_label: l.spec.format.rules().label(),
        state: crate::records::state_to_proto(l.state()) as i32,
        round: l.t.round(),
        rounds: l.rounds(),
        players: l.spec.entrants.len() as u32,
        games: games.len() as u32,
        games_finished: games.iter().filter(|g| g.outcome.is_some()).count() as u32,
        ends_at_ms: l.ends_at_ms(),
        sequence: l.seq,
        standings,
        round_games,
    }
}

/// A standings line as GetStandings has it (`row`), without the player id, with its
/// crosstable row's latest cells.
fn standing(row: &Row, cells: &[tournament_rules::Cell], rank_of: &[u32]) -> v1::PublicStanding {
    let earlier = cells.len().saturating_sub(CROSSTABLE_CELLS);
    v1::PublicStanding {
        rank: row.rank,
        name: row.name.clone(),
        points2: row.points2,
        played: row.played,
        wins: row.wins,
        draws: row.draws,
        losses: row.losses,
        byes: row.byes,
        buchholz2: row.buchholz2,
        sonneborn_berger4: row.sonneborn_berger4,
        withdrawn: row.withdrawn,
        reached_round: row.reached_round,
        crosstable: cells[earlier..].iter().map(|c| cell(c, rank_of)).collect(),
        crosstable_earlier: earlier as u32,
    }
}

fn cell(c: &tournament_rules::Cell, rank_of: &[u32]) -> v1::CrosstableCell {
    use v1::CrosstableResult as R;
    let result = match (c.game, c.result) {
        (None, _) => R::Bye,
        (Some(_), None) => R::Pending,
        (Some(_), Some(PlayerResult::Win)) => R::Win,
        (Some(_), Some(PlayerResult::Draw)) => R::Draw,
        (Some(_), Some(PlayerResult::Loss)) => R::Loss,
    };
    v1::CrosstableCell {
        round: c.round,
        opponent_rank: c.opponent.map_or(0, |o| rank_of[o.index()]),
        seat: c.seat.map_or(0, |s| s.index() as u32),
        result: result as i32,
    }
}

fn game_result(outcome: Option<Outcome>) -> v1::PublicGameResult {
    match outcome {
        None => v1::PublicGameResult::Pending,
        Some(Outcome::Seat0) => v1::PublicGameResult::Seat0Won,
        Some(Outcome::Seat1) => v1::PublicGameResult::Seat1Won,
        Some(Outcome::Draw) => v1::PublicGameResult::Draw,
    }
}

/// Pages made, by tournament and window, each with the sequence number it shows.
type Made = BTreeMap<(TournamentId, Window), (u64, Arc<v1::PublicTournament>)>;

/// The pages kept made: a page is a function of the tournament at a sequence number and
/// its window, so one made for a watcher serves every other with that window.
#[derive(Default)]
struct Pages {
    made: Mutex<(Made, usize)>,
}

impl Pages {
    fn of(&self, l: &Loaded, w: Window) -> Arc<v1::PublicTournament> {
        let key = (l.spec.id, w);
        if let Some((seq, page)) = self.made.lock().expect("the pages lock").0.get(&key)
            && *seq == l.seq
        {
            return page.clone();
        }
        // Made outside the lock, which every tournament's pages share: a page of the largest
        // window is a pass over every game, and a std lock held that long stalls the
        // runtime's threads (the caller holds the tournament's own lock, so one
        // tournament's page is still made once).
        let made = Arc::new(page(l, w));
        let bytes = prost::Message::encoded_len(made.as_ref());
        let mut held = self.made.lock().expect("the pages lock");
        let (pages, held_bytes) = &mut *held;
        if pages.len() >= PAGES_KEPT || *held_bytes + bytes > PAGES_BYTES {
            // Start again: the pages in use are made again once each.
            pages.clear();
            *held_bytes = 0;
        }
        *held_bytes += bytes;
        if let Some((_, old)) = pages.insert(key, (l.seq, made.clone())) {
            *held_bytes = held_bytes.saturating_sub(prost::Message::encoded_len(old.as_ref()));
        }
        made
    }
}

/// The public pages.
#[derive(Clone)]
pub struct View {
    store: Arc<dyn TenantStore>,
    tournaments: Arc<Tournaments>,
    wakes: Wakes,
    watches: Arc<Semaphore>,
    pages: Arc<Pages>,
    shutdown: CancellationToken,
}

impl View {
    /// Over the store's tournaments, watches woken by `wakes` and ended at `shutdown`.
    pub fn new(
        store: Arc<dyn TenantStore>,
        tournaments: Arc<Tournaments>,
        wakes: Wakes,
        shutdown: CancellationToken,
    ) -> View {
        View {
            store,
            tournaments,
            wakes,
            watches: Arc::new(Semaphore::new(MAX_WATCHES)),
            pages: Arc::default(),
            shutdown,
        }
    }

    /// The public tournament `id` names, with its tenant: NOT_FOUND alike for an id that
    /// names nothing and for a tournament not public (which is never listed).
    async fn find(&self, id: &str) -> Result<(TenantId, TournamentId), Error> {
        if id.is_empty() {
            return Err(
                api_convert::bad("tournament_id", "tournament_id is required".into()).into()
            );
        }
        let id: TournamentId = api_convert::uuid_field("tournament_id", id)?;
        let tenant =
            self.store.public_tournament(id).await?.ok_or(Error::NotFound("tournament"))?;
        Ok((tenant, id))
    }

    /// The page of `id` in `w` now.
    async fn page(
        &self,
        tenant: TenantId,
        id: TournamentId,
        w: Window,
    ) -> Result<Arc<v1::PublicTournament>, Error> {
        let pages = &self.pages;
        self.tournaments
            .read_with(tenant, id, |l| {
                // The listing is a hint; the tournament's own word is the truth.
                if l.spec.public_page {
                    Ok(pages.of(l, w))
                } else {
                    Err(Error::NotFound("tournament"))
                }
            })
            .await?
    }

    /// Sends `shown`'s page's successors into `tx` until the tournament finishes, the
    /// client goes, or shutdown (then UNAVAILABLE): read again on each append of its
    /// tenant, at most one page per [`WATCH_GAP`], a page only when the stream moved on.
    async fn follow(
        self,
        (tenant, id, w): (TenantId, TournamentId, Window),
        mut shown: Arc<v1::PublicTournament>,
        mut wakes: broadcast::Receiver<TenantId>,
        tx: mpsc::Sender<Result<v1::WatchPublicTournamentResponse, Status>>,
        _permit: OwnedSemaphorePermit,
    ) {
        let send = |page: &v1::PublicTournament| {
            tx.send(Ok(v1::WatchPublicTournamentResponse { tournament: Some(page.clone()) }))
        };
        if send(&shown).await.is_err() {
            return;
        }
        while shown.state != v1::TournamentState::Finished as i32 {
            tokio::select! {
                () = self.shutdown.cancelled() => break,
                () = tx.closed() => return,
                () = tokio::time::sleep(WATCH_GAP) => {}
            }
            tokio::select! {
                () = self.shutdown.cancelled() => break,
                () = tx.closed() => return,
                () = appended(&mut wakes, tenant) => {}
                () = tokio::time::sleep(WATCH_POLL) => {}
            }
            let page = match self.page(tenant, id, w).await {
                Ok(p) => p,
                Err(e) => {
                    let _ = tx.send(Err(e.into())).await;
                    return;
                }
            };
            if page.sequence != shown.sequence {
                shown = page;
                if send(&shown).await.is_err() {
                    return;
                }
            }
        }
        if self.shutdown.is_cancelled() {
            let _ = tx.send(Err(Error::ShuttingDown.into())).await;
        }
    }
}

type Watch = Pin<Box<dyn Stream<Item = Result<v1::WatchPublicTournamentResponse, Status>> + Send>>;

#[tonic::async_trait]
impl TournamentViewService for View {
    async fn get_public_tournament(
        &self,
        req: Request<v1::GetPublicTournamentRequest>,
    ) -> Result<Response<v1::GetPublicTournamentResponse>, Status> {
        let v1::GetPublicTournamentRequest {
            tournament_id,
            standings_offset,
            standings_limit,
            games_offset,
            games_limit,
        } = req.into_inner();
        let w = Window::of(standings_offset, standings_limit, games_offset, games_limit)?;
        let (tenant, id) = self.find(&tournament_id).await?;
        let page = self.page(tenant, id, w).await?;
        Ok(Response::new(v1::GetPublicTournamentResponse {
            tournament: Some(Arc::unwrap_or_clone(page)),
        }))
    }

    type WatchPublicTournamentStream = Watch;

    async fn watch_public_tournament(
        &self,
        req: Request<v1::WatchPublicTournamentRequest>,
    ) -> Result<Response<Watch>, Status> {
        let v1::WatchPublicTournamentRequest {
            tournament_id,
            standings_offset,
            standings_limit,
            games_offset,
            games_limit,
        } = req.into_inner();
        let w = Window::of(standings_offset, standings_limit, games_offset, games_limit)?;
        let (tenant, id) = self.find(&tournament_id).await?;
        let permit = self.watches.clone().try_acquire_owned().map_err(|_| Error::TooManyWatches)?;
        // Subscribed before the first read: an append after it wakes the watch.
        let wakes = self.wakes.subscribe();
        let first = self.page(tenant, id, w).await?;
        // One page waiting at most: a slow reader gets the latest page, not a backlog.
        let (tx, rx) = mpsc::channel(1);
        tokio::spawn(self.clone().follow((tenant, id, w), first, wakes, tx, permit));
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{decide_due, decide_round};
    use crate::played::{T0, apply, finish_all, played_round_robin, spec};
    use crate::records::{Envelope, Event};
    use tournament_rules::Arena;
    use tournament_rules::arena::WAIT_MS as ARENA_WAIT_MS;

    #[test]
    fn a_public_page_shows_getstandings_lines_their_crosstable_and_the_games_by_round() {
        use v1::{CrosstableResult as C, PublicGameResult as G};
        let l = played_round_robin(5);
        let all = Window::of(0, 0, 0, 0).expect("the defaults");
        let p = page(&l, all);
        assert_eq!((p.players, p.games, p.games_finished, p.rounds), (5, 10, 10, 5));
        assert_eq!(p.state, v1::TournamentState::Finished as i32);
        assert_eq!(p.sequence, l.seq);
        // GetStandings' lines, without the player id.
        let rows = l.rows();
        assert_eq!(p.standings.len(), 5);
        for (line, row) in p.standings.iter().zip(&rows) {
            let mut same = row.to_proto();
            same.player_id.clear();
            let got = v1::Standing {
                rank: line.rank,
                player_id: String::new(),
                name: line.name.clone(),
                points2: line.points2,
                played: line.played,
                wins: line.wins,
                draws: line.draws,
                losses: line.losses,
                byes: line.byes,
                buchholz2: line.buchholz2,
                sonneborn_berger4: line.sonneborn_berger4,
                withdrawn: line.withdrawn,
                reached_round: line.reached_round,
            };
            assert_eq!(got, same);
            // Five rounds of an odd field: four games and a bye each, in round order.
            let rounds: Vec<u32> = line.crosstable.iter().map(|c| c.round).collect();
            assert_eq!(rounds, [1, 2, 3, 4, 5], "{}", line.name);
            let byes = line.crosstable.iter().filter(|c| c.result == C::Bye as i32).count();
            assert_eq!(byes, 1);
        }
        // Each game is in both players' rows, one's win the other's loss.
        let rank_of = |name: &str| p.standings.iter().find(|s| s.name == name).map(|s| s.rank);
        for r in &p.round_games {
            assert_eq!(r.games.len(), 2, "round {}", r.round);
            assert_eq!(r.bye_names.len(), 1);
            for g in &r.games {
                assert_eq!(Some(g.seat0_rank), rank_of(&g.seat0_name));
                let row = &p.standings[g.seat0_rank as usize - 1];
                let c = row.crosstable.iter().find(|c| c.round == r.round).expect("a cell");
                assert_eq!((c.opponent_rank, c.seat), (g.seat1_rank, 0));
                let expected = match G::try_from(g.result).expect("a result") {
                    G::Seat0Won => C::Win,
                    G::Seat1Won => C::Loss,
                    G::Draw => C::Draw,
                    G::Pending | G::Unspecified => C::Pending,
                };
                assert_eq!(c.result, expected as i32);
            }
        }
        let rounds: Vec<u32> = p.round_games.iter().map(|r| r.round).collect();
        assert_eq!(rounds, [1, 2, 3, 4, 5]);
        // Nothing of the tenant's, and no player id.
        let text = format!("{p:?}");
        assert!(!text.contains(&l.spec.tenant.to_string()));
        for e in &l.spec.entrants {
            assert!(!text.contains(&e.player.to_string()[..8]), "a player id on the page");
        }
        // Windows: lines 2 and 3; the three newest games but the two newest.
        let w = Window::of(1, 2, 2, 3).expect("a window");
        let part = page(&l, w);
        assert_eq!(part.standings, p.standings[1..3]);
        let ids = |p: &v1::PublicTournament| -> Vec<String> {
            p.round_games.iter().flat_map(|r| r.games.iter().map(|g| g.match_id.clone())).collect()
        };
        assert_eq!(ids(&part), ids(&p)[5..8]);
        assert_eq!(part.round_games.iter().map(|r| r.round).collect::<Vec<_>>(), [3, 4]);
        let past = page(&l, Window::of(9, 0, 99, 0).expect("a window"));
        assert!(past.standings.is_empty() && past.round_games.is_empty());
        assert_eq!(past.players, 5, "the summary is on every page");
        // Limits over their bounds name their field.
        for (w, field) in [
            (Window::of(0, 1_001, 0, 0), "standings_limit"),
            (Window::of(0, 0, 0, 1_001), "games_limit"),
        ] {
            match w {
                Err(Error::Field(api_convert::FieldError::Bad { field: f, .. })) => {
                    assert_eq!(f, field)
                }
                other => panic!("{field}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_page_of_a_day_long_arena_of_a_thousand_players_stays_under_a_mebibyte() {
        let format = tournament_rules::Format::Arena(Arena { duration_ms: 24 * 3600 * 1000 });
        let mut sp = spec(format, 1_000);
        for (i, e) in sp.entrants.iter_mut().enumerate() {
            // The longest names there are.
            e.name = format!("{i:04}{}", "n".repeat(60));
        }
        let mut l = Loaded::new(sp.clone(), 0).expect("valid");
        l.fold(
            1,
            &Envelope { at_ms: T0, tournament: Some(sp.id), event: Event::Created { spec: sp } },
        );
        let step = decide_round(&l, 1, T0).expect("start");
        apply(&mut l, step, T0);
        let mut at = T0;
        for _ in 0..60 {
            at += ARENA_WAIT_MS;
            finish_all(&mut l, at);
            let d = decide_due(&l, at + ARENA_WAIT_MS).expect("paired");
            apply(&mut l, d, at);
        }
        assert!(l.t.games().len() >= 30_000, "{} games", l.t.games().len());
        let p = page(&l, Window::of(0, 1_000, 0, 1_000).expect("the largest window"));
        assert_eq!(p.standings.len(), 1_000);
        assert!(p.standings.iter().all(|s| s.crosstable.len() == CROSSTABLE_CELLS));
        assert!(p.standings.iter().all(|s| s.crosstable_earlier > 0));
        let games: usize = p.round_games.iter().map(|r| r.games.len()).sum();
        assert_eq!((games, p.round_games.len()), (1_000, 1), "an arena's games are round 0");
        let bytes = prost::Message::encoded_len(&p);
        assert!(bytes < 1 << 20, "{bytes} bytes");
    }
}
