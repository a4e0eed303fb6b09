//! The client's address behind load balancers: the proxies the gateway trusts
//! (`TRUSTED_PROXIES`, CIDRs parsed once at start) and the address a trusted proxy forwards
//! in `x-forwarded-for`. The per-address limits (the match-maker's logins and
//! registrations) key on what [`TrustedProxies::client`] finds, never on a client's claim.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

/// The environment variable that lists the trusted proxies.
pub const ENV: &str = "TRUSTED_PROXIES";

/// The metadata key a proxy appends the address of its own peer to.
pub const HEADER: &str = "x-forwarded-for";

/// The longest `x-forwarded-for` read (all its values together): a chain of proxies adds
/// one short entry each, so anything longer is a client's padding.
pub const MAX_HEADER_BYTES: usize = 1024;

/// An IPv4 or IPv6 network: an address and a prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Whether `ip` is in the network (an IPv4-mapped IPv6 address as its IPv4 address).
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                mask_v4(u32::from(ip), self.prefix) == u32::from(net)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                mask_v6(u128::from(ip), self.prefix) == u128::from(net)
            }
            (IpAddr::V4(_), IpAddr::V6(_)) | (IpAddr::V6(_), IpAddr::V4(_)) => false,
        }
    }
}

fn mask_v4(bits: u32, prefix: u8) -> u32 {
    if prefix == 0 { 0 } else { bits & (u32::MAX << (32 - u32::from(prefix))) }
}

fn mask_v6(bits: u128, prefix: u8) -> u128 {
    if prefix == 0 { 0 } else { bits & (u128::MAX << (128 - u32::from(prefix))) }
}

impl FromStr for Cidr {
    type Err = String;

    /// `10.0.0.0/8`, `2001:db8::/32`, or a bare address (one host: /32 or /128). Strict: a
    /// network with host bits set (`10.0.0.1/8`) is refused, as it is usually a typo.
    fn from_str(s: &str) -> Result<Cidr, String> {
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let network: IpAddr =
            addr.parse().map_err(|_| "not an IPv4 or IPv6 address or network".to_string())?;
        let network = network.to_canonical();
        let max = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => match p.parse::<u8>() {
                Ok(n) if n <= max && p.bytes().all(|b| b.is_ascii_digit()) => n,
                _ => return Err(format!("the prefix length is not a number from 0 to {max}")),
            },
        };
        let masked = match network {
            IpAddr::V4(a) => IpAddr::from(mask_v4(u32::from(a), prefix).to_be_bytes()),
            IpAddr::V6(a) => IpAddr::from(mask_v6(u128::from(a), prefix).to_be_bytes()),
        };
        if masked != network {
            return Err(format!("host bits are set (the network is {masked}/{prefix})"));
        }
        Ok(Cidr { network, prefix })
    }
}

/// A `TRUSTED_PROXIES` that does not parse: which entry, and why. The entry is the
/// operator's own configuration, shown clipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadProxies {
    /// The entry's position, from 1.
    pub position: usize,
    /// The entry, clipped.
    pub entry: String,
    /// What is wrong with it.
    pub why: String,
}

impl fmt::Display for BadProxies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{ENV}: entry {} ({:?}) is not a CIDR such as 10.0.0.0/8 or 2001:db8::/32: {}",
            self.position, self.entry, self.why
        )
    }
}

impl std::error::Error for BadProxies {}

/// Why a trusted proxy's `x-forwarded-for` was refused. Never shows the header: it is the
/// client's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadForwardedFor {
    /// Longer than [`MAX_HEADER_BYTES`].
    TooLong,
    /// The entry this far from the right (1: the right-most) is not an IP address.
    NotAnAddress(usize),
}

impl fmt::Display for BadForwardedFor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadForwardedFor::TooLong => {
                write!(f, "{HEADER} is longer than {MAX_HEADER_BYTES} bytes")
            }
            BadForwardedFor::NotAnAddress(n) => {
                write!(f, "{HEADER}: entry {n} from the right is not an IP address")
            }
        }
    }
}

impl std::error::Error for BadForwardedFor {}

/// The proxies whose `x-forwarded-for` the gateway believes (none by default: then the
/// client is the TCP peer, whatever it sends).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<Cidr>);

impl TrustedProxies {
    /// Trusts no proxy.
    pub fn none() -> TrustedProxies {
        TrustedProxies::default()
    }

    /// A comma-separated list of CIDRs or addresses (spaces around entries allowed; an
    /// empty list trusts none).
    ///
    /// # Errors
    /// The first entry that is not a CIDR (an empty one included).
    pub fn parse(list: &str) -> Result<TrustedProxies, BadProxies> {
        if list.trim().is_empty() {
            return Ok(TrustedProxies::none());
        }
        let cidrs = list
            .split(',')
            .enumerate()
            .map(|(i, entry)| {
                let entry = entry.trim();
                entry.parse::<Cidr>().map_err(|why| BadProxies {
                    position: i + 1,
                    entry: service_kit::config::truncate(entry, 64).to_string(),
                    why: if entry.is_empty() { "it is empty".into() } else { why },
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(TrustedProxies(cidrs))
    }

    /// [`ENV`] as [`TrustedProxies::parse`] reads it (unset: none).
    ///
    /// # Errors
    /// As [`TrustedProxies::parse`].
    pub fn from_env() -> Result<TrustedProxies, BadProxies> {
        TrustedProxies::parse(&service_kit::config::optional(ENV).unwrap_or_default())
    }

    /// Whether no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `ip` is a trusted proxy.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|c| c.contains(ip))
    }

    /// The client of a call from TCP peer `peer` carrying `forwarded` (the values of
    /// `x-forwarded-for`, in order). From a peer not trusted, the peer itself, the header
    /// unread. From a trusted one, the right-most address of the header that is not a
    /// trusted proxy (each proxy appends the peer it saw, so everything left of that is
    /// the client's own claim, never read); the left-most if all are trusted; the peer if
    /// there is no header.
    ///
    /// # Errors
    /// From a trusted peer only: a header longer than [`MAX_HEADER_BYTES`], or an entry
    /// read that is not an address (`a.b.c.d`, an IPv6 address, either with a port as
    /// `a.b.c.d:p` or `[v6]:p`).
    pub fn client(&self, peer: IpAddr, forwarded: &[&[u8]]) -> Result<IpAddr, BadForwardedFor> {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return Ok(peer);
        }
        let len = forwarded.iter().map(|v| v.len() + 1).sum::<usize>().saturating_sub(1);
        if len > MAX_HEADER_BYTES {
            return Err(BadForwardedFor::TooLong);
        }
        let mut client = peer;
        // Several values are one list, in order (RFC 9110, 5.3).
        let entries = forwarded.iter().rev().flat_map(|v| v.rsplit(|&b| b == b','));
        for (i, entry) in entries.enumerate() {
            let ip = address(entry).ok_or(BadForwardedFor::NotAnAddress(i + 1))?;
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        Ok(client)
    }
}

/// One `x-forwarded-for` entry as an address: `a.b.c.d`, an IPv6 address, or either with a
/// port; spaces around it allowed.
fn address(entry: &[u8]) -> Option<IpAddr> {
    let text = std::str::from_utf8(entry).ok()?.trim_matches([' ', '\t']);
    let ip =
        text.parse::<IpAddr>().ok().or_else(|| text.parse::<SocketAddr>().ok().map(|s| s.ip()))?;
    Some(ip.to_canonical())
}

/// The client's address as the gateway determined it: set on every request by the
/// authentication layer, read by whatever keys a limit on the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("an address")
    }

    fn proxies(s: &str) -> TrustedProxies {
        TrustedProxies::parse(s).expect("a list")
    }

    #[test]
    fn lists_parse_strictly_and_say_which_entry_is_wrong() {
        assert!(proxies("").is_empty());
        assert!(proxies("  ").is_empty());
        let p = proxies("10.0.0.0/8, 192.168.1.7 ,2001:db8::/32,::1");
        assert!(p.trusts(ip("10.200.3.4")));
        assert!(!p.trusts(ip("11.0.0.1")));
        assert!(p.trusts(ip("192.168.1.7")));
        assert!(!p.trusts(ip("192.168.1.8")));
        assert!(p.trusts(ip("2001:db8:ffff::1")));
        assert!(!p.trusts(ip("2001:db9::1")));
        assert!(p.trusts(ip("::1")));
        // An IPv4 peer seen through an IPv6 socket is the IPv4 address.
        assert!(p.trusts(ip("::ffff:10.1.2.3")));
        assert!(proxies("0.0.0.0/0").trusts(ip("8.8.8.8")));
        assert!(!proxies("0.0.0.0/0").trusts(ip("2001:db8::1")));
        assert!(proxies("::/0").trusts(ip("2001:db8::1")));
        for (list, position, why) in [
            ("10.0.0.0/33", 1, "prefix length"),
            ("10.0.0.0/8,,10.1.0.0/16", 2, "empty"),
            ("10.0.0.0/8,", 2, "empty"),
            ("10.0.0.1/8", 1, "host bits are set (the network is 10.0.0.0/8)"),
            ("10.0.0.0/+8", 1, "prefix length"),
            ("10.0.0.0/", 1, "prefix length"),
            ("127.0.0.1/32, localhost", 2, "not an IPv4 or IPv6 address"),
            ("2001:db8::/129", 1, "prefix length"),
        ] {
            let e = TrustedProxies::parse(list).expect_err(list);
            assert_eq!(e.position, position, "{list}");
            assert!(e.to_string().contains(why), "{list}: {e}");
            assert!(e.to_string().starts_with("TRUSTED_PROXIES: entry"), "{e}");
        }
        let long = format!("{},10.0.0.0/8", "x".repeat(500));
        let e = TrustedProxies::parse(&long).expect_err("too long");
        assert!(e.to_string().len() < 200, "{e}");
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let p = proxies("10.0.0.0/8");
        let peer = ip("203.0.113.9");
        assert_eq!(p.client(peer, &[b"198.51.100.1"]), Ok(peer));
        // Not even read: garbage or padding from an untrusted peer is not refused.
        assert_eq!(p.client(peer, &[b"not an address"]), Ok(peer));
        assert_eq!(p.client(peer, &[&[b'1'; 5000]]), Ok(peer));
        assert_eq!(
            TrustedProxies::none().client(ip("10.0.0.1"), &[b"198.51.100.1"]),
            Ok(ip("10.0.0.1"))
        );
    }

    #[test]
    fn a_trusted_peer_forwards_the_rightmost_untrusted_address() {
        let p = proxies("10.0.0.0/8, 2001:db8::/32");
        let lb = ip("10.0.0.2");
        assert_eq!(p.client(lb, &[b"198.51.100.1"]), Ok(ip("198.51.100.1")));
        // The client's own claim (left) is never believed: the proxy's entry is.
        assert_eq!(p.client(lb, &[b"1.2.3.4, 198.51.100.1"]), Ok(ip("198.51.100.1")));
        // Proxies in a chain are skipped.
        assert_eq!(p.client(lb, &[b"1.2.3.4,198.51.100.1, 10.9.9.9"]), Ok(ip("198.51.100.1")));
        // Left of the answer is never parsed.
        assert_eq!(p.client(lb, &[b"garbage, 198.51.100.1"]), Ok(ip("198.51.100.1")));
        // Several values are one list; the last value is the right-most.
        assert_eq!(p.client(lb, &[b"1.2.3.4", b"198.51.100.1,10.0.0.3"]), Ok(ip("198.51.100.1")));
        // Every hop a proxy: the left-most; no header: the peer.
        assert_eq!(p.client(lb, &[b"10.1.1.1, 10.0.0.3"]), Ok(ip("10.1.1.1")));
        assert_eq!(p.client(lb, &[]), Ok(lb));
        // Ports and IPv6, and a mapped IPv4 address as IPv4.
        assert_eq!(p.client(lb, &[b"198.51.100.1:4711"]), Ok(ip("198.51.100.1")));
        assert_eq!(p.client(lb, &[b"[2001:dead::1]:443"]), Ok(ip("2001:dead::1")));
        assert_eq!(p.client(lb, &[b" 2001:dead::1 "]), Ok(ip("2001:dead::1")));
        assert_eq!(p.client(lb, &[b"::ffff:198.51.100.1"]), Ok(ip("198.51.100.1")));
        assert_eq!(p.client(ip("::ffff:10.0.0.2"), &[b"198.51.100.1"]), Ok(ip("198.51.100.1")));
    }

    #[test]
    fn a_trusted_peers_header_is_bounded_and_checked() {
        let p = proxies("10.0.0.0/8");
        let lb = ip("10.0.0.2");
        for bad in [&b"unknown"[..], b"", b"198.51.100.1,", b"300.1.1.1", b"1.2.3.4/8", b"\xff\xfe"]
        {
            assert_eq!(p.client(lb, &[bad]), Err(BadForwardedFor::NotAnAddress(1)), "{bad:?}");
        }
        assert_eq!(p.client(lb, &[b"x, 10.0.0.5"]), Err(BadForwardedFor::NotAnAddress(2)));
        let padded = format!("{}198.51.100.1", "1.1.1.1,".repeat(200));
        assert_eq!(p.client(lb, &[padded.as_bytes()]), Err(BadForwardedFor::TooLong));
        let at_limit = format!("{}198.51.100.1", " ".repeat(MAX_HEADER_BYTES - 12));
        assert_eq!(at_limit.len(), MAX_HEADER_BYTES);
        assert_eq!(p.client(lb, &[at_limit.as_bytes()]), Ok(ip("198.51.100.1")));
        let e = BadForwardedFor::NotAnAddress(2).to_string();
        assert_eq!(e, "x-forwarded-for: entry 2 from the right is not an IP address");
    }
}
