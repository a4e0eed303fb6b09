//! Metrics: one registry per process of counters, gauges and histograms, with labels,
//! rendered as Prometheus text (with `# HELP` and `# TYPE` for every described metric).
//! Each service describes its metrics once at start ([`describe`]), so an unlabelled
//! counter is exported at zero before its first event (an `increase()` alert sees that
//! first event); the process's own CPU, memory and descriptors are read at each scrape.
//!
//! # Layout
//! - this file: the registry, [`describe`], [`add`], [`set`], [`observe`], [`Timer`],
//!   [`Open`], [`render`].
//! - [`http`]: `/metrics`, `/healthz` and `/readyz` over HTTP.
//! - [`process`]: `process_*` metrics from `/proc/self`.

mod http;
mod process;
pub use process::cpu_seconds;

pub use http::{Ready, ready_on, serve, serve_from_env};

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What a metric is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Only goes up (`_total`).
    Counter,
    /// Goes up and down.
    Gauge,
    /// Observations counted into buckets with these upper bounds (seconds, ascending).
    Histogram(&'static [f64]),
}

/// A metric's description: its name, kind and one line of help.
#[derive(Clone, Copy, Debug)]
pub struct Desc {
    /// `colosseum_<service>_<what>[_total|_seconds]`.
    pub name: &'static str,
    /// What it is.
    pub kind: Kind,
    /// One line for whoever reads the scrape.
    pub help: &'static str,
}

/// Request latencies: 1 ms to 2.5 s.
pub const LATENCY_BUCKETS: &[f64] =
    &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5];
/// Event store calls: 0.5 ms to 2 s.
pub const STORE_BUCKETS: &[f64] =
    &[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.0];
/// How late a deadline fires: 10 ms to 30 s.
pub const LAG_BUCKETS: &[f64] = &[0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// The metrics every server exports (the edge layer and the panic guard count them).
pub const SERVER: &[Desc] = &[
    Desc {
        name: "colosseum_grpc_requests_total",
        kind: Kind::Counter,
        help: "gRPC requests answered, by method and status code",
    },
    Desc {
        name: "colosseum_grpc_request_duration_seconds",
        kind: Kind::Histogram(LATENCY_BUCKETS),
        help: "Time from a gRPC request to its response headers (a unary call's whole time), by method",
    },
    Desc {
        name: "colosseum_panics_total",
        kind: Kind::Counter,
        help: "Requests whose handler panicked (answered INTERNAL)",
    },
];

struct Histogram {
    /// The buckets' upper bounds.
    bounds: &'static [f64],
    /// Per bucket, not cumulative (summed when rendered); one more for +Inf.
    counts: Vec<AtomicU64>,
    count: AtomicU64,
    /// The sum of observations, as f64 bits.
    sum: AtomicU64,
}

#[derive(Clone)]
enum Series {
    Value(Arc<AtomicI64>),
    Histogram(Arc<Histogram>),
}

struct Family {
    help: Option<&'static str>,
    kind: Option<Kind>,
    /// By label text (`a="x",b="y"`; empty for none).
    series: BTreeMap<String, Series>,
}

type Registry = Mutex<BTreeMap<&'static str, Family>>;

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// Registers `descs` (again is harmless): their help and type are rendered, and each
/// counter or gauge without labels is exported at zero from now on.
pub fn describe(descs: &[Desc]) {
    let mut r = registry().lock().expect("the metrics lock");
    for d in descs {
        let f = r.entry(d.name).or_insert_with(|| Family {
            help: None,
            kind: None,
            series: BTreeMap::new(),
        });
        f.help = Some(d.help);
        f.kind = Some(d.kind);
        if !matches!(d.kind, Kind::Histogram(_)) {
            f.series.entry(String::new()).or_insert_with(|| Series::Value(Arc::default()));
        }
    }
}

/// Label text, values escaped as the exposition format wants.
fn label_text(labels: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in labels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let v = v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
        let _ = write!(out, "{k}=\"{v}\"");
    }
    out
}

/// A series a thread has looked up before: its name and labels, to tell apart the series
/// whose keys hash alike.
struct Near {
    name: &'static str,
    labels: Vec<(String, String)>,
    series: Series,
}

thread_local! {
    /// The series this thread has used, by a hash of name and labels: the registry's lock,
    /// its two map lookups and the label text are paid once per thread and series, and a
    /// call on a hot path (each move counts and times several) neither allocates nor waits
    /// for another thread.
    static NEAR: std::cell::RefCell<BTreeMap<u64, Vec<Near>>> =
        std::cell::RefCell::default();
}

/// The cache's key: a fast fixed hash (names and labels are the program's own, from small
/// known sets, so no caller can choose collisions; the entries are compared anyway).
fn key_hash(name: &str, labels: &[(&str, &str)]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one((name, labels))
}

fn series(name: &'static str, labels: &[(&str, &str)], histogram: bool) -> Series {
    let key = key_hash(name, labels);
    let same = |n: &Near| {
        n.name == name
            && n.labels.len() == labels.len()
            && n.labels.iter().zip(labels).all(|((k, v), (k2, v2))| k == k2 && v == v2)
    };
    let near = NEAR.with(|cache| {
        cache
            .borrow()
            .get(&key)
            .and_then(|found| found.iter().find(|n| same(n)))
            .map(|n| n.series.clone())
    });
    if let Some(series) = near {
        return series;
    }
    let series = registered(name, labels, histogram);
    let labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    NEAR.with(|cache| {
        let near = Near { name, labels, series: series.clone() };
        cache.borrow_mut().entry(key).or_default().push(near);
    });
    series
}

/// The series of `name` with `labels` in the registry, made on first use.
fn registered(name: &'static str, labels: &[(&str, &str)], histogram: bool) -> Series {
    let mut r = registry().lock().expect("the metrics lock");
    let f =
        r.entry(name).or_insert_with(|| Family { help: None, kind: None, series: BTreeMap::new() });
    let buckets = match f.kind {
        Some(Kind::Histogram(b)) => b,
        _ => LATENCY_BUCKETS,
    };
    f.series
        .entry(label_text(labels))
        .or_insert_with(|| {
            if histogram {
                Series::Histogram(Arc::new(Histogram {
                    bounds: buckets,
                    counts: (0..=buckets.len()).map(|_| AtomicU64::new(0)).collect(),
                    count: AtomicU64::new(0),
                    sum: AtomicU64::new(0f64.to_bits()),
                }))
            } else {
                Series::Value(Arc::default())
            }
        })
        .clone()
}

/// The counter or gauge `name` without labels (created at zero on first use).
pub fn metric(name: &'static str) -> Arc<AtomicI64> {
    match series(name, &[], false) {
        Series::Value(v) => v,
        // A histogram's name used as a counter: a bug, kept harmless.
        Series::Histogram(_) => Arc::default(),
    }
}

/// Adds `n` to the counter `name`.
pub fn add(name: &'static str, n: i64) {
    metric(name).fetch_add(n, Ordering::Relaxed);
}

/// Sets the gauge `name`.
pub fn set(name: &'static str, v: i64) {
    metric(name).store(v, Ordering::Relaxed);
}

/// Adds `n` to the counter `name` with `labels` (their values from a small, known set:
/// every distinct value is a series kept for the life of the process).
pub fn add_with(name: &'static str, labels: &[(&str, &str)], n: i64) {
    if let Series::Value(v) = series(name, labels, false) {
        v.fetch_add(n, Ordering::Relaxed);
    }
}

/// Sets the gauge `name` with `labels`.
pub fn set_with(name: &'static str, labels: &[(&str, &str)], v: i64) {
    if let Series::Value(g) = series(name, labels, false) {
        g.store(v, Ordering::Relaxed);
    }
}

/// Observes `seconds` in the histogram `name` with `labels` (buckets as described, else
/// [`LATENCY_BUCKETS`]).
pub fn observe(name: &'static str, labels: &[(&str, &str)], seconds: f64) {
    if let Series::Histogram(h) = series(name, labels, true) {
        h.observe(seconds);
    }
}

impl Histogram {
    fn observe(&self, seconds: f64) {
        let i = self.bounds.iter().position(|&b| seconds <= b).unwrap_or(self.bounds.len());
        self.counts[i].fetch_add(1, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut old = self.sum.load(Ordering::Relaxed);
        loop {
            let new = (f64::from_bits(old) + seconds).to_bits();
            match self.sum.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => old = now,
            }
        }
    }
}

/// Times a span of work into the histogram `name`: observed when dropped, so a call cut
/// short (a client gone, an error returned early) is timed too. Its series is found when
/// it starts, so the drop allocates nothing.
pub struct Timer {
    histogram: Option<Arc<Histogram>>,
    started: std::time::Instant,
}

impl Timer {
    /// Starts timing, with `labels`.
    pub fn start(name: &'static str, labels: &[(&'static str, &str)]) -> Timer {
        let histogram = match series(name, labels, true) {
            Series::Histogram(h) => Some(h),
            // A counter's name used as a histogram: a bug, kept harmless.
            Series::Value(_) => None,
        };
        Timer { histogram, started: crate::time::instant() }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let Some(h) = &self.histogram {
            h.observe(self.started.elapsed().as_secs_f64());
        }
    }
}

/// One more in the gauge `name` while it lives (an open stream, a running task).
pub struct Open(Arc<AtomicI64>);

impl Open {
    /// Counts one in `name`.
    pub fn new(name: &'static str) -> Open {
        let g = metric(name);
        g.fetch_add(1, Ordering::Relaxed);
        Open(g)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `name{labels}` with `extra` appended to the labels.
fn sample(name: &str, suffix: &str, labels: &str, extra: &str) -> String {
    let all = match (labels.is_empty(), extra.is_empty()) {
        (true, true) => String::new(),
        (false, true) => format!("{{{labels}}}"),
        (true, false) => format!("{{{extra}}}"),
        (false, false) => format!("{{{labels},{extra}}}"),
    };
    format!("{name}{suffix}{all}")
}

/// Every metric in the Prometheus text format, then the process's own.
pub fn render() -> String {
    let mut out = String::new();
    for (name, f) in registry().lock().expect("the metrics lock").iter() {
        if let Some(help) = f.help {
            let _ = writeln!(out, "# HELP {name} {help}");
        }
        match f.kind {
            Some(Kind::Counter) => {
                let _ = writeln!(out, "# TYPE {name} counter");
            }
            Some(Kind::Gauge) => {
                let _ = writeln!(out, "# TYPE {name} gauge");
            }
            Some(Kind::Histogram(_)) => {
                let _ = writeln!(out, "# TYPE {name} histogram");
            }
            None => {}
        }
        for (labels, s) in &f.series {
            match s {
                Series::Value(v) => {
                    let _ = writeln!(
                        out,
                        "{} {}",
                        sample(name, "", labels, ""),
                        v.load(Ordering::Relaxed)
                    );
                }
                Series::Histogram(h) => {
                    let mut running = 0;
                    for (i, c) in h.counts.iter().enumerate() {
                        running += c.load(Ordering::Relaxed);
                        let le = h.bounds.get(i).map_or("+Inf".to_string(), |b| b.to_string());
                        let bucket = sample(name, "_bucket", labels, &format!("le=\"{le}\""));
                        let _ = writeln!(out, "{bucket} {running}");
                    }
                    let sum = f64::from_bits(h.sum.load(Ordering::Relaxed));
                    let _ = writeln!(out, "{} {sum}", sample(name, "_sum", labels, ""));
                    let count = h.count.load(Ordering::Relaxed);
                    let _ = writeln!(out, "{} {count}", sample(name, "_count", labels, ""));
                }
            }
        }
    }
    process::render(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each thread keeps its own handles to the registry's series: calls from many threads,
    /// and labels that differ only in a value or in their number, land in one series each,
    /// every call counted once.
    #[test]
    fn series_cached_per_thread_are_the_registrys() {
        let name = "colosseum_test_cached_total";
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(move || {
                    for _ in 0..1_000 {
                        add_with(name, &[("code", "OK")], 1);
                        add_with(name, &[("code", "NOT_FOUND")], 2);
                        add_with(name, &[("code", "OK"), ("method", "m")], 3);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("joined");
        }
        let text = render();
        assert!(text.contains("colosseum_test_cached_total{code=\"OK\"} 4000\n"), "{text}");
        assert!(text.contains("colosseum_test_cached_total{code=\"NOT_FOUND\"} 8000\n"));
        assert!(text.contains("colosseum_test_cached_total{code=\"OK\",method=\"m\"} 12000\n"));
    }

    #[test]
    fn described_metrics_render_with_their_type_at_zero_and_histograms_cumulate() {
        describe(&[
            Desc { name: "colosseum_test_described_total", kind: Kind::Counter, help: "things" },
            Desc {
                name: "colosseum_test_wait_seconds",
                kind: Kind::Histogram(&[0.1, 1.0]),
                help: "waits",
            },
        ]);
        let m = render();
        assert!(m.contains("# HELP colosseum_test_described_total things\n"), "{m}");
        assert!(m.contains("# TYPE colosseum_test_described_total counter\n"), "{m}");
        assert!(m.contains("\ncolosseum_test_described_total 0\n"), "{m}");
        for s in [0.05, 0.5, 0.7, 3.0] {
            observe("colosseum_test_wait_seconds", &[("game", "gops")], s);
        }
        add_with("colosseum_test_described_total", &[("code", "say \"hi\"")], 2);
        let m = render();
        assert!(m.contains("# TYPE colosseum_test_wait_seconds histogram\n"), "{m}");
        assert!(
            m.contains("colosseum_test_wait_seconds_bucket{game=\"gops\",le=\"0.1\"} 1\n"),
            "{m}"
        );
        assert!(
            m.contains("colosseum_test_wait_seconds_bucket{game=\"gops\",le=\"1\"} 3\n"),
            "{m}"
        );
        assert!(
            m.contains("colosseum_test_wait_seconds_bucket{game=\"gops\",le=\"+Inf\"} 4\n"),
            "{m}"
        );
        assert!(m.contains("colosseum_test_wait_seconds_sum{game=\"gops\"} 4.25\n"), "{m}");
        assert!(m.contains("colosseum_test_wait_seconds_count{game=\"gops\"} 4\n"), "{m}");
        assert!(m.contains("colosseum_test_described_total{code=\"say \\\"hi\\\"\"} 2\n"), "{m}");
        assert!(m.contains("# TYPE process_resident_memory_bytes gauge\n"), "{m}");
        {
            let _open = Open::new("colosseum_test_open");
            let _t = Timer::start("colosseum_test_wait_seconds", &[("game", "hexspiel")]);
            assert_eq!(metric("colosseum_test_open").load(Ordering::Relaxed), 1);
        }
        assert_eq!(metric("colosseum_test_open").load(Ordering::Relaxed), 0);
        let m = render();
        assert!(m.contains("colosseum_test_wait_seconds_count{game=\"hexspiel\"} 1\n"), "{m}");
    }
}
