// The browser protocols' cost against native gRPC, measured from one node process with
// the same client library for all three (connect-es): GetView of one live match, 32 calls
// in flight, for DURATION_S seconds a round, rounds interleaved (native gRPC over HTTP/2,
// gRPC-Web over HTTP/1.1, Connect over HTTP/1.1), against one `colosseum run` (embedded
// store). Prints, per protocol and round, calls/s, p50 and p99 latency, and the cluster
// process's CPU per call (from /proc), then the medians and the ratios to native gRPC.
//   COLOSSEUM_BIN=target/release/colosseum node tools/web-bench.mjs
// docs/benchmarks.md quotes its figures. Run from the repository root (make web-bench).
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const web = resolve("web");
const require = createRequire(resolve(web, "package.json"));
const { createClient } = await import(require.resolve("@connectrpc/connect"));
const { createGrpcWebTransport, createConnectTransport } = await import(require.resolve("@connectrpc/connect-web"));
const { createGrpcTransport } = await import(require.resolve("@connectrpc/connect-node"));
const { ColosseumService } = await import(resolve(web, "src/gen/colosseum/v1/colosseum_pb.js"));
const { startCluster } = await import(resolve(web, "tests/harness.mjs"));

const DURATION_S = Number(process.env.DURATION_S ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 32);
const TICK = 100; // USER_HZ: clock ticks per second in /proc/<pid>/stat

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICK; // utime + stime
}

/** The pid of the `colosseum run` serving `port`. */
function clusterPid(port) {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (cmd.includes("run") && cmd.includes(`127.0.0.1:${port}`)) return Number(pid);
    } catch {
      // gone
    }
  }
  throw new Error(`no colosseum run on port ${port}`);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const cluster = await startCluster({ RUST_LOG: "error" });
const pid = clusterPid(cluster.port);
try {
  let token = "";
  const bearer = (next) => async (req) => {
    if (token) req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
  const transports = {
    grpc: createGrpcTransport({ baseUrl: cluster.url, interceptors: [bearer] }),
    "grpc-web": createGrpcWebTransport({ baseUrl: cluster.url, interceptors: [bearer] }),
    connect: createConnectTransport({ baseUrl: cluster.url, interceptors: [bearer], useBinaryFormat: true }),
  };
  const clients = Object.fromEntries(Object.entries(transports).map(([k, t]) => [k, createClient(ColosseumService, t)]));
  token = (await clients.grpc.createGuestSession({ displayName: "bench" })).token;
  // A match with an open seat: nobody moves, so every GetView reads the same state.
  const { matchId } = await clients.grpc.createMatch({
    game: "gops",
    opponent: { kind: { case: "open", value: {} } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  const results = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, api] of Object.entries(clients)) {
      for (let i = 0; i < 200; i++) await api.getView({ matchId }); // warm the connections
      const lat = [];
      const cpu0 = cpuSeconds(pid);
      const t0 = performance.now();
      const end = t0 + DURATION_S * 1000;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (performance.now() < end) {
            const s = performance.now();
            await api.getView({ matchId });
            lat.push(performance.now() - s);
          }
        }),
      );
      const secs = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(pid) - cpu0;
      lat.sort((a, b) => a - b);
      const r = {
        rate: lat.length / secs,
        p50: lat[Math.floor(lat.length * 0.5)],
        p99: lat[Math.floor(lat.length * 0.99)],
        cpuUs: (cpu / lat.length) * 1e6,
      };
      (results[name] ??= []).push(r);
      console.log(
        `round ${round} ${name.padEnd(8)} ${r.rate.toFixed(0).padStart(6)} calls/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  server CPU ${r.cpuUs.toFixed(0)} us/call`,
      );
    }
  }
  const med = (name, k) => median(results[name].map((r) => r[k]));
  console.log("\nmedians (ratio to native gRPC):");
  for (const name of Object.keys(results)) {
    const ratio = (k) => (med(name, k) / med("grpc", k)).toFixed(2);
    console.log(
      `${name.padEnd(8)} ${med(name, "rate").toFixed(0).padStart(6)} calls/s (${ratio("rate")})  p50 ${med(name, "p50").toFixed(2)} ms (${ratio("p50")})  p99 ${med(name, "p99").toFixed(2)} ms  server CPU ${med(name, "cpuUs").toFixed(0)} us/call (${ratio("cpuUs")})`,
    );
  }
} finally {
  await cluster.stop();
}
