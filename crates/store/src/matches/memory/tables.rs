//! The matches' tables in the in-memory store beside the matches themselves: the live
//! bot matches and the players' and games' lists, held in the store's one state.

use crate::matches::bots::BotMatch;
use crate::matches::lists::{Listed, PLAYER_MATCHES_KEPT};
use ids::{MatchId, PlayerId};
use std::collections::{BTreeMap, BTreeSet};

/// The live bot matches.
#[derive(Default)]
pub(crate) struct Bots {
    /// The last position given.
    pub(crate) seq: u64,
    /// Position -> bot match, and the way back.
    pub(crate) by_seq: BTreeMap<u64, BotMatch>,
    pub(crate) seq_of: BTreeMap<BotMatch, u64>,
}

/// Every list.
#[derive(Default)]
pub(crate) struct Lists {
    /// Player -> its matches.
    pub(crate) players: BTreeMap<PlayerId, BTreeSet<Listed>>,
    /// Game -> its live matches.
    pub(crate) live: BTreeMap<String, BTreeSet<Listed>>,
    /// Match -> the bot that plays it.
    pub(crate) bots: BTreeMap<MatchId, String>,
}

/// At most `limit` of `set` older than `before`, newest first.
pub(crate) fn page(
    set: Option<&BTreeSet<Listed>>,
    before: Option<Listed>,
    limit: usize,
) -> Vec<Listed> {
    let Some(set) = set else { return Vec::new() };
    match before {
        Some(b) => set.range(..b).rev().take(limit).copied().collect(),
        None => set.iter().rev().take(limit).copied().collect(),
    }
}

impl Lists {
    /// Lists `listed` for `player`, trimming the oldest past the limit.
    pub(crate) fn add_player(&mut self, player: PlayerId, listed: Listed) {
        let set = self.players.entry(player).or_default();
        set.insert(listed);
        while set.len() > PLAYER_MATCHES_KEPT {
            set.pop_first();
        }
    }

    pub(crate) fn add_live(&mut self, game: &str, listed: Listed) {
        self.live.entry(game.to_string()).or_default().insert(listed);
    }

    pub(crate) fn remove_live(&mut self, game: &str, id: MatchId) {
        if let Some(set) = self.live.get_mut(game) {
            set.retain(|l| l.id != id);
        }
    }

    pub(crate) fn set_bot(&mut self, id: MatchId, bot: &str) {
        self.bots.insert(id, bot.to_string());
    }
}
