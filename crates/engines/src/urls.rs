//! Where the rules engines are: each family's replicas from the environment, and which
//! replica serves a match (the same answer in the gateway and the clock).

use games::Family;
use service_kit::config::{ConfigError, optional, string, url_list};

/// One family's rules engines: the family and the URL of each replica (or Service).
pub type EngineUrls = (Family, Vec<String>);

/// The rules engines of each family: `ENGINE_<FAMILY>_URL`, else `ENGINE_URL`, else the
/// local default. Each is a comma-separated list (the addresses of a family's replicas,
/// as a set of Kubernetes Services or a headless Service's pods give them). The gateway
/// and the clock both call the engines.
///
/// # Errors
/// A variable that lists no URL, or a URL that does not parse (named, truncated).
pub fn engine_urls() -> Result<Vec<EngineUrls>, ConfigError> {
    let default = string("ENGINE_URL", "http://127.0.0.1:50061");
    Family::ALL
        .iter()
        .map(|&family| {
            let var = family.env_var();
            // A family's own variable, when set, is the one a bad value came from.
            let (var, value) = match optional(var) {
                Some(v) => (var, v),
                None => ("ENGINE_URL", default.clone()),
            };
            Ok((family, url_list(var, &value)?))
        })
        .collect()
}

/// Which of a family's engine `urls` serves match `match_id`: rendezvous hashing over the
/// URLs, so the gateway and the clock agree whatever order they were given them in. A
/// match stays on one replica so that replica's cached copy stays hot (any replica may
/// serve any match correctly: one behind the stream catches up before it answers).
pub fn replica_for(urls: &[String], match_id: &str) -> usize {
    replica_order(urls, match_id).first().copied().unwrap_or(0)
}

/// Every replica of `urls` for match `match_id`, in order of preference: the first is
/// [`replica_for`]'s, the next is where the match goes while that one is down.
pub(crate) fn replica_order(urls: &[String], match_id: &str) -> Vec<usize> {
    let score = |url: &str| {
        // FNV-1a, then splitmix64's finalizer to spread it: balance, not security.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in url.bytes().chain([0xff]).chain(match_id.bytes()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    };
    let mut order: Vec<usize> = (0..urls.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(score(&urls[i])), i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_are_chosen_per_match_whatever_the_order() {
        let urls: Vec<String> = ["http://a:1", "http://b:1", "http://c:1"].map(String::from).into();
        let mut reversed = urls.clone();
        reversed.reverse();
        let mut used = [0; 3];
        for n in 0..3000 {
            let id = format!("00000000-0000-4000-8000-{n:012}");
            let i = replica_for(&urls, &id);
            assert_eq!(urls[i], reversed[replica_for(&reversed, &id)], "same replica for {id}");
            used[i] += 1;
        }
        // Each replica gets about a third of the matches.
        assert!(used.iter().all(|&n| (800..1200).contains(&n)), "{used:?}");
        assert_eq!(replica_for(&urls[..1], "any"), 0);
    }
}
