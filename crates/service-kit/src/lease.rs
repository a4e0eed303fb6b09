//! The leased loop: a duty one replica at a time performs (the matcher's passes, the
//! tournament driver's), run on a tick by whichever replica holds the duty's lease. One
//! loop, so every duty treats a failed renewal, a lost lease and shutdown alike.

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A duty under a lease: its name (logs), this replica's holder name, how often it is
/// tried, and the gauge that shows whether this replica leads (1) or not (0).
pub struct Duty {
    /// The duty's name in logs ("matcher", "tournament driver").
    pub name: &'static str,
    /// This replica's name in the lease (unique per process).
    pub holder: String,
    /// How often the lease is renewed and, while held, the duty's pass run.
    pub every: Duration,
    /// The gauge set to 1 while this replica leads, 0 otherwise.
    pub leader_gauge: &'static str,
}

/// Whether a renewal leaves this replica leading: a renewal that failed does not (the
/// lease may run out meanwhile, and another replica take it).
fn leads<E: Display>(duty: &Duty, renewed: Result<bool, E>) -> bool {
    match renewed {
        Ok(held) => held,
        Err(e) => {
            tracing::warn!(duty = duty.name, error = %e, "lease not renewed");
            false
        }
    }
}

/// Until `shutdown`, every `duty.every`: renews the lease (`renew` takes or extends it,
/// answering whether this holder has it) and, while it is held, runs `pass` once. Says
/// when this replica starts or stops leading.
pub async fn run<E, R, RF, P, PF>(
    duty: Duty,
    shutdown: CancellationToken,
    mut renew: R,
    mut pass: P,
) where
    E: Display,
    R: FnMut() -> RF,
    RF: Future<Output = Result<bool, E>>,
    P: FnMut() -> PF,
    PF: Future<Output = ()>,
{
    let mut tick = tokio::time::interval(duty.every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut leading = false;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        let now = leads(&duty, renew().await);
        if now != leading {
            tracing::info!(duty = duty.name, holder = %duty.holder, leading = now, "lease");
            leading = now;
            crate::metrics::set(duty.leader_gauge, i64::from(now));
        }
        if leading {
            pass().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn passes_run_only_while_the_lease_is_held_and_stop_at_shutdown() {
        let duty = Duty {
            name: "test",
            holder: "h".into(),
            every: Duration::from_millis(10),
            leader_gauge: "test_leader",
        };
        let shutdown = CancellationToken::new();
        let renewals = Arc::new(AtomicUsize::new(0));
        let passes = Arc::new(AtomicUsize::new(0));
        let (r, p) = (renewals.clone(), passes.clone());
        // Held on renewals 0 and 1, a failure on 2, not held on 3, held again from 4.
        let renew = move || {
            let n = r.fetch_add(1, Ordering::SeqCst);
            async move {
                match n {
                    2 => Err("store down"),
                    3 => Ok(false),
                    _ => Ok(true),
                }
            }
        };
        let pass = move || {
            p.fetch_add(1, Ordering::SeqCst);
            async {}
        };
        let stop = shutdown.clone();
        let task = tokio::spawn(run(duty, shutdown, renew, pass));
        while renewals.load(Ordering::SeqCst) < 6 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        stop.cancel();
        task.await.expect("the loop ends at shutdown");
        let renewed = renewals.load(Ordering::SeqCst);
        // Every renewal but the failed one and the refused one ran a pass.
        assert_eq!(passes.load(Ordering::SeqCst), renewed - 2);
    }
}
