//! A second, independent Glicko-2, written straight from Glickman's "Example of the Glicko-2
//! system" (2013) in plain f64 code, checked against `ladder::rate` on random rating periods, plus
//! the properties of single matches.

use ladder::{Rating, rate, rate_match};
use proptest::prelude::*;

/// The paper's scale factor between the Glicko and Glicko-2 scales.
const SCALE: f64 = 173.7178;
const TAU: f64 = 0.5;
const EPSILON: f64 = 0.000_001;

/// Steps 2 to 8 of the paper for one player and a non-empty period.
fn reference(player: (f64, f64, f64), games: &[((f64, f64), f64)]) -> (f64, f64, f64) {
    let pi = std::f64::consts::PI;
    // Step 2: to the Glicko-2 scale.
    let mu = (player.0 - 1500.0) / SCALE;
    let phi = player.1 / SCALE;
    let sigma = player.2;
    let g = |phi_j: f64| 1.0 / (1.0 + 3.0 * phi_j * phi_j / (pi * pi)).sqrt();
    let e = |mu_j: f64, phi_j: f64| 1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp());
    // Steps 3 and 4: the estimated variance v and improvement delta.
    let mut v_inv = 0.0;
    let mut sum = 0.0;
    for &((r_j, rd_j), s_j) in games {
        let mu_j = (r_j - 1500.0) / SCALE;
        let phi_j = rd_j / SCALE;
        let (gj, ej) = (g(phi_j), e(mu_j, phi_j));
        v_inv += gj * gj * ej * (1.0 - ej);
        sum += gj * (s_j - ej);
    }
    let v = 1.0 / v_inv;
    let delta = v * sum;
    // Step 5: the new volatility, by the Illinois algorithm.
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - a) / (TAU * TAU)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    while (big_b - big_a).abs() > EPSILON {
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }
    let sigma_new = (big_a / 2.0).exp();
    // Steps 6 and 7: the pre-period deviation, then the new deviation and rating.
    let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    // Step 8: back to the Glicko scale.
    (SCALE * mu_new + 1500.0, SCALE * phi_new, sigma_new)
}

/// Agreement within 1e-6 relative to the magnitude (absolute below 1). Both sides run the same
/// iteration with the same stopping rule, so they differ by rounding (~1e-13) unless rounding
/// changes the number of iterations; then the volatilities differ by less than the tolerance on
/// ln(volatility²), 1e-6, i.e. by under 5e-7 relative, and the deviation and rating, which
/// depend on the volatility only through phi² + sigma², by far less.
fn agree(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn reference_reproduces_the_worked_example() {
    let (r, rd, vol) = reference(
        (1500.0, 200.0, 0.06),
        &[((1400.0, 30.0), 1.0), ((1550.0, 100.0), 0.0), ((1700.0, 300.0), 0.0)],
    );
    assert!((r - 1464.06).abs() <= 0.01, "{r}");
    assert!((rd - 151.52).abs() <= 0.01, "{rd}");
    assert!((vol - 0.05999).abs() <= 0.00001, "{vol}");
}

fn a_rating() -> impl Strategy<Value = Rating> {
    (100.0..3000.0f64, 30.0..350.0f64, 0.03..0.1f64)
        .prop_map(|(rating, deviation, volatility)| Rating { rating, deviation, volatility })
}

fn a_score() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(0.5), Just(1.0)]
}

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        proptest::num::f64::ANY,
        -1e6..1e6f64,
        Just(0.0),
        Just(f64::MIN_POSITIVE),
        Just(f64::MAX),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rate_agrees_with_the_reference(
        player in a_rating(),
        games in proptest::collection::vec((a_rating(), a_score()), 1..=10),
    ) {
        let ours = rate(player, &games).unwrap();
        let plain: Vec<_> =
            games.iter().map(|&(o, s)| ((o.rating, o.deviation), s)).collect();
        let (r, rd, vol) =
            reference((player.rating, player.deviation, player.volatility), &plain);
        prop_assert!(agree(ours.rating, r), "rating {} vs {}", ours.rating, r);
        prop_assert!(agree(ours.deviation, rd), "deviation {} vs {}", ours.deviation, rd);
        prop_assert!(agree(ours.volatility, vol), "volatility {} vs {}", ours.volatility, vol);
    }

    /// With equal deviations the winner never loses rating and the loser never gains.
    #[test]
    fn the_winner_never_loses_rating(
        a in a_rating(),
        b in a_rating(),
        deviation in 30.0..350.0f64,
        a_wins in any::<bool>(),
    ) {
        let a = Rating { deviation, ..a };
        let b = Rating { deviation, ..b };
        let score_a = if a_wins { 1.0 } else { 0.0 };
        let (na, nb) = rate_match(a, b, score_a).unwrap();
        let (winner, new_winner, loser, new_loser) =
            if a_wins { (a, na, b, nb) } else { (b, nb, a, na) };
        prop_assert!(new_winner.rating >= winner.rating);
        prop_assert!(new_loser.rating <= loser.rating);
    }

    /// Whatever comes in, finite or not, either an error or a valid rating comes out.
    #[test]
    fn never_nan(
        fields in proptest::collection::vec(any_f64(), 6),
        score in prop_oneof![any_f64(), a_score()],
    ) {
        let a = Rating { rating: fields[0], deviation: fields[1], volatility: fields[2] };
        let b = Rating { rating: fields[3], deviation: fields[4], volatility: fields[5] };
        if let Ok((na, nb)) = rate_match(a, b, score) {
            prop_assert!(na.is_valid() && nb.is_valid(), "{na:?} {nb:?}");
        }
        if let Ok(r) = rate(a, &[]) {
            prop_assert!(r.is_valid(), "{r:?}");
        }
    }

    /// Valid but far-flung inputs (a rating within ±1e6, deviation and volatility over many
    /// orders of magnitude) still end in a valid rating or an error, never a NaN or a hang.
    #[test]
    fn never_nan_on_valid_extremes(
        ra in -1e6..1e6f64, rb in -1e6..1e6f64,
        da in 1e-3..1e6f64, db in 1e-3..1e6f64,
        va in 1e-6..10.0f64, vb in 1e-6..10.0f64,
        score in a_score(),
    ) {
        let a = Rating { rating: ra, deviation: da, volatility: va };
        let b = Rating { rating: rb, deviation: db, volatility: vb };
        if let Ok((na, nb)) = rate_match(a, b, score) {
            prop_assert!(na.is_valid() && nb.is_valid(), "{na:?} {nb:?}");
        }
    }
}
