//! Fair play: a match's seed, its public commitment, and the only source of chance the
//! rules may use (`MatchRng`, ChaCha20 keyed by the seed). Sampling and shuffling are
//! written out here so a recorded match replays identically across library upgrades.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// A match seed: 8 to 32 bytes, written as 16 to 64 hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed {
    bytes: [u8; 32],
    len: u8,
}

/// Why a seed did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedError {
    /// Not 16 to 64 hex digits.
    Length(usize),
    /// Odd length or a character that is not a hex digit.
    NotHex,
}

impl fmt::Display for SeedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeedError::Length(n) => write!(f, "a seed has 16 to 64 hex digits, this one has {n}"),
            SeedError::NotHex => write!(f, "a seed is an even number of hex digits (0-9, a-f)"),
        }
    }
}

impl std::error::Error for SeedError {}

impl Seed {
    /// The all-zero 16-byte seed that scripts use when they give none.
    pub const ZERO: Seed = Seed { bytes: [0; 32], len: 16 };

    /// A seed from raw bytes (8 to 32 of them).
    pub fn from_bytes(b: &[u8]) -> Result<Seed, SeedError> {
        if !(8..=32).contains(&b.len()) {
            return Err(SeedError::Length(b.len() * 2));
        }
        let mut bytes = [0u8; 32];
        bytes[..b.len()].copy_from_slice(b);
        Ok(Seed { bytes, len: b.len() as u8 })
    }

    /// A full 32-byte seed.
    pub fn from_array(bytes: [u8; 32]) -> Seed {
        Seed { bytes, len: 32 }
    }

    /// Parses 16 to 64 hex digits, either case.
    pub fn parse(hex_str: &str) -> Result<Seed, SeedError> {
        if !(16..=64).contains(&hex_str.len()) {
            return Err(SeedError::Length(hex_str.len()));
        }
        let raw = hex::decode(hex_str).map_err(|_| SeedError::NotHex)?;
        Seed::from_bytes(&raw)
    }

    /// The seed's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// Lowercase hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.as_bytes())
    }

    /// The public commitment: SHA-256 of the seed's bytes.
    pub fn commitment(&self) -> Commitment {
        Commitment(Sha256::digest(self.as_bytes()).into())
    }

    /// The match's random stream. The key is the seed zero-padded to 32 bytes and the
    /// ChaCha stream number is the seed's length, so seeds that differ only in trailing
    /// zero bytes still give different streams.
    pub fn rng(&self) -> MatchRng {
        let mut rng = ChaCha20Rng::from_seed(self.bytes);
        rng.set_stream(u64::from(self.len));
        MatchRng(rng)
    }
}

// A seed is secret until the match ends: Debug must never print it by accident.
impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seed(<{} bytes, hidden>)", self.len)
    }
}

impl Serialize for Seed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Seed::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// SHA-256 of a seed, published when a match starts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Commitment(pub [u8; 32]);

impl Commitment {
    /// Lowercase hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

impl Serialize for Commitment {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Commitment {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let v = hex::decode(&s).map_err(serde::de::Error::custom)?;
        let arr: [u8; 32] =
            v.try_into().map_err(|_| serde::de::Error::custom("a commitment is 64 hex digits"))?;
        Ok(Commitment(arr))
    }
}

/// The match's source of chance. Every random draw of the rules goes through it, in a
/// fixed order, so the same seed and steps give the same match.
#[derive(Clone, Debug)]
pub struct MatchRng(ChaCha20Rng);

impl MatchRng {
    /// A uniform integer in `0..n` (n > 0), by Lemire's multiply-and-reject method.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        uniform_below(&mut self.0, n)
    }

    /// A uniform shuffle (Fisher-Yates, drawing from the back).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// 32 fresh bytes, e.g. to seed a bot's own generator.
    pub fn bytes32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        self.0.fill_bytes(&mut b);
        b
    }
}

/// A uniform integer in `0..n` from any generator: Lemire's nearly-divisionless method.
#[inline]
pub fn uniform_below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_16_to_64_hex_digits_either_case() {
        assert!(Seed::parse("00000000000000000000000000000000").is_ok());
        assert_eq!(Seed::parse("ABCDEF0123456789").unwrap().to_hex(), "abcdef0123456789");
        assert_eq!(Seed::parse("abc"), Err(SeedError::Length(3)));
        assert_eq!(Seed::parse(&"0".repeat(66)), Err(SeedError::Length(66)));
        assert_eq!(Seed::parse("zz00000000000000"), Err(SeedError::NotHex));
        assert_eq!(Seed::parse("00000000000000000"), Err(SeedError::NotHex));
    }

    #[test]
    fn commitment_is_sha256_of_the_seed_bytes() {
        // SHA-256 of eight zero bytes.
        let s = Seed::parse("0000000000000000").unwrap();
        assert_eq!(
            s.commitment().to_hex(),
            "af5570f5a1810b7af78caf4bc70a660f0df51e42baf91d4de5b2328de0e83dfc"
        );
    }

    #[test]
    fn streams_differ_by_length_and_repeat_by_seed() {
        let a = Seed::parse("0000000000000000").unwrap();
        let b = Seed::parse("00000000000000000000000000000000").unwrap();
        assert_ne!(a.rng().below(1 << 30), b.rng().below(1 << 30));
        assert_eq!(a.rng().bytes32(), a.rng().bytes32());
    }

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut r = Seed::ZERO.rng();
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[r.below(7) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
    }

    #[test]
    fn debug_hides_the_seed() {
        let s = Seed::parse("deadbeefdeadbeef").unwrap();
        assert!(!format!("{s:?}").contains("dead"));
    }
}
