// The test's own API client (gRPC-Web from node, as a third-party client calls), never a
// page's session: guest sessions, and a GOPS match against a built-in bot played to its
// end with the first legal move each turn (playOut, for any client's match), for a real
// finished match and its record.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { ColosseumService } from "../src/gen/colosseum/v1/colosseum_pb.js";

/** A client of the test's own holding a fresh guest session. */
export async function testGuest(url, name = "") {
  const held = { token: "" };
  const bearer = (next) => async (req) => {
    if (held.token) req.header.set("authorization", `Bearer ${held.token}`);
    return next(req);
  };
  const api = createClient(ColosseumService, createGrpcWebTransport({ baseUrl: url, interceptors: [bearer] }));
  const s = await api.createGuestSession({ displayName: name });
  held.token = s.token;
  return { api, playerId: s.playerId };
}

/** Plays a new GOPS match against `bot` to its end; answers its id and record (JSON text). */
export async function finishedBotMatch(url, bot = "random") {
  const { api } = await testGuest(url, "record maker");
  const { matchId, seat } = await api.createMatch({
    game: "gops",
    opponent: { kind: { case: "bot", value: bot } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  await playOut(api, matchId, seat);
  const { recordJson } = await api.getMatchRecord({ matchId });
  return { matchId, recordJson };
}

/**
 * Plays `seat` of a match to its end with the first legal move each turn (the other seat
 * a bot, or played elsewhere); answers the final view.
 * @param {import("@connectrpc/connect").Client<typeof ColosseumService>} api
 * @param {string} matchId
 * @param {number} seat
 */
export async function playOut(api, matchId, seat) {
  const until = Date.now() + 120_000;
  for (;;) {
    const v = await api.getView({ matchId });
    if (v.outcome) return v;
    if (Date.now() > until) throw new Error(`match ${matchId} did not end within 120 s`);
    if (v.toMove.includes(seat) && v.legalMoves.length) {
      await api.submitMove({ matchId, move: v.legalMoves[0], idempotencyKey: crypto.randomUUID() });
    } else {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
