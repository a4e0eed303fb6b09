"""What every Python client test shares: `colosseum run` on a free loopback port for the
test class (stopped at the end, also when a test fails), the generated client on the path,
and a guest session. Not a test module itself: test_*.py files subclass ClusterTestCase.

Environment: COLOSSEUM_BIN (default <cargo's target directory>/debug/colosseum, that is
$CARGO_TARGET_DIR or target), COLOSSEUM_PY_GEN (default tests/python/build).
"""

import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

import grpc

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, os.environ.get("COLOSSEUM_PY_GEN", str(HERE / "build")))

try:
    from colosseum.v1 import colosseum_pb2 as pb
    from colosseum.v1 import colosseum_pb2_grpc as pb_grpc
except ImportError as e:  # pragma: no cover - a setup problem, said plainly
    raise ImportError(f"{e}: generate the client first: python tests/python/generate.py") from e

BIN = pathlib.Path(
    os.environ.get(
        "COLOSSEUM_BIN",
        str(ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "debug" / "colosseum"),
    )
)
STARTUP_TIMEOUT_S = 30
RPC_TIMEOUT_S = 10


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ClusterTestCase(unittest.TestCase):
    """One cluster for the class: `cls.addr`, `cls.channel`, `cls.stub` (ColosseumService)."""

    @classmethod
    def setUpClass(cls):
        if not BIN.exists():
            raise AssertionError(f"{BIN} is missing: run `cargo build -p colosseum` first")
        cls.log = tempfile.NamedTemporaryFile(prefix="colosseum-run-", suffix=".log", delete=False)
        # The run's config directory (where it writes the tenant admin's address and
        # secret, admin-<address>.json) is the test's own: `cls.cli(...)` runs colosseum
        # with it, and names this cluster's gateway to `colosseum tenant`.
        cls.config_home = tempfile.TemporaryDirectory(prefix="colosseum-config-")
        cls.addClassCleanup(cls.config_home.cleanup)
        cls.env = dict(os.environ, XDG_CONFIG_HOME=cls.config_home.name)
        port = free_port()
        cls.addr = f"127.0.0.1:{port}"
        cls.proc = subprocess.Popen(
            [str(BIN), "run", "--addr", cls.addr],
            env=cls.env,
            stdin=subprocess.DEVNULL,
            stdout=cls.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        # Registered before anything can fail, so the cluster never outlives the test.
        cls.addClassCleanup(cls._stop)
        cls.channel = grpc.insecure_channel(cls.addr)
        cls.addClassCleanup(cls.channel.close)
        cls.stub = pb_grpc.ColosseumServiceStub(cls.channel)
        cls._wait_for_gateway()

    @classmethod
    def _stop(cls):
        if cls.proc.poll() is None:
            cls.proc.terminate()
            try:
                cls.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                cls.proc.kill()
                cls.proc.wait(timeout=10)
        cls.log.close()
        os.unlink(cls.log.name)

    @classmethod
    def _log_tail(cls) -> str:
        cls.log.flush()
        text = pathlib.Path(cls.log.name).read_text(errors="replace")
        return "\n".join(text.splitlines()[-30:])

    @classmethod
    def _wait_for_gateway(cls):
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        last = None
        while time.monotonic() < deadline:
            if cls.proc.poll() is not None:
                raise AssertionError(
                    f"colosseum run exited with {cls.proc.returncode}:\n{cls._log_tail()}"
                )
            try:
                cls.stub.ListGames(pb.ListGamesRequest(), timeout=1)
                return
            except grpc.RpcError as e:
                last = e
                time.sleep(0.1)
        raise AssertionError(
            f"the gateway at {cls.addr} did not answer in {STARTUP_TIMEOUT_S} s ({last}):\n"
            f"{cls._log_tail()}"
        )

    @classmethod
    def cli(cls, *args: str) -> str:
        """Runs `colosseum <args>` against this cluster (its config directory); its stdout."""
        if args and args[0] == "tenant":
            # The admin file is the one `colosseum run --addr` wrote for this gateway.
            args = (*args, "--gateway", f"http://{cls.addr}")
        out = subprocess.run(
            [str(BIN), *args], env=cls.env, capture_output=True, text=True, timeout=60
        )
        if out.returncode != 0:
            raise AssertionError(f"colosseum {' '.join(args)} failed: {out.stderr}")
        return out.stdout.strip()

    def session(self, name: str):
        """A guest session: the response and the metadata that authenticates its calls."""
        s = self.stub.CreateGuestSession(
            pb.CreateGuestSessionRequest(display_name=name), timeout=RPC_TIMEOUT_S
        )
        self.assertTrue(s.token)
        uuid.UUID(s.player_id)
        return s, (("authorization", f"Bearer {s.token}"),)

    def create_bot_match(self, auth, cards: int) -> "pb.CreateMatchResponse":
        """A GOPS match of `cards` cards (ties split) against the random bot, the caller at
        seat 0. The bot runner starts a moment after the gateway: UNAVAILABLE until then."""
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                return self.stub.CreateMatch(
                    pb.CreateMatchRequest(
                        game="gops",
                        options_json=json.dumps({"cards": cards, "ties": "split"}),
                        opponent=pb.Opponent(bot="random"),
                        seat=0,
                        move_time_ms=60_000,
                    ),
                    metadata=auth,
                    timeout=RPC_TIMEOUT_S,
                )
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
