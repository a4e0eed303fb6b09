//! Glicko-2 ratings: one rating period for one player, and one match rated as its own period
//! for both players. The arithmetic is the `skillratings` crate's; this module fixes the system
//! constants, checks the inputs and guarantees that no NaN or infinity comes out.

use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, decay_deviation, glicko2_rating_period};
use std::fmt;

/// The system constant tau: how much the volatility may move in one period. Glickman suggests
/// 0.3 to 1.2; 0.5 is the usual middle choice (and the paper's worked example).
pub const TAU: f64 = 0.5;

/// The convergence tolerance of the volatility iteration (step 5 of the paper), on the scale of
/// ln(volatility²).
pub const CONVERGENCE_TOLERANCE: f64 = 0.000_001;

/// Above this deviation a rating is provisional: the match-maker does not trust it enough to
/// show it or to pair by it strictly. 110 is about a third of a new player's 350.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// A player's Glicko-2 rating on the Glicko scale (a new player is 1500 ± 350).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// The rating itself (the mean of the skill estimate).
    pub rating: f64,
    /// The rating deviation (RD): one standard deviation of the skill estimate.
    pub deviation: f64,
    /// The volatility: how erratic the player's results are, the expected fluctuation of the
    /// rating from one period to the next.
    pub volatility: f64,
}

impl Rating {
    /// A player who has never played: 1500 / 350 / 0.06, the paper's defaults.
    pub const NEW: Rating = Rating { rating: 1500.0, deviation: 350.0, volatility: 0.06 };

    /// Whether the rating is still provisional (deviation above [`PROVISIONAL_DEVIATION`]).
    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// Whether the rating can be computed with: every field finite, the deviation and the
    /// volatility positive (the algorithm takes logarithms and divides by them).
    pub fn is_valid(&self) -> bool {
        self.rating.is_finite()
            && self.deviation.is_finite()
            && self.deviation > 0.0
            && self.volatility.is_finite()
            && self.volatility > 0.0
    }

    fn to_lib(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    fn from_lib(r: Glicko2Rating) -> Rating {
        Rating { rating: r.rating, deviation: r.deviation, volatility: r.volatility }
    }
}

impl Default for Rating {
    fn default() -> Self {
        Rating::NEW
    }
}

/// Why a rating could not be computed. Nothing is clamped: a bad input is a bug upstream (or
/// corrupt stored data) and is reported rather than silently rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingError {
    /// The rated player's rating is not valid ([`Rating::is_valid`]).
    Player,
    /// The opponent at this index of the results is not valid ([`Rating::is_valid`]).
    Opponent(usize),
    /// The score at this index of the results is not 0, 0.5 or 1.
    Score(usize),
    /// The inputs were valid but so far outside any real rating (e.g. ratings near
    /// `f64::MAX` with a deviation of 1e-300) that the arithmetic left f64's range. The guard
    /// that keeps NaN and infinities from ever coming out.
    OutOfRange,
}

impl fmt::Display for RatingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RatingError::Player => write!(
                f,
                "the player's rating is not finite or its deviation or volatility is not positive"
            ),
            RatingError::Opponent(i) => write!(
                f,
                "opponent {i}'s rating is not finite or its deviation or volatility is not positive"
            ),
            RatingError::Score(i) => write!(f, "score {i} is not 0, 0.5 or 1"),
            RatingError::OutOfRange => write!(f, "the ratings are too far apart to compute with"),
        }
    }
}

impl std::error::Error for RatingError {}

const CONFIG: Glicko2Config =
    Glicko2Config { tau: TAU, convergence_tolerance: CONVERGENCE_TOLERANCE };

/// A score as one of the three outcomes Glicko-2 knows. Exact comparison on purpose: scores are
/// produced by code as these literals, anything else is a bug worth reporting.
fn outcome(score: f64) -> Option<Outcomes> {
    if score == 1.0 {
        Some(Outcomes::WIN)
    } else if score == 0.5 {
        Some(Outcomes::DRAW)
    } else if score == 0.0 {
        Some(Outcomes::LOSS)
    } else {
        None
    }
}

/// Rates one rating period for `player`: `results` are the period's games, each with the
/// opponent's rating as it was before the period and the player's score (1.0 a win, 0.5 a draw,
/// 0.0 a loss). Glickman's steps 2 to 8.
///
/// An empty `results` is a period in which the player did not play: only the deviation grows,
/// to sqrt(deviation² + volatility²) on the Glicko-2 scale (step 6); rating and volatility stay.
/// Unlike the paper (but like Glicko-1's advice), the grown deviation is capped at 350, a new
/// player's, so a long-idle player never becomes less certain than a newcomer; a deviation that
/// was already above 350 comes out as 350.
///
/// # Errors
/// [`RatingError::Player`] or [`RatingError::Opponent`] for a rating with a non-finite field or a
/// deviation or volatility that is not positive, [`RatingError::Score`] for a score other than 0,
/// 0.5 and 1 (including NaN), and [`RatingError::OutOfRange`] if the result would not be finite
/// with a positive deviation and volatility. So no NaN ever comes out.
pub fn rate(player: Rating, results: &[(Rating, f64)]) -> Result<Rating, RatingError> {
    if !player.is_valid() {
        return Err(RatingError::Player);
    }
    let mut games = Vec::with_capacity(results.len());
    for (i, &(opponent, score)) in results.iter().enumerate() {
        if !opponent.is_valid() {
            return Err(RatingError::Opponent(i));
        }
        games.push((opponent.to_lib(), outcome(score).ok_or(RatingError::Score(i))?));
    }
    let rated = if games.is_empty() {
        decay_deviation(&player.to_lib())
    } else {
        glicko2_rating_period(&player.to_lib(), &games, &CONFIG)
    };
    let rated = Rating::from_lib(rated);
    if rated.is_valid() { Ok(rated) } else { Err(RatingError::OutOfRange) }
}

/// Rates one match as its own rating period for both players: `a` against `b`'s rating before
/// the match and `b` against `a`'s, with `score_a` a's score (1.0, 0.5 or 0.0) and b's score its
/// complement. Returns the new `(a, b)`.
///
/// # Errors
/// [`RatingError::Player`] if `a` is not valid, [`RatingError::Opponent(0)`](RatingError::Opponent)
/// if `b` is not, [`RatingError::Score(0)`](RatingError::Score) if `score_a` is not 0, 0.5 or 1,
/// and [`RatingError::OutOfRange`] as in [`rate`].
pub fn rate_match(a: Rating, b: Rating, score_a: f64) -> Result<(Rating, Rating), RatingError> {
    if !b.is_valid() {
        // Checked here so that an invalid `b` is reported as the opponent, not as the player
        // of the second call.
        return Err(RatingError::Opponent(0));
    }
    let new_a = rate(a, &[(b, score_a)])?;
    let new_b = rate(b, &[(a, 1.0 - score_a)])?;
    Ok((new_a, new_b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Glickman, "Example of the Glicko-2 system" (2013), the worked example.
    #[test]
    fn glickman_worked_example() {
        let player = Rating { rating: 1500.0, deviation: 200.0, volatility: 0.06 };
        let results = [
            (Rating { rating: 1400.0, deviation: 30.0, volatility: 0.06 }, 1.0),
            (Rating { rating: 1550.0, deviation: 100.0, volatility: 0.06 }, 0.0),
            (Rating { rating: 1700.0, deviation: 300.0, volatility: 0.06 }, 0.0),
        ];
        let r = rate(player, &results).unwrap();
        assert!(close(r.rating, 1464.06, 0.01), "{r:?}");
        assert!(close(r.deviation, 151.52, 0.01), "{r:?}");
        assert!(close(r.volatility, 0.05999, 0.00001), "{r:?}");
    }

    #[test]
    fn idle_period_grows_the_deviation_only() {
        let player = Rating { rating: 1720.0, deviation: 80.0, volatility: 0.06 };
        let r = rate(player, &[]).unwrap();
        assert_eq!((r.rating, r.volatility), (1720.0, 0.06));
        let phi = 80.0 / 173.7178;
        let expected = (phi * phi + 0.06f64 * 0.06).sqrt() * 173.7178;
        assert!(close(r.deviation, expected, 1e-9), "{r:?}");
        // Capped at a newcomer's deviation.
        assert_eq!(rate(Rating::NEW, &[]).unwrap().deviation, 350.0);
    }

    #[test]
    fn provisional_above_110() {
        assert!(Rating::NEW.is_provisional());
        assert!(!Rating { deviation: 110.0, ..Rating::NEW }.is_provisional());
        assert!(Rating { deviation: 110.5, ..Rating::NEW }.is_provisional());
        assert_eq!(Rating::default(), Rating::NEW);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let ok = Rating::NEW;
        for bad in [
            Rating { rating: f64::NAN, ..ok },
            Rating { rating: f64::INFINITY, ..ok },
            Rating { deviation: 0.0, ..ok },
            Rating { deviation: -3.0, ..ok },
            Rating { volatility: 0.0, ..ok },
            Rating { volatility: f64::NAN, ..ok },
        ] {
            assert_eq!(rate(bad, &[(ok, 1.0)]), Err(RatingError::Player));
            assert_eq!(rate(bad, &[]), Err(RatingError::Player));
            assert_eq!(rate(ok, &[(ok, 1.0), (bad, 0.0)]), Err(RatingError::Opponent(1)));
            assert_eq!(rate_match(bad, ok, 1.0), Err(RatingError::Player));
            assert_eq!(rate_match(ok, bad, 1.0), Err(RatingError::Opponent(0)));
        }
        for score in [f64::NAN, -0.5, 1.5, 0.25, f64::INFINITY] {
            assert_eq!(rate(ok, &[(ok, 0.5), (ok, score)]), Err(RatingError::Score(1)));
            assert_eq!(rate_match(ok, ok, score), Err(RatingError::Score(0)));
        }
    }

    #[test]
    fn extreme_inputs_are_rated_or_refused_never_nan() {
        // 20,000 points apart the expected score rounds to exactly 1: the game carries no
        // information, and the result is still finite (nothing moves but the deviation).
        let strong = Rating { rating: 20_000.0, deviation: 30.0, volatility: 0.06 };
        let weak = Rating { rating: 0.0, deviation: 30.0, volatility: 0.06 };
        let (s, w) = rate_match(strong, weak, 1.0).unwrap();
        assert!(s.is_valid() && w.is_valid(), "{s:?} {w:?}");
        // Near the end of f64's range the arithmetic overflows: refused.
        let absurd = Rating { rating: -f64::MAX, deviation: 1e-300, volatility: 1e-300 };
        let other = Rating { rating: -f64::MAX, deviation: 1e-300, volatility: 0.06 };
        assert_eq!(rate_match(absurd, other, 0.5), Err(RatingError::OutOfRange));
    }

    #[test]
    fn rate_match_is_two_single_game_periods() {
        let a = Rating { rating: 1610.0, deviation: 90.0, volatility: 0.059 };
        let b = Rating { rating: 1480.0, deviation: 200.0, volatility: 0.061 };
        let (na, nb) = rate_match(a, b, 0.0).unwrap();
        assert_eq!(na, rate(a, &[(b, 0.0)]).unwrap());
        assert_eq!(nb, rate(b, &[(a, 1.0)]).unwrap());
        assert!(na.rating < a.rating && nb.rating > b.rating);
        assert!(na.deviation < a.deviation && nb.deviation < b.deviation);
    }
}
