//! The one consumer of the lifecycle stream (finished matches), for every service that
//! reads it through a consumer group (the match-maker's ratings, the tournament service's
//! results): reads handed to the service's handler, and what a dead replica left pending
//! claimed on a slower tick, with one retry and one shutdown policy.

use crate::lifecycle::Delivery;
use crate::lifecycle::LifecycleStore;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a read that failed waits before the next one.
const RETRY: Duration = Duration::from_secs(1);

/// A consumer in a group: its group's name, this process's name in it, how many entries a
/// read takes and how long it blocks, and how long an entry stays pending before another
/// consumer claims it.
#[derive(Clone, Debug)]
pub struct Consumer {
    /// The consumer group.
    pub group: &'static str,
    /// This process's name in the group (unique per process).
    pub name: String,
    /// The most entries one read or claim takes.
    pub batch: usize,
    /// How long a read waits for an entry.
    pub block_ms: u64,
    /// An entry pending this long was left by a consumer that died or stalled: claimed.
    pub claim_idle_ms: u64,
}

impl Consumer {
    /// A consumer of `group` named afresh (a random UUID: each process its own name).
    pub fn new(group: &'static str, batch: usize, block_ms: u64, claim_idle_ms: u64) -> Self {
        Consumer { group, name: uuid::Uuid::new_v4().to_string(), batch, block_ms, claim_idle_ms }
    }
}

/// What a service does with the entries it is handed: records them, and acknowledges those
/// it finished (the rest stay pending, to be claimed and handed again).
#[async_trait::async_trait]
pub trait Handler: Send + Sync + 'static {
    /// Handles one read's (or claim's) entries.
    async fn handle(&self, deliveries: Vec<Delivery>);
}

/// [`consume`] with a [`Handler`].
pub async fn consume_with<S, H>(
    store: Arc<S>,
    consumer: Consumer,
    shutdown: CancellationToken,
    handler: Arc<H>,
) where
    S: LifecycleStore + ?Sized + 'static,
    H: Handler,
{
    let handle = move |d| {
        let handler = handler.clone();
        async move { handler.handle(d).await }
    };
    consume(store, consumer, shutdown, handle).await;
}

/// Reads `consumer`'s group until `shutdown`, each read's entries handed to `handle`
/// (which acknowledges what it finished; the rest stays pending, to be claimed and handed
/// again). The blocking read is never raced against shutdown: entries a dropped read was
/// handed would sit pending until claimed. Shutdown waits at most one read (`block_ms`).
/// Claiming runs in a task of its own, every third of `claim_idle_ms`.
pub async fn consume<S, H, F>(
    store: Arc<S>,
    consumer: Consumer,
    shutdown: CancellationToken,
    handle: H,
) where
    S: LifecycleStore + ?Sized + 'static,
    H: Fn(Vec<Delivery>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = ()> + Send,
{
    let claimer = {
        let (store, c, shutdown, handle) =
            (store.clone(), consumer.clone(), shutdown.clone(), handle.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(c.claim_idle_ms / 3));
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    _ = tick.tick() => {}
                }
                match store.lifecycle_claim(c.group, &c.name, c.claim_idle_ms, c.batch).await {
                    Ok(d) => handle(d).await,
                    Err(e) => {
                        tracing::warn!(group = c.group, error = %e, "lifecycle entries not claimed")
                    }
                }
            }
        })
    };
    while !shutdown.is_cancelled() {
        match store
            .lifecycle_read(consumer.group, &consumer.name, consumer.batch, consumer.block_ms)
            .await
        {
            Ok(d) => handle(d).await,
            Err(e) => {
                tracing::warn!(group = consumer.group, error = %e, "lifecycle stream unreadable");
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    () = tokio::time::sleep(RETRY) => {}
                }
            }
        }
    }
    claimer.abort();
}
