"""A third-party Python client uses the lobby (colosseum.v1.LobbyService) of the whole cluster.

Two accounts register, queue in the rated GOPS queue (watching their tickets first), are
paired, play the match to the end through ColosseumService, and are rated and ranked; a
guest is refused rated play; Login refuses a wrong password and an unknown email alike.
Generated from proto/ like test_gops_match.py, against `colosseum run` on a free port
(cluster_case.py).

    make python-client            (venv in tools/py, generate, run tests/python with pytest)
"""

import queue
import random
import threading
import time
import unittest
import uuid

import grpc

import cluster_case
from cluster_case import RPC_TIMEOUT_S, STARTUP_TIMEOUT_S, pb

from colosseum.v1 import lobby_pb2 as lpb
from colosseum.v1 import lobby_pb2_grpc as lpb_grpc

PAIRING_TIMEOUT_S = 30
MATCH_TIMEOUT_S = 60
# Ratings follow the match's end asynchronously (the lifecycle stream).
RATING_TIMEOUT_S = 20
GOPS_RATED = lpb.QueueSpec(game="gops", options_json="", move_time_ms=60_000, rated=True)


class Player:
    """An account's session: its id, its seat once paired, the metadata of its calls."""

    def __init__(self, session, email, password):
        self.player_id = session.player_id
        self.token = session.token
        self.display_name = session.display_name
        self.email = email
        self.password = password
        self.auth = (("authorization", f"Bearer {session.token}"),)
        self.seat = None


class TicketWatch:
    """WatchTickets read on a thread of its own: each ticket (or the error that ended the
    stream) lands in a queue the test waits on."""

    def __init__(self, lobby, auth):
        self.call = lobby.WatchTickets(lpb.WatchTicketsRequest(), metadata=auth)
        # The headers arrive once the server holds the watch: it is open before we queue.
        self.call.initial_metadata()
        self.tickets = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for m in self.call:
                self.tickets.put(m.ticket)
        except grpc.RpcError as e:
            self.tickets.put(e)

    def assigned(self, ticket_id, timeout):
        """The ticket once ASSIGNED; fails on any other end or when the time runs out."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"ticket {ticket_id} was not paired in {timeout} s")
            try:
                t = self.tickets.get(timeout=left)
            except queue.Empty:
                continue
            if isinstance(t, grpc.RpcError):
                raise AssertionError(f"the ticket watch failed: {t}")
            if t.ticket_id != ticket_id:
                continue
            if t.state == lpb.TICKET_STATE_ASSIGNED:
                return t
            if t.state not in (lpb.TICKET_STATE_WAITING, lpb.TICKET_STATE_PAIRING):
                raise AssertionError(f"ticket {ticket_id} ended {lpb.TicketState.Name(t.state)}")

    def close(self):
        self.call.cancel()


class LobbyTest(cluster_case.ClusterTestCase):
    """One cluster for the class; accounts with fresh random emails in each test."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.lobby = lpb_grpc.LobbyServiceStub(cls.channel)
        cls._wait_for_lobby()

    @classmethod
    def _wait_for_lobby(cls):
        """The match-maker starts beside the gateway: UNAVAILABLE until it answers."""
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                cls.lobby.GetLeaderboard(lpb.GetLeaderboardRequest(game="gops"), timeout=1)
                return
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"the lobby did not answer in {STARTUP_TIMEOUT_S} s ({e.details()}):\n"
                        f"{cls._log_tail()}"
                    ) from e
                time.sleep(0.1)

    def register(self, name, leaderboard=False) -> Player:
        email = f"py-{uuid.uuid4()}@example.com"
        password = f"pw-{uuid.uuid4()}"
        resp = self.lobby.Register(
            lpb.RegisterRequest(
                email=email, password=password, display_name=name, leaderboard=leaderboard
            ),
            timeout=RPC_TIMEOUT_S,
        )
        self.assertTrue(resp.session.token)
        uuid.UUID(resp.session.player_id)
        return Player(resp.session, email, password)

    def rating(self, player, history=0):
        return self.lobby.GetRating(
            lpb.GetRatingRequest(game="gops", player_id=player.player_id, history_limit=history),
            timeout=RPC_TIMEOUT_S,
        )

    def play_to_the_end(self, match_id, players):
        """Both seats bid a random legal card whenever their view asks; the final view."""
        rng = random.Random(7)
        deadline = time.monotonic() + MATCH_TIMEOUT_S
        while True:
            self.assertLess(time.monotonic(), deadline, "the match did not end in time")
            moved = False
            for p in players:
                view = self.stub.GetView(
                    pb.GetViewRequest(match_id=match_id), metadata=p.auth, timeout=RPC_TIMEOUT_S
                )
                self.assertEqual(view.game, "gops")
                self.assertEqual(view.seat, p.seat)
                if view.HasField("outcome"):
                    return view
                if view.legal_moves:
                    resp = self.stub.SubmitMove(
                        pb.SubmitMoveRequest(
                            match_id=match_id,
                            move=rng.choice(list(view.legal_moves)),
                            idempotency_key=str(uuid.uuid4()),
                        ),
                        metadata=p.auth,
                        timeout=RPC_TIMEOUT_S,
                    )
                    self.assertEqual(resp.WhichOneof("outcome"), "accepted", resp)
                    moved = True
            if not moved:
                time.sleep(0.01)

    # --- rated play, from the queue to the leaderboard ----------------------------------

    def test_two_accounts_are_paired_play_rated_and_are_ranked(self):
        a = self.register("py-ada", leaderboard=True)
        b = self.register("py-bob", leaderboard=True)
        watches = {p.player_id: TicketWatch(self.lobby, p.auth) for p in (a, b)}
        self.addCleanup(lambda: [w.close() for w in watches.values()])

        tickets = {}
        for p in (a, b):
            key = str(uuid.uuid4())
            first = self.lobby.CreateTicket(
                lpb.CreateTicketRequest(queue=GOPS_RATED, idempotency_key=key),
                metadata=p.auth,
                timeout=RPC_TIMEOUT_S,
            )
            self.assertFalse(first.duplicate)
            uuid.UUID(first.ticket.ticket_id)
            # The same key again: the same ticket, answered `duplicate`, nothing created.
            again = self.lobby.CreateTicket(
                lpb.CreateTicketRequest(queue=GOPS_RATED, idempotency_key=key),
                metadata=p.auth,
                timeout=RPC_TIMEOUT_S,
            )
            self.assertTrue(again.duplicate)
            self.assertEqual(again.ticket.ticket_id, first.ticket.ticket_id)
            tickets[p.player_id] = first.ticket.ticket_id

        assigned = {
            p.player_id: watches[p.player_id].assigned(tickets[p.player_id], PAIRING_TIMEOUT_S)
            for p in (a, b)
        }
        match_id = assigned[a.player_id].match_id
        uuid.UUID(match_id)
        self.assertEqual(assigned[b.player_id].match_id, match_id)
        a.seat, b.seat = assigned[a.player_id].seat, assigned[b.player_id].seat
        self.assertEqual({a.seat, b.seat}, {0, 1})
        for t in assigned.values():
            self.assertTrue(t.queue.rated)
            self.assertEqual(t.queue.game, "gops")

        view = self.play_to_the_end(match_id, [a, b])
        outcome = view.outcome
        self.assertEqual(outcome.reason, "completed")
        winner = None
        if outcome.HasField("winner"):
            winner = a if outcome.winner == a.seat else b

        # Ratings are updated once the lifecycle stream tells the match-maker.
        deadline = time.monotonic() + RATING_TIMEOUT_S
        while True:
            ra, rb = self.rating(a, history=5), self.rating(b, history=5)
            if ra.games >= 1 and rb.games >= 1:
                break
            self.assertLess(time.monotonic(), deadline, f"not rated in time: {ra} {rb}")
            time.sleep(0.2)
        ratings = {a.player_id: ra, b.player_id: rb}
        for p, r in ((a, ra), (b, rb)):
            self.assertEqual(r.games, 1, r)
            self.assertLess(r.deviation, 350, r)
            self.assertTrue(r.provisional, r)
            self.assertEqual(r.board, lpb.BOARD_PROVISIONAL, r)
            self.assertEqual(len(r.history), 1, r)
            self.assertEqual(r.history[0].match_id, match_id)
            self.assertAlmostEqual(r.history[0].opponent_rating, 1500, delta=0.5)
            expected = 0.5 if winner is None else (1.0 if p is winner else 0.0)
            self.assertEqual(r.history[0].score, expected, r)
        if winner is None:
            for r in (ra, rb):
                self.assertAlmostEqual(r.rating, 1500, delta=0.5, msg=r)
        else:
            loser = b if winner is a else a
            self.assertGreater(ratings[winner.player_id].rating, 1500)
            self.assertLess(ratings[loser.player_id].rating, 1500)

        # Both opted in and are provisional: on the provisional board, not the rated one.
        board = self.lobby.GetLeaderboard(
            lpb.GetLeaderboardRequest(game="gops", board=lpb.BOARD_PROVISIONAL, limit=100),
            timeout=RPC_TIMEOUT_S,
        )
        listed = {e.player_id: e for e in board.entries}
        for p in (a, b):
            self.assertIn(p.player_id, listed, board)
            e = listed[p.player_id]
            self.assertEqual(e.games, 1)
            self.assertEqual(e.display_name, p.display_name)
            self.assertAlmostEqual(e.rating, ratings[p.player_id].rating, delta=1e-6)
        self.assertGreaterEqual(board.total, 2)
        ranks = [e.rank for e in board.entries]
        self.assertEqual(ranks, sorted(ranks))
        around = self.lobby.GetLeaderboard(
            lpb.GetLeaderboardRequest(
                game="gops", board=lpb.BOARD_PROVISIONAL, limit=3, around_player_id=b.player_id
            ),
            timeout=RPC_TIMEOUT_S,
        )
        self.assertIn(b.player_id, [e.player_id for e in around.entries])
        rated = self.lobby.GetLeaderboard(
            lpb.GetLeaderboardRequest(game="gops", board=lpb.BOARD_RATED, limit=100),
            timeout=RPC_TIMEOUT_S,
        )
        self.assertFalse({a.player_id, b.player_id} & {e.player_id for e in rated.entries})

    # --- refusals ------------------------------------------------------------------------

    def test_a_guest_is_refused_rated_play(self):
        _, auth = self.session("py-guest")
        with self.assertRaises(grpc.RpcError) as cm:
            self.lobby.CreateTicket(
                lpb.CreateTicketRequest(queue=GOPS_RATED, idempotency_key=str(uuid.uuid4())),
                metadata=auth,
                timeout=RPC_TIMEOUT_S,
            )
        self.assertEqual(cm.exception.code(), grpc.StatusCode.PERMISSION_DENIED, cm.exception)
        # Its profile says why: no account.
        profile = self.lobby.GetProfile(
            lpb.GetProfileRequest(), metadata=auth, timeout=RPC_TIMEOUT_S
        ).profile
        self.assertFalse(profile.account)

    def test_login_refuses_a_wrong_password_and_an_unknown_email_alike(self):
        p = self.register("py-login")
        ok = self.lobby.Login(
            lpb.LoginRequest(email=p.email.upper(), password=p.password), timeout=RPC_TIMEOUT_S
        )
        self.assertEqual(ok.session.player_id, p.player_id)
        self.assertNotEqual(ok.session.token, p.token)

        refusals = []
        wrong_password = (p.email, p.password + "x")
        unknown_email = (f"py-{uuid.uuid4()}@example.com", p.password)
        for email, password in (wrong_password, unknown_email):
            with self.assertRaises(grpc.RpcError) as cm:
                self.lobby.Login(
                    lpb.LoginRequest(email=email, password=password), timeout=RPC_TIMEOUT_S
                )
            self.assertEqual(cm.exception.code(), grpc.StatusCode.UNAUTHENTICATED, cm.exception)
            details = dict(cm.exception.trailing_metadata() or ()).get("grpc-status-details-bin")
            refusals.append((cm.exception.details(), details))
        # Nothing tells which was wrong: the same message, the same ErrorInfo.
        self.assertEqual(refusals[0], refusals[1])
        self.assertIsNotNone(refusals[0][1], "no google.rpc.Status details")

        # The email is taken now.
        with self.assertRaises(grpc.RpcError) as cm:
            self.lobby.Register(
                lpb.RegisterRequest(email=p.email, password=p.password), timeout=RPC_TIMEOUT_S
            )
        self.assertEqual(cm.exception.code(), grpc.StatusCode.ALREADY_EXISTS, cm.exception)

        # The profile is the account's; after Logout its token is refused.
        profile = self.lobby.GetProfile(
            lpb.GetProfileRequest(), metadata=p.auth, timeout=RPC_TIMEOUT_S
        ).profile
        self.assertTrue(profile.account)
        self.assertEqual(profile.email, p.email)
        self.lobby.Logout(lpb.LogoutRequest(), metadata=p.auth, timeout=RPC_TIMEOUT_S)
        with self.assertRaises(grpc.RpcError) as cm:
            self.lobby.GetProfile(lpb.GetProfileRequest(), metadata=p.auth, timeout=RPC_TIMEOUT_S)
        self.assertEqual(cm.exception.code(), grpc.StatusCode.UNAUTHENTICATED, cm.exception)


if __name__ == "__main__":
    unittest.main()
