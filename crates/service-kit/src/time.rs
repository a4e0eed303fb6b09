//! The wall clock. Services read time only through here (the rules never do), so a test
//! can see at a glance where time enters.

/// Milliseconds since the Unix epoch.
#[allow(clippy::disallowed_methods)] // The one place services read the wall clock.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A monotonic instant, for timing work (metrics): never the wall clock's jumps.
#[allow(clippy::disallowed_methods)] // The one place services read the monotonic clock.
pub fn instant() -> std::time::Instant {
    std::time::Instant::now()
}

/// Milliseconds from now until `at_ms` (Unix ms), 0 once it has passed: the time left
/// before a deadline, as the API reports it.
pub fn ms_until(at_ms: u64) -> u64 {
    at_ms.saturating_sub(now_ms())
}

/// 32 bytes from the operating system's generator, e.g. a match seed or a session token.
pub fn os_random_32() -> [u8; 32] {
    use rand_core::SeedableRng;
    let mut seed = [0u8; 32];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        if f.read_exact(&mut seed).is_ok() {
            return seed;
        }
    }
    // No /dev/urandom: fall back to the process's entropy through a fresh ChaCha seeded from
    // the clock and address-space randomness. Never reached on Linux.
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(now_ms() ^ (&seed as *const _ as u64));
    rand_core::Rng::fill_bytes(&mut rng, &mut seed);
    seed
}
