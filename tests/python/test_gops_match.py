"""A third-party Python client plays a full GOPS match against the whole cluster.

The client is generated from proto/ with grpcio-tools (tests/python/generate.py writes it to
tests/python/build); nothing here uses the Rust code but through its public gRPC API. The
test starts `colosseum run` (the whole cluster in one process, in-memory store) on a free
loopback port and stops it at the end, also when a test fails.

    make python-client            (venv in tools/py, generate, run this file with pytest)

Environment: as cluster_case.py says (COLOSSEUM_BIN, COLOSSEUM_PY_GEN).
"""

import hashlib
import json
import random
import threading
import time
import unittest
import uuid

import grpc

import cluster_case
from cluster_case import RPC_TIMEOUT_S, pb

from colosseum.v1 import games_pb2
from colosseum.v1 import gops_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

GAMES = {"gops", "dueling-monsters", "cure-plague", "masterminds", "hexspiel"}
CARDS = 13
MATCH_TIMEOUT_S = 60


class GopsMatchTest(cluster_case.ClusterTestCase):
    """One cluster for the class (see cluster_case); each test a separate client concern."""

    # --- the standard services every gateway serves -------------------------------------

    def test_health_check(self):
        health = health_pb2_grpc.HealthStub(self.channel)
        for service in ("", "colosseum.v1.ColosseumService"):
            resp = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=RPC_TIMEOUT_S)
            self.assertEqual(resp.status, health_pb2.HealthCheckResponse.SERVING, service)

    def test_server_reflection(self):
        db = ProtoReflectionDescriptorDatabase(self.channel)
        services = set(db.get_services())
        self.assertIn("colosseum.v1.ColosseumService", services)
        self.assertIn("grpc.health.v1.Health", services)
        # The descriptors themselves come over the wire too: a client needs no .proto file.
        fd = db.FindFileContainingSymbol("colosseum.v1.ColosseumService")
        self.assertEqual(fd.package, "colosseum.v1")
        self.assertIn("SubmitMove", [m.name for m in fd.service[0].method])

    # --- the public API -----------------------------------------------------------------

    def test_list_games(self):
        games = self.stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT_S).games
        self.assertEqual({g.name for g in games}, GAMES)
        gops = next(g for g in games if g.name == "gops")
        self.assertIn("random", gops.bots)
        self.assertEqual(json.loads(gops.default_options_json)["cards"], 13)

    def test_a_token_is_required(self):
        with self.assertRaises(grpc.RpcError) as cm:
            self.stub.GetView(pb.GetViewRequest(match_id=str(uuid.uuid4())), timeout=RPC_TIMEOUT_S)
        self.assertEqual(cm.exception.code(), grpc.StatusCode.UNAUTHENTICATED)

    def test_full_gops_match_against_the_random_bot(self):
        me, auth = self.session("python-client")
        created = self.create_bot_match(auth, CARDS)
        match_id = created.match_id
        uuid.UUID(match_id)
        self.assertEqual(created.seat, 0)
        self.assertRegex(created.seed_commitment, r"^[0-9a-f]{64}$")

        # Watch the match in a thread: every event for seat 0's audience, until it ends.
        events = []
        watch_error = []
        watch = self.stub.WatchMatch(
            pb.WatchMatchRequest(match_id=match_id, after_version=0),
            metadata=auth,
            timeout=MATCH_TIMEOUT_S,
        )

        def watcher():
            try:
                for ev in watch:
                    events.append(ev)
                    if ev.event.WhichOneof("kind") == "match_ended":
                        return
            except grpc.RpcError as e:  # kept for the assertion below
                watch_error.append(e)

        thread = threading.Thread(target=watcher, daemon=True)
        thread.start()

        # The record is refused while the match runs: it would reveal the prize order.
        with self.assertRaises(grpc.RpcError) as cm:
            self.stub.GetMatchRecord(
                pb.GetMatchRecordRequest(match_id=match_id), metadata=auth, timeout=RPC_TIMEOUT_S
            )
        self.assertEqual(cm.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)

        # Play: GetView -> a legal move -> SubmitMove, until the outcome is set.
        rng = random.Random(6)
        moves = 0
        duplicate_checked = False
        deadline = time.monotonic() + MATCH_TIMEOUT_S
        while True:
            self.assertLess(time.monotonic(), deadline, "the match did not end in time")
            view = self.stub.GetView(
                pb.GetViewRequest(match_id=match_id), metadata=auth, timeout=RPC_TIMEOUT_S
            )
            self.assertEqual(view.game, "gops")
            self.assertEqual(view.seat, 0)
            if view.HasField("outcome"):
                break
            if not view.legal_moves:
                time.sleep(0.01)  # the bot owes its bid
                continue
            move = rng.choice(list(view.legal_moves))
            self.assertEqual(move.WhichOneof("game"), "gops")
            hand = list(view.view.gops.hand0.values)
            self.assertIn(move.gops.card, hand)
            key = str(uuid.uuid4())
            resp = self.stub.SubmitMove(
                pb.SubmitMoveRequest(match_id=match_id, move=move, idempotency_key=key),
                metadata=auth,
                timeout=RPC_TIMEOUT_S,
            )
            self.assertEqual(resp.WhichOneof("outcome"), "accepted", resp)
            self.assertGreater(resp.accepted.version, view.version)
            if not duplicate_checked:
                # A retry with the same key is answered `duplicate` and applied once.
                again = self.stub.SubmitMove(
                    pb.SubmitMoveRequest(match_id=match_id, move=move, idempotency_key=key),
                    metadata=auth,
                    timeout=RPC_TIMEOUT_S,
                )
                self.assertEqual(again.WhichOneof("outcome"), "duplicate", again)
                self.assertEqual(again.duplicate.version, resp.accepted.version)
                duplicate_checked = True
            moves += 1
        self.assertEqual(moves, CARDS)
        self.assertEqual(list(view.legal_moves), [])

        # The outcome and the final scores.
        outcome = view.outcome
        self.assertEqual(outcome.reason, "completed")
        gops = view.view.gops
        self.assertEqual(gops.round, CARDS)
        self.assertEqual(list(gops.hand0.values), [])
        self.assertEqual(list(gops.hand1.values), [])
        s0, s1 = gops.score_halves.seat0, gops.score_halves.seat1
        # Split ties: every prize point goes to someone, in half points.
        self.assertEqual(s0 + s1, CARDS * (CARDS + 1), (s0, s1))
        if s0 == s1:
            self.assertFalse(outcome.HasField("winner"))
        else:
            self.assertEqual(outcome.winner, 0 if s0 > s1 else 1)

        # The watch stream: match_started first, every round revealed, match_ended last.
        thread.join(timeout=MATCH_TIMEOUT_S)
        self.assertFalse(thread.is_alive(), "the watch stream did not end")
        self.assertEqual(watch_error, [])
        kinds = [ev.event.WhichOneof("kind") for ev in events]
        self.assertEqual(kinds[0], "match_started", kinds)
        self.assertEqual(kinds[-1], "match_ended", kinds)
        started = events[0].event.match_started
        self.assertEqual(started.game, "gops")
        self.assertEqual(started.commitment, created.seed_commitment)
        versions = [(ev.version, ev.index) for ev in events]
        self.assertEqual(versions, sorted(versions))
        self.assertEqual(len(set(versions)), len(versions), "an event was delivered twice")
        revealed = [
            ev.event.gops.revealed
            for ev in events
            if ev.event.WhichOneof("kind") == "gops"
            and ev.event.gops.WhichOneof("kind") == "revealed"
        ]
        self.assertEqual([r.round for r in revealed], list(range(1, CARDS + 1)))
        self.assertEqual(sum(r.gained_halves.seat0 for r in revealed), s0)
        self.assertEqual(sum(r.gained_halves.seat1 for r in revealed), s1)
        self.assertEqual((revealed[-1].score_halves.seat0, revealed[-1].score_halves.seat1), (s0, s1))
        # The only private events are seat 0's own sealed bids: never the bot's.
        private = [ev for ev in events if ev.private]
        self.assertEqual(len(private), CARDS)
        for ev in private:
            self.assertEqual(ev.event.gops.WhichOneof("kind"), "bid_sealed", ev)
            self.assertEqual(ev.event.gops.bid_sealed.seat, 0, ev)
        ended = events[-1].event.match_ended
        self.assertEqual(ended.reason, "completed")
        self.assertEqual(ended.seed, outcome.seed)

        # The record: its seed is the one committed to at creation.
        record_json = self.stub.GetMatchRecord(
            pb.GetMatchRecordRequest(match_id=match_id), metadata=auth, timeout=RPC_TIMEOUT_S
        ).record_json
        record = json.loads(record_json)
        self.assertEqual(record["format"], "colosseum-record/1")
        self.assertEqual(record["game"], "gops")
        self.assertEqual(record["seed"], outcome.seed)
        self.assertEqual(record["commitment"], created.seed_commitment)
        self.assertEqual(
            hashlib.sha256(bytes.fromhex(record["seed"])).hexdigest(), created.seed_commitment
        )
        self.assertEqual(sum(1 for s in record["steps"] if "move" in s), 2 * CARDS)

        # The generated types are the real ones (a typo in a oneof would pass silently above).
        self.assertIsInstance(view.view, games_pb2.View)
        self.assertIsInstance(gops, gops_pb2.GopsView)


if __name__ == "__main__":
    unittest.main()
