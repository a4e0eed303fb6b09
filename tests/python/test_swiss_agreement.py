"""Our Swiss pairing (`colosseum tournament pair`, crates/tournament) against an established
FIDE Dutch-system implementation, py4swiss (a Python port of bbpPairings' Dutch engine), fed
the same histories.

Random tournaments (8 to 64 players, random ratings, 5 rounds, random results from a seeded
random.Random) are played with our pairings; before each round both programs pair the same
history and the test compares them: the share of rounds paired identically (the same pairs,
seats ignored, and the same bye) and the share of identical pairs. It asserts that ours always
pairs everyone once, never a repeat nor a second bye, and that agreement stays above floors set
a few points under what was measured (AGREEMENT_FLOORS): a drop means the pairing moved away
from FIDE's.

Where they differ, the cause is a rule of ours: seat balance |seat-0 - seat-1| <= 1 for
everyone whenever any legal pairing allows it. FIDE's Dutch system only prefers that (strong
colour preferences rank below "most pairs in the bracket"), so after an odd number of games,
when everyone has a strong preference, FIDE often pairs two players who both need the same
seat where we float one of them instead. The report splits the rounds by whether py4swiss's
pairing keeps our seat rule; where it does, the two agree almost always.

Measured over 2,000 tournaments (SWISS_AGREEMENT_N=1000, seeds 2024 and 7): 71.7% of rounds and
80.4% of pairs identical; by round 100%, 47%, 99%, 14%, 98% (rounds 2 and 4 follow an odd number
of games); 99.6% of the rounds where py4swiss keeps our seat rule (72% of all) identical. For
scale: py4swiss and caissify-pairings 0.5.0, both FIDE Dutch implementations, agree with each
other on 99.3% of rounds (300 sampled).

    COLOSSEUM_BIN=target/debug/colosseum python -m pytest tests/python/test_swiss_agreement.py -s

Environment: COLOSSEUM_BIN (as for the other tests), SWISS_AGREEMENT_N (tournaments, default
100, some 30 s: py4swiss takes about 0.06 s a round, so a thousand take 6 to 8 minutes),
SWISS_AGREEMENT_SEED (default 2024).
"""

import json
import os
import pathlib
import random
import subprocess
import unittest

from py4swiss.engines import DutchEngine
from py4swiss.trf import ParsedTrf
from py4swiss.trf.codes import PlayerCode
from py4swiss.trf.results import ColorToken, ResultToken, RoundResult
from py4swiss.trf.sections import PlayerSection, XSection

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BIN = pathlib.Path(
    os.environ.get(
        "COLOSSEUM_BIN",
        str(ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "debug" / "colosseum"),
    )
)
TOURNAMENTS = int(os.environ.get("SWISS_AGREEMENT_N", "100"))
SEED = int(os.environ.get("SWISS_AGREEMENT_SEED", "2024"))
ROUNDS = 5

# Measured 0.717, 0.804 and 0.996 over 2,000 tournaments (see the module docs); the floors sit
# some three standard errors of the default 100 tournaments below.
AGREEMENT_FLOORS = {"rounds": 0.65, "pairs": 0.75, "seat_rule_kept": 0.97}

RESULTS = ("1-0", "0-1", "1/2")
# TRF tokens for white's and black's side of each result.
TOKENS = {
    "1-0": (ResultToken.WIN, ResultToken.LOSS),
    "0-1": (ResultToken.LOSS, ResultToken.WIN),
    "1/2": (ResultToken.DRAW, ResultToken.DRAW),
}
POINTS10 = {ResultToken.WIN: 10, ResultToken.DRAW: 5, ResultToken.LOSS: 0}


def seed_order(ratings):
    """Our seed order: rating descending, ties by entry order (TRF starting ranks follow it)."""
    return sorted(range(len(ratings)), key=lambda i: (-ratings[i], i))


def board_json(board):
    """One board of the history as the interchange JSON has it."""
    if board[0] == "bye":
        return {"bye": board[1]}
    white, black, result = board
    return {"white": white, "black": black, "result": result}


def ours(ratings, history):
    """The next round by `colosseum tournament pair`: (pairs as [white, black], bye)."""
    request = {
        "players": [{"rating": r} for r in ratings],
        "rounds": [
            [board_json(b) for b in rnd]
            for rnd in history
        ],
        "total_rounds": ROUNDS,
    }
    done = subprocess.run(
        [str(BIN), "tournament", "pair"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"colosseum tournament pair failed: {done.stderr.strip()}")
    out = json.loads(done.stdout)
    return [tuple(p) for p in out["pairs"]], out["bye"]


def reference(ratings, history):
    """The next round by py4swiss's Dutch engine on the same history (starting ranks = our
    seeds): (pairs as (white, black), bye)."""
    order = seed_order(ratings)
    rank = {p: k + 1 for k, p in enumerate(order)}
    results = {p: [] for p in range(len(ratings))}
    points = {p: 0 for p in range(len(ratings))}
    for rnd in history:
        for board in rnd:
            if board[0] == "bye":
                p = board[1]
                bye = RoundResult(
                    id=0,
                    color=ColorToken.BYE_OR_NOT_PAIRED,
                    result=ResultToken.PAIRING_ALLOCATED_BYE,
                )
                results[p].append(bye)
                points[p] += 10
                continue
            white, black, result = board
            tw, tb = TOKENS[result]
            results[white].append(RoundResult(id=rank[black], color=ColorToken.WHITE, result=tw))
            results[black].append(RoundResult(id=rank[white], color=ColorToken.BLACK, result=tb))
            points[white] += POINTS10[tw]
            points[black] += POINTS10[tb]
    sections = [
        PlayerSection(
            code=PlayerCode.PLAYER,
            starting_number=rank[p],
            fide_rating=int(ratings[p]),
            points_times_ten=points[p],
            rank=rank[p],
            results=results[p],
        )
        for p in order
    ]
    trf = ParsedTrf(player_sections=sections, x_section=XSection(number_of_rounds=ROUNDS))
    pairs, bye = [], None
    for pairing in DutchEngine.generate_pairings(trf):
        if pairing.black == 0:
            bye = order[pairing.white - 1]
        else:
            pairs.append((order[pairing.white - 1], order[pairing.black - 1]))
    return pairs, bye


def keeps_seat_rule(pairs, history, n):
    """Whether seats can be given to `pairs` so that nobody's |seat-0 - seat-1| exceeds 1:
    no pair of two players who both played seat 0 more often (or both seat 1 more often)."""
    diff = [0] * n
    for rnd in history:
        for board in rnd:
            if board[0] != "bye":
                diff[board[0]] += 1
                diff[board[1]] -= 1
    sign = lambda d: (d > 0) - (d < 0)  # noqa: E731
    return all(not (sign(diff[a]) != 0 and sign(diff[a]) == sign(diff[b])) for a, b in pairs)


class SwissAgreementTest(unittest.TestCase):
    def test_agreement_with_py4swiss(self):
        rng = random.Random(SEED)
        rounds = same_rounds = pairs_total = same_pairs = 0
        by_round = {r: [0, 0] for r in range(1, ROUNDS + 1)}
        rule_kept = [0, 0]  # rounds where py4swiss's pairing keeps our seat rule: [rounds, same]
        for _ in range(TOURNAMENTS):
            n = rng.randint(8, 64)
            ratings = [float(rng.randint(1000, 2700)) for _ in range(n)]
            history = []
            met = set()
            had_bye = set()
            for r in range(1, ROUNDS + 1):
                our_pairs, our_bye = ours(ratings, history)
                ref_pairs, ref_bye = reference(ratings, history)

                # Ours: every player once, no repeat, no second bye.
                seen = [p for pair in our_pairs for p in pair]
                if our_bye is not None:
                    seen.append(our_bye)
                self.assertEqual(sorted(seen), list(range(n)), f"round {r}: not all paired once")
                for a, b in our_pairs:
                    self.assertNotIn(frozenset((a, b)), met, f"round {r}: {a} and {b} meet again")
                self.assertNotIn(our_bye, had_bye, f"round {r}: a second bye for {our_bye}")

                a = {frozenset(p) for p in our_pairs}
                b = {frozenset(p) for p in ref_pairs}
                same = a == b and our_bye == ref_bye
                rounds += 1
                same_rounds += same
                pairs_total += len(a)
                same_pairs += len(a & b)
                by_round[r][0] += 1
                by_round[r][1] += same
                if keeps_seat_rule(ref_pairs, history, n):
                    rule_kept[0] += 1
                    rule_kept[1] += same

                # Play our round.
                rnd = [(w, bl, rng.choice(RESULTS)) for w, bl in our_pairs]
                if our_bye is not None:
                    rnd.append(("bye", our_bye))
                    had_bye.add(our_bye)
                met.update(frozenset(p) for p in our_pairs)
                history.append(rnd)

        round_share = same_rounds / rounds
        pair_share = same_pairs / pairs_total
        print(f"\nswiss agreement with py4swiss 0.3.1, {TOURNAMENTS} tournaments (seed {SEED}):")
        print(f"  rounds identical: {same_rounds}/{rounds} = {round_share:.1%}")
        print(f"  pairs identical:  {same_pairs}/{pairs_total} = {pair_share:.1%}")
        for r, (total, same) in by_round.items():
            print(f"  round {r}: {same}/{total} = {same / total:.1%} identical")
        if rule_kept[0]:
            print(
                f"  rounds where py4swiss keeps our seat rule: {rule_kept[0]}/{rounds}, "
                f"identical there: {rule_kept[1] / rule_kept[0]:.1%}"
            )
        self.assertGreaterEqual(round_share, AGREEMENT_FLOORS["rounds"])
        self.assertGreaterEqual(pair_share, AGREEMENT_FLOORS["pairs"])
        self.assertGreater(rule_kept[0], 0)
        self.assertGreaterEqual(rule_kept[1] / rule_kept[0], AGREEMENT_FLOORS["seat_rule_kept"])


if __name__ == "__main__":
    unittest.main()
