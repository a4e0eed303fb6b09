//! GOPS in the terminal: the prize up (with what rolled over), both hands (every spent
//! card was shown, so both are public), the prizes still to come, the score in points.
//! Cards are typed as on their faces: 7, 10, A, J, Q, K (any case), or ace/jack/queen/king.

use super::{Face, Names, cut, plural, points, values, wrap};
use api::v1;
use v1::gops_event::Kind;

/// The GOPS face: remembers the prize up and the tie rule, which a reveal's line needs.
#[derive(Default)]
pub struct Gops {
    prize: u32,
    pile: u32,
    ties: i32,
}

/// A card's face: A, 2..10, J, Q, K.
pub fn rank(v: u32) -> String {
    match v {
        1 => "A".into(),
        11 => "J".into(),
        12 => "Q".into(),
        13 => "K".into(),
        n => n.to_string(),
    }
}

/// The card a person means by `word`: a number, or a face's letter or name.
fn card_of(word: &str) -> Option<i64> {
    let w = word.trim().to_ascii_lowercase();
    Some(match w.as_str() {
        "a" | "ace" => 1,
        "t" => 10,
        "j" | "jack" => 11,
        "q" | "queen" => 12,
        "k" | "king" => 13,
        n => n.parse().ok()?,
    })
}

fn view(v: &v1::View) -> Option<&v1::GopsView> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::view::Game::Gops(g)) = v.game.as_ref() { Some(g) } else { None }
}

fn card(mv: &v1::Move) -> Option<i64> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::r#move::Game::Gops(g)) = mv.game.as_ref() { Some(g.card) } else { None }
}

fn bid(card: i64) -> v1::Move {
    v1::Move { game: Some(v1::r#move::Game::Gops(v1::GopsMove { card })) }
}

/// Cards as their faces, in a row.
fn row(cards: &[u32]) -> String {
    if cards.is_empty() {
        return "none".into();
    }
    cards.iter().map(|c| rank(*c)).collect::<Vec<_>>().join(" ")
}

fn ties_word(ties: i32) -> &'static str {
    match v1::GopsTies::try_from(ties).unwrap_or(v1::GopsTies::Rollover) {
        v1::GopsTies::Discard => "tied bids discard the prize",
        v1::GopsTies::Split => "tied bids split the prize",
        v1::GopsTies::Rollover | v1::GopsTies::Unspecified => "tied bids roll the prize over",
    }
}

impl Gops {
    fn hands(v: &v1::GopsView) -> [&[u32]; 2] {
        [values(v.hand0.as_ref()), values(v.hand1.as_ref())]
    }

    fn score_line(v: &v1::GopsView, names: &Names) -> String {
        let [a, b] = names.order();
        let s = |seat| points(super::of_seat(v.score_halves.as_ref(), seat));
        format!("Score: {} {}, {} {}", names.obj(a), s(a), names.obj(b), s(b))
    }
}

impl Face for Gops {
    fn how_to_move(&self) -> &'static str {
        "type a card to bid: 7, 10, or A J Q K"
    }

    fn status(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a GOPS view)".into()] };
        let mut out = Vec::new();
        match v.prize {
            Some(p) => {
                let rolled = if v.pile > 0 {
                    format!(" + {} rolled over", plural(v.pile, "point"))
                } else {
                    String::new()
                };
                out.push(format!(
                    "Round {} of {}: the prize is {} ({}){rolled}",
                    v.round + 1,
                    v.cards,
                    rank(p),
                    plural(p, "point")
                ));
            }
            None => out.push(format!("{} of {} rounds played", v.round, v.cards)),
        }
        out.push(Self::score_line(v, names));
        let hands = Self::hands(v);
        let whose = names
            .order()
            .map(|s| format!("{} hand:", cut(&super::capitalized(&names.poss(s)), 24)));
        let width = whose.iter().map(|w| w.chars().count()).max().unwrap_or(0) + 1;
        for (seat, who) in names.order().into_iter().zip(whose) {
            let mut line = format!("{who:<width$}{}", row(hands[seat as usize]));
            if v.moved.contains(&seat) {
                let sealed = match (names.is_me(seat), v.my_bid) {
                    (true, Some(b)) => format!("  (bid {} sealed)", rank(b)),
                    (true, None) | (false, _) => "  (bid sealed)".to_string(),
                };
                line.push_str(&sealed);
            }
            out.push(cut(&line, super::WIDTH));
        }
        let left = values(v.prizes_left.as_ref());
        if !left.is_empty() {
            out.push(cut(&format!("Prizes to come (order hidden): {}", row(left)), super::WIDTH));
        }
        out
    }

    fn narrate(&mut self, event: &v1::Event, names: &Names) -> Option<String> {
        let v1::event::Kind::Gops(g) = event.kind.as_ref()? else { return None };
        match g.kind.as_ref()? {
            Kind::Setup(s) => {
                self.ties = s.ties;
                Some(format!("GOPS with {} cards in each hand; {}.", s.cards, ties_word(s.ties)))
            }
            Kind::RoundStarted(r) => {
                self.prize = r.prize;
                self.pile = r.pile;
                let rolled = if r.pile > 0 {
                    format!(", with {} rolled over", plural(r.pile, "point"))
                } else {
                    String::new()
                };
                Some(format!("Round {}: the prize is {}{rolled}.", r.round, rank(r.prize)))
            }
            Kind::Moved(m) => {
                (!names.is_me(m.seat)).then(|| format!("{} sealed a bid.", names.subj(m.seat)))
            }
            Kind::BidSealed(b) => Some(format!("You sealed your bid: {}.", rank(b.card))),
            Kind::Revealed(r) => {
                let bids = [
                    super::of_seat(r.bids.as_ref(), 0) as u32,
                    super::of_seat(r.bids.as_ref(), 1) as u32,
                ];
                let won = self.prize + self.pile;
                let result = match r.winner {
                    Some(w) => format!(
                        "{} bid {} against {} and {} {} ({})",
                        names.subj(w),
                        rank(bids[w as usize]),
                        rank(bids[1 - w as usize]),
                        names.verb(w, "win", "wins"),
                        rank(self.prize),
                        plural(won, "point")
                    ),
                    None => {
                        let after = match v1::GopsTies::try_from(self.ties) {
                            Ok(v1::GopsTies::Discard) => "the prize is discarded".to_string(),
                            Ok(v1::GopsTies::Split) => {
                                format!("the prize is split, {} points each", points(won.into()))
                            }
                            Ok(v1::GopsTies::Rollover | v1::GopsTies::Unspecified) | Err(_) => {
                                "the prize rolls over".to_string()
                            }
                        };
                        format!("Both bid {}: {after}", rank(bids[0]))
                    }
                };
                let [a, b] = names.order();
                let s = |seat| points(super::of_seat(r.score_halves.as_ref(), seat));
                Some(format!(
                    "Round {}: {result}. Score: {} {}, {} {}.",
                    r.round,
                    names.obj(a),
                    s(a),
                    names.obj(b),
                    s(b)
                ))
            }
            // A missed deadline loses the match, as a resignation does; both late, a draw.
            Kind::Late(l) => Some(match l.seats.as_slice() {
                [] => return None,
                [s] => format!("{} missed the deadline, which loses the match.", names.subj(*s)),
                [..] => "Both players missed the deadline: the match is drawn.".into(),
            }),
        }
    }

    fn spell(&self, mv: &v1::Move) -> String {
        card(mv).map_or_else(|| "?".into(), |c| u32::try_from(c).map_or(c.to_string(), rank))
    }

    fn help(&self, legal: &[v1::Move]) -> Vec<String> {
        let spelled: Vec<String> = legal.iter().map(|m| self.spell(m)).collect();
        wrap("Your cards (type one): ", &spelled, " ")
    }

    fn read(&self, line: &str, legal: &[v1::Move]) -> Result<v1::Move, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [word] = words.as_slice() else {
            return Err(format!("one card at a time ({})", self.how_to_move()));
        };
        let Some(c) = card_of(word) else {
            return Err(format!("{:?} is no card ({})", cut(word, 12), self.how_to_move()));
        };
        let mv = bid(c);
        if !legal.is_empty() && !legal.contains(&mv) {
            let yours: Vec<String> = legal.iter().map(|m| self.spell(m)).collect();
            return Err(format!(
                "{} is not in your hand: you hold {}",
                u32::try_from(c).map_or(c.to_string(), rank),
                yours.join(" ")
            ));
        }
        Ok(mv)
    }

    fn final_board(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a GOPS view)".into()] };
        let mut out = vec![Self::score_line(v, names)];
        let hands = Self::hands(v);
        for seat in names.order() {
            if !hands[seat as usize].is_empty() {
                out.push(cut(
                    &format!("{} unplayed: {}", names.subj(seat), row(hands[seat as usize])),
                    super::WIDTH,
                ));
            }
        }
        out.push(format!("{} of {} rounds played.", v.round, v.cards));
        out
    }

    fn score(&self, v: &v1::View) -> Option<[String; 2]> {
        let v = view(v)?;
        let s = |seat| points(super::of_seat(v.score_halves.as_ref(), seat));
        Some([s(0), s(1)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_read_in_any_friendly_form() {
        let f = Gops::default();
        let legal: Vec<v1::Move> = (1..=13).map(bid).collect();
        for (typed, c) in
            [("7", 7), ("k", 13), ("K", 13), ("King", 13), ("a", 1), ("10", 10), ("t", 10)]
        {
            assert_eq!(f.read(typed, &legal), Ok(bid(c)), "{typed}");
        }
        assert!(f.read("seven", &legal).unwrap_err().contains("no card"));
        let e = f.read("4", &[bid(1), bid(13)]).unwrap_err();
        assert_eq!(e, "4 is not in your hand: you hold A K");
        assert!(f.read("4 5", &legal).is_err());
    }

    #[test]
    fn a_reveal_reads_in_points_from_the_viewers_side() {
        let mut f = Gops::default();
        let names = Names::new(Some(0), "The strong bot");
        let ev =
            |k| v1::Event { kind: Some(v1::event::Kind::Gops(v1::GopsEvent { kind: Some(k) })) };
        f.narrate(
            &ev(Kind::RoundStarted(v1::GopsRoundStarted { round: 3, prize: 12, pile: 1 })),
            &names,
        );
        let pair = |a, b| Some(v1::SeatPair { seat0: a, seat1: b });
        let line = f.narrate(
            &ev(Kind::Revealed(v1::GopsRevealed {
                round: 3,
                bids: pair(13, 2),
                winner: Some(0),
                gained_halves: pair(26, 0),
                score_halves: pair(27, 8),
            })),
            &names,
        );
        assert_eq!(
            line.as_deref(),
            Some(
                "Round 3: You bid K against 2 and win Q (13 points). Score: you 13.5, the strong bot 4."
            )
        );
    }
}
