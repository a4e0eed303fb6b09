//! One round of lookahead for small fields: pairing round by round can leave a next round with
//! no legal pairing at all (6 players after 3 rounds, when the pairs not yet played form two
//! triangles), or none that keeps the seat rule. Such a pairing is replaced by the closest one
//! that keeps the next round open, with the seat rule if possible.

use super::{Ctx, LOOKAHEAD_NODES, NONE, RoundPairs};
use crate::matching::complete_perfect;
use crate::model::Seat;

impl Ctx {
    /// Whether, after this round's `pairs` and `bye`, the next round has a legal pairing (no
    /// repeat, the bye, if the field is odd, to a player who has not had one), and with
    /// `seats`, one that also keeps the seat rule given the seats this round's pairs get.
    pub(super) fn next_round_possible(
        &self,
        pairs: &[(usize, usize)],
        bye: Option<usize>,
        seats: bool,
    ) -> bool {
        let n = self.n;
        let mut now = vec![NONE; n];
        let mut class = self.class.clone();
        for &(a, b) in pairs {
            now[a] = b;
            now[b] = a;
            let (hi, lo) = (a.min(b), a.max(b));
            let step = if self.seat_of_higher(hi, lo) == Seat::Zero { 1 } else { -1 };
            class[hi] = ((self.diff[hi] + step).signum() + 1) as usize;
            class[lo] = ((self.diff[lo] - step).signum() + 1) as usize;
        }
        let clash = |a: usize, b: usize| seats && class[a] != 1 && class[a] == class[b];
        let odd = n % 2 == 1;
        let eligible = |v: usize| self.eligible[v] && bye != Some(v);
        let adj = |a: usize, b: usize| {
            let (a, b) = (a.min(b), a.max(b));
            if b == n { odd && eligible(a) } else { !self.met(a, b) && now[a] != b && !clash(a, b) }
        };
        let size = n + usize::from(odd);
        let mut mate = vec![NONE; size];
        // First fit, then augmenting paths.
        for a in 0..size {
            if mate[a] == NONE
                && let Some(b) = (a + 1..size).find(|&b| mate[b] == NONE && adj(a, b))
            {
                mate[a] = b;
                mate[b] = a;
            }
        }
        complete_perfect(size, adj, &mut mate)
    }

    /// A pairing of this round, as close as the search finds to `dutch` (the Dutch pairing, and
    /// `dutch_bye`), after which the next round can still be paired (with `seats`, keeping the
    /// seat rule). Depth first in rank order: each player takes its Dutch partner first, then
    /// the others nearest in score and rank; every step keeps the rest of the round
    /// completable. Bounded by [`LOOKAHEAD_NODES`]; `None` if nothing is found.
    pub(super) fn lookahead(
        &self,
        dutch: &[(usize, usize)],
        dutch_bye: Option<usize>,
        seats: bool,
    ) -> Option<RoundPairs> {
        let n = self.n;
        let mut partner = vec![NONE; n];
        for &(a, b) in dutch {
            partner[a] = b;
            partner[b] = a;
        }
        let mut search = Lookahead {
            ctx: self,
            partner,
            dutch_bye,
            paired: vec![false; n],
            pairs: Vec::new(),
            bye: None,
            seats,
            nodes: LOOKAHEAD_NODES,
        };
        let found = search.walk();
        found.then_some((search.pairs, search.bye))
    }
}

/// The depth-first search of [`Ctx::lookahead`].
struct Lookahead<'c> {
    ctx: &'c Ctx,
    /// Each player's partner in the Dutch pairing.
    partner: Vec<usize>,
    dutch_bye: Option<usize>,
    paired: Vec<bool>,
    pairs: Vec<(usize, usize)>,
    bye: Option<usize>,
    /// Whether the next round must keep the seat rule too.
    seats: bool,
    nodes: i64,
}

impl Lookahead<'_> {
    fn walk(&mut self) -> bool {
        let ctx = self.ctx;
        self.nodes -= 1;
        if self.nodes < 0 {
            return false;
        }
        let Some(a) = (0..ctx.n).find(|&v| !self.paired[v]) else {
            return ctx.next_round_possible(&self.pairs, self.bye, self.seats);
        };
        // Options: a partner (None: the bye), in order of preference.
        let mut options: Vec<Option<usize>> =
            (a + 1..ctx.n).filter(|&b| !self.paired[b] && ctx.compatible(a, b)).map(Some).collect();
        options.sort_by_key(|o| {
            let b = o.unwrap_or(NONE);
            (b != self.partner[a], ctx.score[a].abs_diff(ctx.score[b]), b)
        });
        let unpaired = (0..ctx.n).filter(|&v| !self.paired[v]).count();
        if unpaired % 2 == 1 && self.bye.is_none() && ctx.eligible[a] {
            if self.dutch_bye == Some(a) {
                options.insert(0, None);
            } else {
                options.push(None);
            }
        }
        self.paired[a] = true;
        for o in options {
            match o {
                Some(b) => {
                    self.paired[b] = true;
                    self.pairs.push((a, b));
                }
                None => self.bye = Some(a),
            }
            let rest: Vec<usize> = (0..ctx.n).filter(|&v| !self.paired[v]).collect();
            let rest_ok = if self.bye.is_some() && rest.len() % 2 == 1 {
                false
            } else {
                ctx.completable(&rest)
            };
            if rest_ok && self.walk() {
                return true;
            }
            match o {
                Some(b) => {
                    self.paired[b] = false;
                    self.pairs.pop();
                }
                None => self.bye = None,
            }
            if self.nodes < 0 {
                break;
            }
        }
        self.paired[a] = false;
        false
    }
}
