"""A tournament platform's Python client runs a small round robin through the platform API
(colosseum.v1.TournamentService) of the whole cluster.

An operator makes a tenant and an API key (`colosseum tenant`); the platform registers
four players (guest sessions), creates a round robin of GOPS with them, starts each round,
has every match played to its end through ColosseumService, follows the tournament's
results stream, resumes it from its middle, and reads standings that agree with the
matches' records. A key without the scope is refused; another tenant sees nothing.

    make python-client            (venv in tools/py, generate, run tests/python with pytest)
"""

import random
import time
import unittest
import uuid

import grpc

import cluster_case
from cluster_case import RPC_TIMEOUT_S, pb

from colosseum.v1 import tournaments_pb2 as tpb
from colosseum.v1 import tournaments_pb2_grpc as tpb_grpc

PLAYERS = 4
RESULT_TIMEOUT_S = 30


class PlatformTest(cluster_case.ClusterTestCase):
    def key(self, scopes=("matches:create", "tournaments:manage", "results:read")):
        tenant = self.cli("tenant", "create", "--name", f"py-{uuid.uuid4()}")
        uuid.UUID(tenant)
        args = ["tenant", "key", "create", "--tenant", tenant]
        for s in scopes:
            args += ["--scope", s]
        key = self.cli(*args)
        self.assertTrue(key.startswith("ck_"), key)
        return (("authorization", f"Bearer {key}"),)

    def play(self, match_id, seats, rng):
        """Random legal moves for both seats until the match is over."""
        deadline = time.monotonic() + RESULT_TIMEOUT_S
        while time.monotonic() < deadline:
            for auth in seats:
                view = self.stub.GetView(
                    pb.GetViewRequest(match_id=match_id), metadata=auth, timeout=RPC_TIMEOUT_S
                )
                if view.HasField("outcome"):
                    return view.outcome
                if view.legal_moves:
                    self.stub.SubmitMove(
                        pb.SubmitMoveRequest(
                            match_id=match_id,
                            move=rng.choice(list(view.legal_moves)),
                            idempotency_key=str(uuid.uuid4()),
                        ),
                        metadata=auth,
                        timeout=RPC_TIMEOUT_S,
                    )
        self.fail(f"match {match_id} did not end in {RESULT_TIMEOUT_S} s")

    def events(self, platform, auth, tournament_id, after, n):
        """The first n events of the tournament's stream after `after`."""
        stream = platform.WatchResults(
            tpb.WatchResultsRequest(tournament_id=tournament_id, after_sequence=after),
            metadata=auth,
            timeout=RESULT_TIMEOUT_S,
        )
        out = []
        for e in stream:
            out.append(e)
            if len(out) == n:
                stream.cancel()
                break
        return out

    def test_a_round_robin_through_the_platform_api(self):
        platform = tpb_grpc.TournamentServiceStub(self.channel)
        auth = self.key()
        players = {}
        for i in range(PLAYERS):
            s, a = self.session(f"py{i}")
            players[s.player_id] = a
        created = platform.CreateTournament(
            tpb.CreateTournamentRequest(
                idempotency_key="py-rr-1",
                name="Python round robin",
                format=tpb.TournamentFormat(round_robin=tpb.RoundRobin(double=False)),
                game=tpb.GameSpec(game="gops", options_json='{"cards": 3}'),
                entrants=[tpb.Entrant(player_id=p, name=f"p{i}") for i, p in enumerate(players)],
            ),
            metadata=auth,
            timeout=RPC_TIMEOUT_S,
        ).tournament
        self.assertEqual((created.rounds, created.players), (PLAYERS - 1, PLAYERS))
        tid = created.tournament_id
        rng = random.Random(4)
        points = {p: 0 for p in players}
        for rnd in range(1, PLAYERS):
            paired = platform.StartRound(
                tpb.StartRoundRequest(tournament_id=tid, round=rnd), metadata=auth, timeout=RPC_TIMEOUT_S
            ).round
            self.assertEqual(len(paired.pairings), PLAYERS // 2)
            for pairing in paired.pairings:
                seats = [players[pairing.seat0_player_id], players[pairing.seat1_player_id]]
                outcome = self.play(pairing.match_id, seats, rng)
                if outcome.HasField("winner"):
                    winner = [pairing.seat0_player_id, pairing.seat1_player_id][outcome.winner]
                    points[winner] += 2
                else:
                    points[pairing.seat0_player_id] += 1
                    points[pairing.seat1_player_id] += 1
            # The results reach the tournament through the lifecycle stream.
            deadline = time.monotonic() + RESULT_TIMEOUT_S
            while True:
                t = platform.GetTournament(
                    tpb.GetTournamentRequest(tournament_id=tid), metadata=auth, timeout=RPC_TIMEOUT_S
                ).tournament
                if t.matches_finished == rnd * PLAYERS // 2:
                    break
                self.assertLess(time.monotonic(), deadline, "results did not arrive")
                time.sleep(0.05)
        self.assertEqual(t.state, tpb.TOURNAMENT_STATE_FINISHED)
        standings = platform.GetStandings(
            tpb.GetStandingsRequest(tournament_id=tid), metadata=auth, timeout=RPC_TIMEOUT_S
        )
        self.assertEqual({s.player_id: s.points2 for s in standings.standings}, points)
        ranks = [s.rank for s in standings.standings]
        self.assertEqual(ranks, list(range(1, PLAYERS + 1)))
        # Every match's record is downloadable, and says what the standings counted.
        export = platform.ExportTournament(
            tpb.ExportTournamentRequest(tournament_id=tid), metadata=auth, timeout=RPC_TIMEOUT_S
        )
        self.assertIn("Python round robin", export.text)
        # The stream, whole and resumed from the middle.
        total = standings.sequence
        whole = self.events(platform, auth, tid, 0, total)
        self.assertEqual([e.sequence for e in whole], list(range(1, total + 1)))
        resumed = self.events(platform, auth, tid, total // 2, total - total // 2)
        self.assertEqual(whole[total // 2 :], resumed)
        finished = [e for e in whole if e.WhichOneof("event") == "match_finished"]
        self.assertEqual(len(finished), PLAYERS * (PLAYERS - 1) // 2)
        for e in finished:
            self.assertGreaterEqual(len(e.match_finished.match.result.seed_hex), 16)
            record = platform.GetTenantMatchRecord(
                tpb.GetTenantMatchRecordRequest(match_id=e.match_finished.match.match_id),
                metadata=auth,
                timeout=RPC_TIMEOUT_S,
            )
            self.assertIn(e.match_finished.match.result.seed_hex, record.record_json)

    def test_scopes_and_tenants_are_kept_apart(self):
        platform = tpb_grpc.TournamentServiceStub(self.channel)
        reader = self.key(scopes=("results:read",))
        with self.assertRaises(grpc.RpcError) as refused:
            platform.CreateTournament(
                tpb.CreateTournamentRequest(idempotency_key="x", name="x"),
                metadata=reader,
                timeout=RPC_TIMEOUT_S,
            )
        self.assertEqual(refused.exception.code(), grpc.StatusCode.PERMISSION_DENIED)
        other = self.key()
        mine = self.key()
        a, _ = self.session("a")
        b, _ = self.session("b")
        ids = platform.CreateMatches(
            tpb.CreateMatchesRequest(
                idempotency_key="one",
                matches=[
                    tpb.MatchSpec(
                        game=tpb.GameSpec(game="gops"),
                        seat0_player_id=a.player_id,
                        seat1_player_id=b.player_id,
                    )
                ],
            ),
            metadata=mine,
            timeout=RPC_TIMEOUT_S,
        ).match_ids
        with self.assertRaises(grpc.RpcError) as hidden:
            platform.GetMatch(tpb.GetMatchRequest(match_id=ids[0]), metadata=other, timeout=RPC_TIMEOUT_S)
        self.assertEqual(hidden.exception.code(), grpc.StatusCode.NOT_FOUND)
        with self.assertRaises(grpc.RpcError) as none:
            platform.ListTournaments(tpb.ListTournamentsRequest(), timeout=RPC_TIMEOUT_S)
        self.assertEqual(none.exception.code(), grpc.StatusCode.UNAUTHENTICATED)


if __name__ == "__main__":
    unittest.main()
