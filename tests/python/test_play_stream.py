"""A third-party Python client plays a GOPS match against a bot over one Play stream.

Play is the bidirectional stream for every match a client plays or watches: the client
sends its watch and its moves up the stream (each with a request id of its choosing),
and receives the match's messages (the very WatchMatch messages, each naming its match)
and each request's answer or in-band error. The client is generated from proto/ with
grpcio-tools, as in test_gops_match.py; `colosseum run` is started on a free loopback
port for the class and stopped at the end (cluster_case.py).

    make python-client            (venv in tools/py, generate, run tests/python with pytest)

Environment: as cluster_case.py says (COLOSSEUM_BIN, COLOSSEUM_PY_GEN).
"""

import json
import queue
import random
import unittest
import uuid

import grpc

import cluster_case
from cluster_case import RPC_TIMEOUT_S, pb

CARDS = 13
MATCH_TIMEOUT_S = 60


class PlayStream:
    """One Play stream: requests go up from a queue (request ids 1, 2, ...), messages come
    down as the gateway sends them."""

    def __init__(self, stub, auth):
        self._requests = queue.Queue()
        self._next_id = 0
        self.responses = stub.Play(self._up(), metadata=auth, timeout=MATCH_TIMEOUT_S)

    def _up(self):
        while True:
            r = self._requests.get()
            if r is None:
                return
            yield r

    def send(self, **kind) -> int:
        """Sends a request of one kind (watch=..., submit_move=..., ...); its id."""
        self._next_id += 1
        self._requests.put(pb.PlayRequest(request_id=self._next_id, **kind))
        return self._next_id

    def close(self):
        """Closes the client's side: the gateway answers what was asked, then ends."""
        self._requests.put(None)


class PlayStreamTest(cluster_case.ClusterTestCase):
    """One cluster for the class (see cluster_case)."""

    def test_a_gops_match_against_the_bot_over_one_play_stream(self):
        me, auth = self.session("python-play")
        created = self.create_bot_match(auth, CARDS)
        match_id = created.match_id
        stream = PlayStream(self.stub, auth)

        # Two in-band refusals first: the stream goes on after each.
        bad = stream.send(submit_move=pb.SubmitMoveRequest(match_id="nope", idempotency_key="k"))
        unknown = stream.send(watch=pb.WatchMatchRequest(match_id=str(uuid.uuid4())))
        watch = stream.send(watch=pb.WatchMatchRequest(match_id=match_id, include_views=True))

        rng = random.Random(17)
        refused = {}
        events, views = [], []
        started = None
        acted_at = -1  # the newest version a move of ours answered, or acted on
        moving = None  # (request id, key, move) of the move in flight
        latest = None  # the newest view
        duplicate = None  # the request id of a deliberate resubmission, then its answer
        accepted = {}  # request id -> version
        ended = None

        def act():
            nonlocal moving, acted_at
            if moving or latest is None or latest.HasField("outcome"):
                return
            if not latest.legal_moves or latest.version <= acted_at:
                return
            move = rng.choice(list(latest.legal_moves))
            self.assertIn(move.gops.card, list(latest.view.gops.hand0.values))
            key = str(uuid.uuid4())
            rid = stream.send(
                submit_move=pb.SubmitMoveRequest(match_id=match_id, move=move, idempotency_key=key)
            )
            moving = (rid, key, move)
            acted_at = latest.version

        for resp in stream.responses:
            kind = resp.WhichOneof("kind")
            if kind == "error":
                refused[resp.error.request_id] = resp.error.status
            elif kind == "answer":
                a = resp.answer
                which = a.WhichOneof("kind")
                if which == "watch":
                    self.assertEqual(a.request_id, watch)
                    self.assertEqual(a.watch.match_id, match_id)
                    self.assertEqual(a.watch.seat, 0)
                    self.assertEqual(events, [], "the watch is answered before its messages")
                    started = a.watch
                elif which == "submit_move" and duplicate == a.request_id:
                    duplicate = a.submit_move
                elif which == "submit_move":
                    rid, key, move = moving
                    self.assertEqual(a.request_id, rid)
                    self.assertEqual(a.submit_move.WhichOneof("outcome"), "accepted", a)
                    version = a.submit_move.accepted.version
                    accepted[rid] = version
                    # The views up to the move's own version predate it.
                    acted_at = max(acted_at, version)
                    moving = None
                    if duplicate is None:
                        # The same move, the same key: a duplicate of that version.
                        duplicate = stream.send(
                            submit_move=pb.SubmitMoveRequest(
                                match_id=match_id, move=move, idempotency_key=key
                            )
                        )
                        duplicate_version = version
                    act()
                else:
                    self.fail(f"an answer of no request of ours: {a}")
            elif kind == "match_message":
                self.assertEqual(resp.match_message.match_id, match_id)
                m = resp.match_message.message
                if m.HasField("view"):
                    latest = m.view
                    views.append(m)
                    act()
                else:
                    events.append(m)
            elif kind == "watch_ended":
                ended = resp.watch_ended
            else:
                self.fail(f"an unknown message: {resp}")
            # Once the match ended and every request is answered, close our side: the
            # gateway then ends the stream.
            if ended is not None and moving is None and not isinstance(duplicate, int):
                stream.close()

        # The refusals, in-band, with the unary calls' codes and reasons.
        self.assertEqual(refused[bad].code, grpc.StatusCode.INVALID_ARGUMENT.value[0])
        self.assertEqual(refused[bad].reason, "INVALID_FIELD")
        self.assertEqual(refused[bad].metadata["field"], "submit_move.match_id")
        self.assertEqual(refused[unknown].code, grpc.StatusCode.NOT_FOUND.value[0])
        self.assertEqual(len(refused), 2, refused)

        # The watch ended with the match; every move was accepted once.
        self.assertIsNotNone(started)
        self.assertEqual(ended.match_id, match_id)
        self.assertEqual(ended.status.code, 0, ended)
        self.assertEqual(len(accepted), CARDS)
        self.assertEqual(duplicate.WhichOneof("outcome"), "duplicate", duplicate)
        self.assertEqual(duplicate.duplicate.version, duplicate_version)

        # The match as the messages told it: started, 13 rounds revealed, ended.
        kinds = [ev.event.WhichOneof("kind") for ev in events]
        self.assertEqual(kinds[0], "match_started", kinds)
        self.assertEqual(kinds[-1], "match_ended", kinds)
        self.assertEqual(events[0].event.match_started.commitment, created.seed_commitment)
        positions = [(m.version, m.index) for m in sorted(events + views, key=lambda m: (m.version, m.index))]
        self.assertEqual(len(set(positions)), len(positions), "a message was delivered twice")
        revealed = [
            ev.event.gops.revealed
            for ev in events
            if ev.event.WhichOneof("kind") == "gops" and ev.event.gops.WhichOneof("kind") == "revealed"
        ]
        self.assertEqual([r.round for r in revealed], list(range(1, CARDS + 1)))
        # The only private events are our own sealed bids: never the bot's.
        private = [ev for ev in events if ev.private]
        self.assertEqual(len(private), CARDS)
        for ev in private:
            self.assertEqual(ev.event.gops.bid_sealed.seat, 0, ev)
        outcome = views[-1].view.outcome
        self.assertEqual(outcome.reason, "completed")
        self.assertEqual(events[-1].event.match_ended.seed, outcome.seed)

        # The record agrees: the same seed, 26 moves, the same scores.
        record = json.loads(
            self.stub.GetMatchRecord(
                pb.GetMatchRecordRequest(match_id=match_id), metadata=auth, timeout=RPC_TIMEOUT_S
            ).record_json
        )
        self.assertEqual(record["seed"], outcome.seed)
        self.assertEqual(record["commitment"], created.seed_commitment)
        self.assertEqual(sum(1 for s in record["steps"] if "move" in s), 2 * CARDS)
        last = revealed[-1].score_halves
        self.assertEqual(
            (last.seat0, last.seat1),
            (views[-1].view.view.gops.score_halves.seat0, views[-1].view.view.gops.score_halves.seat1),
        )

    def test_play_needs_a_session(self):
        responses = self.stub.Play(iter([pb.PlayRequest(request_id=1)]), timeout=RPC_TIMEOUT_S)
        with self.assertRaises(grpc.RpcError) as cm:
            list(responses)
        self.assertEqual(cm.exception.code(), grpc.StatusCode.UNAUTHENTICATED)


if __name__ == "__main__":
    unittest.main()
