//! The match lists in memory: each player's and each game's live list as ordered sets,
//! written under the store's one lock with the seat or step they follow, so here the
//! lists never disagree with the matches (Redis writes them apart, as hints).

use super::tables::page;
use crate::error::StoreError;
use crate::matches::lists::{Listed, checked_game};
use crate::memory::{MemoryStore, State};
use ids::{MatchId, PlayerId};

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
