//! The JSON interchange behind `colosseum tournament pair`: a Swiss history in, the next round's
//! pairing out, so that other pairing programs can be compared with ours on the same input.
//!
//! Input (unknown fields are refused, to catch typos):
//! ```json
//! {"players": [{"rating": 1500.0}, {"rating": null}, {}],
//!  "rounds": [[{"white": 0, "black": 2, "result": "1-0"}, {"bye": 1}]],
//!  "total_rounds": 5}
//! ```
//! Players are numbered by their position in `players` (0-based); `rating` is optional. Each
//! round lists its games (`white` takes seat 0; `result` is `"1-0"`, `"0-1"` or `"1/2"`) and its
//! bye, if any. Output: `{"pairs": [[white, black], ...], "bye": null}` (or the bye's number),
//! the games in board order.

use crate::Format;
use crate::model::{Entrant, Error, Outcome, Player, RoundPairing};
use crate::tournament::Tournament;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    players: Vec<PlayerIn>,
    #[serde(default)]
    rounds: Vec<Vec<Board>>,
    total_rounds: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayerIn {
    #[serde(default)]
    rating: Option<f64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Board {
    Game(GameIn),
    Bye(ByeIn),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameIn {
    white: u32,
    black: u32,
    result: ResultIn,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ByeIn {
    bye: u32,
}

#[derive(Deserialize, Clone, Copy)]
enum ResultIn {
    #[serde(rename = "1-0")]
    White,
    #[serde(rename = "0-1")]
    Black,
    #[serde(rename = "1/2")]
    Draw,
}

#[derive(Serialize)]
struct Output {
    pairs: Vec<[u32; 2]>,
    bye: Option<u32>,
}

/// Pairs the next round of the Swiss described by `input` (see the module docs) and returns
/// it as JSON. The history is replayed through [`Tournament::begin_round`] and
/// [`Tournament::record`], so it must itself be a legal Swiss (every player in every round, no
/// repeat, no second bye).
///
/// # Errors
/// [`Error::InvalidJson`] for malformed input; any error of [`Tournament::new`],
/// [`Tournament::begin_round`] (an illegal history) or [`Tournament::pair_round`]
/// ([`Error::Finished`] when `total_rounds` have been played, [`Error::NoLegalPairing`]).
pub fn pair_from_json(input: &str) -> Result<String, Error> {
    let input: Input = serde_json::from_str(input).map_err(|e| Error::InvalidJson {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let entrants = input.players.iter().map(|p| Entrant { rating: p.rating }).collect();
    let mut t =
        Tournament::new(Format::Swiss(crate::Swiss { rounds: input.total_rounds }), entrants)?;
    for (i, boards) in input.rounds.iter().enumerate() {
        let mut games = Vec::new();
        let mut results = Vec::new();
        let mut byes = Vec::new();
        for b in boards {
            match b {
                Board::Game(g) => {
                    games.push([Player(g.white), Player(g.black)]);
                    results.push(match g.result {
                        ResultIn::White => Outcome::Seat0,
                        ResultIn::Black => Outcome::Seat1,
                        ResultIn::Draw => Outcome::Draw,
                    });
                }
                Board::Bye(b) => byes.push(Player(b.bye)),
            }
        }
        let numbers = t.begin_round(&RoundPairing { round: i as u32 + 1, games, byes })?;
        for (g, o) in numbers.into_iter().zip(results) {
            t.record(g, o)?;
        }
    }
    let next = t.pair_round()?;
    let out = Output {
        pairs: next.games.iter().map(|[a, b]| [a.0, b.0]).collect(),
        bye: next.byes.first().map(|p| p.0),
    };
    Ok(serde_json::to_string(&out).expect("the output serializes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_round_top_half_against_bottom_half() {
        let input = r#"{"players": [{"rating": 1500}, {"rating": 1700}, {"rating": null},
            {"rating": 1600}, {}], "total_rounds": 3}"#;
        // Seeds: 1 (1700), 3 (1600), 0 (1500), 2 and 4 unrated. Odd: the last seed (4) has the
        // bye; 1 v 0 and 3 v 2; seed 1 (odd pairing number) takes seat 0 on board 1, seed 2
        // takes seat 1 on board 2.
        assert_eq!(pair_from_json(input).unwrap(), r#"{"pairs":[[1,0],[2,3]],"bye":4}"#);
    }

    #[test]
    fn a_history_is_replayed() {
        let input = r#"{"players": [{"rating": 4}, {"rating": 3}, {"rating": 2}, {"rating": 1}],
            "rounds": [[{"white": 0, "black": 2, "result": "1-0"},
                        {"white": 3, "black": 1, "result": "1/2"}]],
            "total_rounds": 3}"#;
        // After round 1: 0 has 1 point; 1 and 3 a half; 2 nothing. 0 floats down to the
        // half-points and meets 1, the first in S2 (3 had seat 0 like 0: the seat rule keeps
        // them apart anyway); 3 floats down to 2. Seats balance: 0 and 3 take seat 1.
        let out = pair_from_json(input).unwrap();
        assert_eq!(out, r#"{"pairs":[[1,0],[2,3]],"bye":null}"#);
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(matches!(pair_from_json("{"), Err(Error::InvalidJson { .. })));
        assert!(matches!(
            pair_from_json(r#"{"players": [{}, {}], "total_rounds": 1, "extra": 1}"#),
            Err(Error::InvalidJson { .. })
        ));
        // A repeat in the history.
        let input = r#"{"players": [{}, {}], "total_rounds": 3,
            "rounds": [[{"white": 0, "black": 1, "result": "1-0"}],
                       [{"white": 1, "black": 0, "result": "1-0"}]]}"#;
        assert_eq!(pair_from_json(input), Err(Error::Repeat([Player(1), Player(0)])));
        // All rounds played.
        let input = r#"{"players": [{}, {}], "total_rounds": 1,
            "rounds": [[{"white": 0, "black": 1, "result": "0-1"}]]}"#;
        assert_eq!(pair_from_json(input), Err(Error::Finished));
        // Too few players for the rounds.
        let input = r#"{"players": [{}, {}], "total_rounds": 2,
            "rounds": [[{"white": 0, "black": 1, "result": "0-1"}]]}"#;
        assert_eq!(pair_from_json(input), Err(Error::NoLegalPairing { round: 2 }));
    }
}
