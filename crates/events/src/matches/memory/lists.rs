//! The match lists in memory: each player's and each game's live list as ordered sets,
//! written under the store's one lock with the seat or step they follow, so here the
//! lists never disagree with the matches (Redis writes them apart, as hints).

use crate::error::StoreError;
use crate::matches::lists::{Listed, PLAYER_MATCHES_KEPT, checked_game};
use crate::memory::{MemoryStore, State};
use ids::{MatchId, PlayerId};
use std::collections::{BTreeMap, BTreeSet};

/// Every list.
#[derive(Default)]
pub(crate) struct Lists {
    /// Player -> its matches.
    players: BTreeMap<PlayerId, BTreeSet<Listed>>,
    /// Game -> its live matches.
    live: BTreeMap<String, BTreeSet<Listed>>,
    /// Match -> the bot that plays it.
    bots: BTreeMap<MatchId, String>,
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

impl MemoryStore {
    pub(crate) fn bot_name(&self, id: MatchId) -> Option<String> {
        self.lock().lists.bots.get(&id).cloned()
    }

    pub(crate) fn player_page(
        &self,
        player: PlayerId,
        before: Option<Listed>,
        limit: usize,
    ) -> Vec<Listed> {
        page(self.lock().lists.players.get(&player), before, limit)
    }

    pub(crate) fn unlist_player(&self, player: PlayerId, id: MatchId) {
        if let Some(set) = self.lock().lists.players.get_mut(&player) {
            set.retain(|l| l.id != id);
        }
    }

    pub(crate) fn live_page(
        &self,
        game: &str,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        checked_game(game)?;
        Ok(page(self.lock().lists.live.get(game), before, limit))
    }

    pub(crate) fn unlist_live(&self, game: &str, id: MatchId) -> Result<(), StoreError> {
        checked_game(game)?;
        self.lock().lists.remove_live(game, id);
        Ok(())
    }

    pub(crate) fn names(&self, players: &[PlayerId]) -> Vec<Option<String>> {
        let state = self.lock();
        players.iter().map(|p| name_of(&state, *p)).collect()
    }
}

/// An account's name as it is now, else its latest session's.
pub(crate) fn name_of(state: &State, player: PlayerId) -> Option<String> {
    state.lobby.account_name(player).or_else(|| state.players.get(&player).cloned())
}
