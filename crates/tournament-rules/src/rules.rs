//! What a tournament format is, as one trait ([`FormatRules`]): its name, entrant bounds,
//! pairing (the next round, or the next wave of a continuous format), what a result does, when
//! it is over, its champion, its scoring and ranking, and the timing of a continuous format.
//! Each format implements it in its own module; [`Format::rules`](crate::Format::rules) is the
//! one place that picks the implementation, so nothing else matches on the format.

use crate::model::{Error, Game, GameNo, Outcome, Player, PlayerResult, Recorded, RoundPairing};
use crate::standings::Standing;
use crate::tournament::{MAX_ENTRANTS, Tournament};

/// When a continuous format (an arena) pairs and ends. The crate reads no clock: the caller
/// passes the time to [`Lifecycle`](crate::Lifecycle), which applies these.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Timing {
    /// How long the event lasts once started.
    pub duration_ms: u64,
    /// How many idle players are paired at once without waiting. Pairing the two who just
    /// finished at once would have them meet again and again; a few free at once mix.
    pub batch: usize,
    /// The longest an idle player waits for others before being paired anyway (maybe with
    /// the last opponent again).
    pub wait_ms: u64,
}

/// One tournament format's rules. Pure: every method is a function of its arguments, so
/// the service can replay a tournament's log and get the same answers.
///
/// A round-based format implements [`pair_round`](FormatRules::pair_round); a continuous
/// one answers [`timing`](FormatRules::timing) and implements
/// [`pair_wave`](FormatRules::pair_wave). The defaults are those of a format without
/// brackets, replays or streaks.
pub trait FormatRules {
    /// The format's name, as texts show it ("swiss").
    fn name(&self) -> &'static str;

    /// The format with its parameters in words, as a page shows it ("Swiss, 9 rounds").
    fn label(&self) -> String;

    /// The most entrants the format takes (the fewest is 2 for every format).
    fn max_entrants(&self) -> usize {
        MAX_ENTRANTS
    }

    /// Refuses parameters with which no event can be played (a Swiss of 0 rounds), once the
    /// entrants are counted and within bounds.
    ///
    /// # Errors
    /// The parameters' error.
    fn check(&self, _entrants: usize) -> Result<(), Error> {
        Ok(())
    }

    /// The rounds in all for `entrants`; 0 for a continuous format, which has none.
    fn total_rounds(&self, entrants: usize) -> u32;

    /// The games an event of `entrants` plays, replays and withdrawals aside (a guide for a
    /// progress bar): by default a game per two players per round; 0 for a continuous format,
    /// which plays as many as its time allows.
    fn planned_games(&self, entrants: usize) -> u64 {
        u64::from(self.total_rounds(entrants)) * (entrants as u64 / 2)
    }

    /// A continuous format's timing; `None` for a format played in rounds.
    fn timing(&self) -> Option<Timing> {
        None
    }

    /// The pairing of round `round` (the next one: the tournament has checked that it may
    /// begin).
    ///
    /// # Errors
    /// [`Error::WrongFormat`] in a continuous format; the format's pairing errors.
    fn pair_round(&self, t: &Tournament, round: u32) -> Result<RoundPairing, Error>;

    /// Whether `pairing` may begin the next round (its players are already known, active and
    /// there once). By default only the scheduled pairing may.
    ///
    /// # Errors
    /// [`Error::NotScheduled`], or the format's own rule broken.
    fn check_round(&self, t: &Tournament, pairing: &RoundPairing) -> Result<(), Error> {
        if *pairing != self.pair_round(t, pairing.round)? {
            return Err(Error::NotScheduled);
        }
        Ok(())
    }

    /// What the format keeps of a round just begun, its games numbered `games`.
    fn round_begun(&self, _t: &mut Tournament, _games: &[GameNo]) {}

    /// A continuous format: pairs among `idle` (active, not playing, each once). Empty in a
    /// format played in rounds.
    fn pair_wave(&self, _t: &Tournament, _idle: &[Player]) -> Vec<[Player; 2]> {
        Vec::new()
    }

    /// What a result does beyond being stored (it is stored already, its players free): a
    /// knockout advances the winner or starts a replay.
    fn result(&self, _t: &mut Tournament, _game: Game, _outcome: Outcome) -> Recorded {
        Recorded::Stored
    }

    /// Whether the event is over, asked once every game started has a result.
    fn finished(&self, t: &Tournament) -> bool {
        t.round() >= t.total_rounds()
    }

    /// The winner of the event, once it is over, if the format has one.
    fn champion(&self, _t: &Tournament) -> Option<Player> {
        None
    }

    /// A player's points (half-points) from their results in the order played and their
    /// byes.
    fn points(&self, results: &[PlayerResult], byes: u32) -> u32;

    /// Orders the standings, best first (every line's figures are filled in).
    fn rank(&self, rows: &mut [Standing]);

    /// The round each player reached, if the format counts it (a knockout).
    fn reached_rounds(&self, _t: &Tournament) -> Option<Vec<u32>> {
        None
    }

    /// How many rounds a pair may meet in, and how many byes a player may have; `None` when
    /// the format does not limit them. What [`audit`](crate::audit) checks.
    fn meetings(&self) -> Option<usize> {
        None
    }
}

/// A format as the command line gives it: its name and the numbers a format may take
/// (each format reads its own: [`crate::Format::from_words`]).
#[derive(Clone, Copy, Debug)]
pub struct Words<'a> {
    /// The format's command-line name ("swiss", "double-round-robin").
    pub name: &'a str,
    /// A Swiss's rounds.
    pub rounds: u32,
    /// An arena's length.
    pub duration_ms: u64,
    /// A knockout's draws go to the higher seed (else they are replayed).
    pub higher_seed: bool,
}
