// The gateway's browser protocols from node, as a third-party client would use them: the
// same calls over gRPC-Web and over the Connect protocol (unary and server streaming), the
// same refusals (code, ErrorInfo, metadata), limits and metrics as native gRPC; the page's
// headers (a strict CSP); other origins refused, configured ones answered with CORS.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createClient, ConnectError, Code } from "@connectrpc/connect";
import { createGrpcWebTransport, createConnectTransport } from "@connectrpc/connect-web";
import { ColosseumService } from "../src/gen/colosseum/v1/colosseum_pb.js";
import { startCluster, freePort } from "./harness.mjs";

/** @type {Awaited<ReturnType<typeof startCluster>>} */
let cluster;
let metricsPort = 0;

before(async () => {
  metricsPort = await freePort();
  cluster = await startCluster({ METRICS_ADDR: `127.0.0.1:${metricsPort}` });
});
after(async () => {
  await cluster?.stop();
});

const PROTOCOLS = {
  "gRPC-Web": (baseUrl, interceptors) => createGrpcWebTransport({ baseUrl, interceptors }),
  Connect: (baseUrl, interceptors) => createConnectTransport({ baseUrl, interceptors, useBinaryFormat: true }),
};

/** A client over `protocol` holding its own session once `signIn` ran. */
function client(protocol) {
  const held = { token: "" };
  const bearer = (next) => async (req) => {
    if (held.token) req.header.set("authorization", `Bearer ${held.token}`);
    return next(req);
  };
  const api = createClient(ColosseumService, PROTOCOLS[protocol](cluster.url, [bearer]));
  return {
    api,
    async signIn(name) {
      const s = await api.createGuestSession({ displayName: name });
      held.token = s.token;
      return s;
    },
  };
}

/** The refusal `fn` ends with. */
async function refusal(fn) {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof ConnectError, `a ConnectError, not ${e}`);
    return e;
  }
  assert.fail("the call was not refused");
}

/** The ErrorInfo reason a refusal carries (its detail's bytes hold the reason's text). */
function reasonOf(e) {
  const info = e.details.find((d) => ("type" in d ? d.type : d.desc?.typeName) === "google.rpc.ErrorInfo");
  assert.ok(info, `an ErrorInfo among ${JSON.stringify(e.details.map((d) => d.type))}`);
  const text = Buffer.from(info.value).toString("latin1");
  const m = /([A-Z][A-Z_]{3,})/.exec(text);
  assert.ok(m, `a reason in the ErrorInfo: ${JSON.stringify(text)}`);
  return m[1];
}

for (const protocol of Object.keys(PROTOCOLS)) {
  test(`${protocol}: a guest creates a match against the bot, watches it and moves`, async () => {
    const c = client(protocol);
    const me = await c.signIn(`${protocol} player`);
    assert.match(me.playerId, /^[0-9a-f-]{36}$/);
    const games = await c.api.listGames({});
    assert.deepEqual(
      games.games.map((g) => g.name).sort(),
      ["cure-plague", "dueling-monsters", "gops", "hexspiel", "masterminds"],
    );
    const created = await c.api.createMatch({
      game: "gops",
      optionsJson: "",
      opponent: { kind: { case: "bot", value: "random" } },
      seat: 0,
      idempotencyKey: crypto.randomUUID(),
    });
    // The stream: events, then the caller's view with its legal moves.
    const watch = new AbortController();
    let view;
    for await (const m of c.api.watchMatch({ matchId: created.matchId, includeViews: true }, { signal: watch.signal })) {
      if (m.view && m.view.legalMoves.length > 0) {
        view = m.view;
        break;
      }
    }
    watch.abort();
    assert.equal(view.seat, 0);
    assert.equal(view.game, "gops");
    const move = view.legalMoves[0];
    const answer = await c.api.submitMove({
      matchId: created.matchId,
      move,
      idempotencyKey: crypto.randomUUID(),
    });
    assert.equal(answer.outcome.case, "accepted");
    // The same record through the unary path once the bot has played the match out is
    // another test's; here the view moved on.
    const after = await c.api.getView({ matchId: created.matchId });
    assert.ok(after.version > view.version, `${after.version} > ${view.version}`);
  });

  test(`${protocol}: refusals carry the same codes, reasons and limits as native gRPC`, async () => {
    const anonymous = client(protocol);
    const e1 = await refusal(() => anonymous.api.getView({ matchId: crypto.randomUUID() }));
    assert.equal(e1.code, Code.Unauthenticated);

    const c = client(protocol);
    await c.signIn("refused");
    const e2 = await refusal(() => c.api.getView({ matchId: "not-a-uuid" }));
    assert.equal(e2.code, Code.InvalidArgument);
    assert.equal(reasonOf(e2), "INVALID_FIELD");
    assert.ok(e2.rawMessage.length < 600, "a short message");

    // A request message over the 4 MiB limit: refused from its length, naming the limit.
    const e3 = await refusal(() =>
      c.api.createMatch({ game: "gops", optionsJson: "x".repeat(5 << 20), seat: 0, idempotencyKey: "" }),
    );
    assert.equal(e3.code, Code.ResourceExhausted);
    assert.equal(reasonOf(e3), "MESSAGE_TOO_LARGE");

    // A bad move: the rules' refusal with its conformance code in the metadata.
    const created = await c.api.createMatch({
      game: "gops",
      opponent: { kind: { case: "bot", value: "random" } },
      seat: 0,
      idempotencyKey: crypto.randomUUID(),
    });
    const e4 = await refusal(() =>
      c.api.submitMove({
        matchId: created.matchId,
        move: { game: { case: "gops", value: { card: 99 } } },
        idempotencyKey: crypto.randomUUID(),
      }),
    );
    assert.ok([Code.FailedPrecondition, Code.InvalidArgument].includes(e4.code), `code ${e4.code}`);
    assert.match(e4.metadata.get("colosseum-error-code") ?? "", /^(illegal_move|bad_move)$/);
  });
}

test("the Connect protocol's JSON and compressed bodies are refused plainly", async () => {
  const json = await fetch(`${cluster.url}/colosseum.v1.ColosseumService/ListGames`, {
    method: "POST",
    headers: { "content-type": "application/json", "connect-protocol-version": "1" },
    body: "{}",
  });
  assert.equal(json.status, 415);
  assert.equal((await json.json()).code, "unimplemented");
  const zipped = await fetch(`${cluster.url}/colosseum.v1.ColosseumService/ListGames`, {
    method: "POST",
    headers: { "content-type": "application/proto", "content-encoding": "gzip" },
    body: new Uint8Array(0),
  });
  assert.equal(zipped.status, 501);
});

test("the page is served under a strict Content-Security-Policy, with no inline script", async () => {
  const r = await fetch(`${cluster.url}/`);
  assert.equal(r.status, 200);
  const csp = r.headers.get("content-security-policy") ?? "";
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(r.headers.get("x-content-type-options"), "nosniff");
  const html = await r.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "every script is a file");
  assert.doesNotMatch(html, /\son[a-z]+=/i, "no inline handlers");
  assert.equal((await fetch(`${cluster.url}/app.js`)).headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal((await fetch(`${cluster.url}/../Cargo.toml`)).status, 404);
  assert.equal((await fetch(`${cluster.url}/nothing-here.js`)).status, 404);
});

test("calls from another origin are refused unless configured, and configured ones get CORS", async () => {
  const call = (url, origin) =>
    fetch(`${url}/colosseum.v1.ColosseumService/ListGames`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", origin },
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
  const preflight = (url, origin) =>
    fetch(`${url}/colosseum.v1.ColosseumService/ListGames`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-grpc-web,authorization",
      },
    });
  // The page's own origin is always served; any other is not, by default.
  const own = await call(cluster.url, cluster.url);
  assert.equal(own.status, 200);
  assert.equal(own.headers.get("grpc-status") ?? "0", "0");
  assert.equal((await call(cluster.url, "https://elsewhere.example")).status, 403);
  assert.equal((await preflight(cluster.url, "https://elsewhere.example")).status, 403);

  const friendly = await startCluster({ WEB_ORIGINS: "https://friend.example" });
  try {
    const p = await preflight(friendly.url, "https://friend.example");
    assert.equal(p.status, 204);
    assert.equal(p.headers.get("access-control-allow-origin"), "https://friend.example");
    assert.match(p.headers.get("access-control-allow-headers") ?? "", /authorization/);
    const r = await call(friendly.url, "https://friend.example");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("access-control-allow-origin"), "https://friend.example");
    assert.match(r.headers.get("access-control-expose-headers") ?? "", /grpc-status-details-bin/);
    assert.equal((await call(friendly.url, "https://other.example")).status, 403);
  } finally {
    await friendly.stop();
  }
});

test("browser calls are counted in the same metrics as native ones", async () => {
  const c = client("gRPC-Web");
  await c.signIn("counted");
  await c.api.listGames({});
  await client("Connect").api.listGames({});
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const count = (method) => {
    const line = text
      .split("\n")
      .find((l) => l.startsWith("colosseum_grpc_requests_total{") && l.includes(`method="${method}"`) && l.includes('code="OK"'));
    assert.ok(line, `a counter for ${method}`);
    return Number(line.trim().split(/\s+/).pop());
  };
  assert.ok(count("/colosseum.v1.ColosseumService/ListGames") >= 2);
  assert.ok(count("/colosseum.v1.ColosseumService/CreateGuestSession") >= 1);
  assert.match(text, /colosseum_gateway_web_requests_total\{kind="file"\} [1-9]/);
});
