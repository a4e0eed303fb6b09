//! What the gateway counts, described once (exported at zero from the start, with help and
//! type); the dashboards in deploy/grafana and the alerts in deploy/prometheus read these.

use service_kit::metrics::{Desc, Kind, LATENCY_BUCKETS};

/// SubmitMove from its arrival to its answer (the engine's apply and the append included),
/// by game.
pub const SUBMIT_SECONDS: &str = "colosseum_gateway_submit_duration_seconds";
/// Open match watches: WatchMatch streams and Play streams' watches.
pub const WATCH_STREAMS: &str = "colosseum_gateway_watch_streams";
/// Open Play streams.
pub const PLAY_STREAMS: &str = "colosseum_gateway_play_streams";
/// Play requests answered, by kind and status code.
pub const PLAY_REQUESTS: &str = "colosseum_gateway_play_requests_total";

/// Bot matches this gateway's bot runner plays now (0 unless it holds the lease).
pub const BOT_PLAYING: &str = "colosseum_gateway_bot_matches_playing";
/// Bot matches resumed after their play failed (a stream or call broke, a service down).
pub const BOT_RESUMES: &str = "colosseum_gateway_bot_resumes_total";

/// Seats this gateway holds a presence lease on (a player of the seat watches the match
/// here).
pub const PRESENCE_SEATS: &str = "colosseum_gateway_presence_seats";
/// Seat presence changes this gateway's leases made, by what the seat became.
pub const PRESENCE_CHANGES: &str = "colosseum_gateway_presence_changes_total";
/// Presence lease calls that failed, by operation.
pub const PRESENCE_FAILURES: &str = "colosseum_gateway_presence_failures_total";

/// Every metric of the gateway.
pub const ALL: &[Desc] = &[
    Desc {
        name: crate::web::WEB_REQUESTS,
        kind: Kind::Counter,
        help: "Requests the browser front answered itself, by kind (file, not_found, preflight, origin_refused, bad_method); gRPC-Web and Connect calls count as gRPC calls",
    },
    Desc {
        name: SUBMIT_SECONDS,
        kind: Kind::Histogram(LATENCY_BUCKETS),
        help: "SubmitMove from arrival to answer (engine apply and append included), by game",
    },
    Desc {
        name: WATCH_STREAMS,
        kind: Kind::Gauge,
        help: "Open match watches (WatchMatch streams and Play streams' watches)",
    },
    Desc { name: PLAY_STREAMS, kind: Kind::Gauge, help: "Open Play streams" },
    Desc {
        name: BOT_PLAYING,
        kind: Kind::Gauge,
        help: "Bot matches this gateway's bot runner plays (0 unless it holds the bots lease)",
    },
    Desc {
        name: BOT_RESUMES,
        kind: Kind::Counter,
        help: "Bot matches resumed after their play failed (a stream or call broke, a service down)",
    },
    Desc {
        name: PLAY_REQUESTS,
        kind: Kind::Counter,
        help: "Play requests answered, by kind (watch, unwatch, submit_move, resign, none) and status code",
    },
    Desc {
        name: PRESENCE_SEATS,
        kind: Kind::Gauge,
        help: "Seats this gateway holds a presence lease on (their player watches the match here)",
    },
    Desc {
        name: PRESENCE_CHANGES,
        kind: Kind::Counter,
        help: "Seat presence changes this gateway's leases made, by what the seat became (connected, left)",
    },
    Desc {
        name: PRESENCE_FAILURES,
        kind: Kind::Counter,
        help: "Presence lease calls that failed, by operation (mark: take or renew; unmark)",
    },
    Desc {
        name: "colosseum_gateway_requests_total",
        kind: Kind::Counter,
        help: "Public API requests authenticated (or refused) by the auth layer",
    },
    Desc {
        name: "colosseum_gateway_watched_matches",
        kind: Kind::Gauge,
        help: "Matches this gateway's hub follows for its watchers",
    },
    Desc {
        name: "colosseum_gateway_hub_reads_total",
        kind: Kind::Counter,
        help: "Stream reads by the hub for new entries",
    },
    Desc {
        name: "colosseum_gateway_feed_failures_total",
        kind: Kind::Counter,
        help: "Times the hub lost the store's append feed or presence feed and resubscribed",
    },
    Desc {
        name: "colosseum_gateway_resyncs_total",
        kind: Kind::Counter,
        help: "Watch streams told to resync (the stream no longer held what they had seen)",
    },
    Desc {
        name: "colosseum_gateway_rewound_total",
        kind: Kind::Counter,
        help: "Matches whose stream was found rewound (lost writes) by the hub",
    },
];
