//! Bot matches: the live matches a built-in bot plays. The gateway records one as it
//! creates it (before the CreateMatch is answered), the bot runner reads them in the order
//! they were added (all of them when it takes over, the new ones as they come) and forgets
//! each once it has ended, so a runner that dies leaves nothing unplayed.

use crate::error::StoreError;
use ids::MatchId;

/// A live bot match: the match, its game and the bot that plays it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BotMatch {
    /// The match.
    pub id: MatchId,
    /// Its game (a registry name).
    pub game: String,
    /// The bot's name (one of the game's bots).
    pub bot: String,
}

/// The longest game or bot name a bot match keeps (the registry's are a few letters).
const MAX_NAME: usize = 64;

impl BotMatch {
    /// How the store keeps it: `<match id> <game> <bot>`.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`]: a game or bot name that is empty, too long, or not
    /// printable ASCII without spaces.
    pub(crate) fn member(&self) -> Result<String, StoreError> {
        let fits = |s: &str| {
            !s.is_empty() && s.len() <= MAX_NAME && s.bytes().all(|b| b.is_ascii_graphic())
        };
        if !fits(&self.game) || !fits(&self.bot) {
            return Err(StoreError::InvalidArgument(
                "a bot match's game and bot are names without spaces",
            ));
        }
        Ok(format!("{} {} {}", self.id, self.game, self.bot))
    }

    /// The bot match a stored member names.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`]: not three words, the first a match id.
    pub(crate) fn parse(key: &str, member: &str) -> Result<BotMatch, StoreError> {
        let corrupt =
            || StoreError::Corrupt(format!("{key}: a bot match is not `<match id> <game> <bot>`"));
        let mut words = member.split(' ');
        let (Some(id), Some(game), Some(bot), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(corrupt());
        };
        let id = id.parse().map_err(|_| corrupt())?;
        Ok(BotMatch { id, game: game.to_string(), bot: bot.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_reads_back_and_names_with_spaces_are_refused() {
        let m = BotMatch { id: MatchId::random(), game: "gops".into(), bot: "strong".into() };
        let member = m.member().expect("a member");
        assert_eq!(BotMatch::parse("k", &member).expect("parses"), m);
        let spaced = BotMatch { bot: "two words".into(), ..m.clone() };
        assert!(matches!(spaced.member(), Err(StoreError::InvalidArgument(_))));
        assert!(matches!(BotMatch::parse("k", "nope gops"), Err(StoreError::Corrupt(_))));
    }
}
