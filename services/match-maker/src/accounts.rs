//! Accounts: registering, logging in and out, passwords and profiles. Passwords are
//! hashed with Argon2id at OWASP's parameters into PHC strings, on blocking threads a few
//! at a time (hashing is the costliest thing the match-maker does, and must not starve
//! the runtime). An unknown email is checked against a dummy hash, so it is answered
//! like a wrong password and in about the same time.

use crate::error::Error;
use api_convert::bad;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use std::sync::Arc;
use store::{Account, LobbyStore, PlayerId, RateDecision, Registered};
use tokio::sync::Semaphore;

/// The shortest password accepted, in bytes (OWASP ASVS 2.1.1 asks for 8 at least).
pub const MIN_PASSWORD_BYTES: usize = 8;
/// The longest password accepted, in bytes: bounds the hashing work a request can ask.
pub const MAX_PASSWORD_BYTES: usize = 128;
/// The longest email accepted, in bytes (RFC 5321's path limit).
pub const MAX_EMAIL_BYTES: usize = 254;

/// Login attempts counted per account (by email) in one window.
pub const LOGIN_LIMIT_PER_ACCOUNT: u32 = 10;
/// Login attempts counted per client address in one window.
pub const LOGIN_LIMIT_PER_ADDRESS: u32 = 60;
/// The rate-limit window, ms.
pub const LOGIN_WINDOW_MS: u64 = 60_000;
/// Registrations counted per client address in one window: each costs a password hash.
pub const REGISTER_LIMIT_PER_ADDRESS: u32 = 120;

/// How many hashes run at once (each takes 19 MiB and one core for tens of ms).
const HASHING_PERMITS: usize = 2;

/// Password hashing and checking.
pub struct Passwords {
    argon: Argon2<'static>,
    /// A hash of no one's password: what an unknown email is checked against.
    dummy: String,
    permits: Semaphore,
}

impl Passwords {
    /// Argon2id, m = 19 MiB, t = 2, p = 1 (OWASP's Password Storage Cheat Sheet).
    ///
    /// # Panics
    /// Never: the parameters are constants Argon2 accepts.
    pub fn new() -> Arc<Passwords> {
        let params = Params::new(19 * 1024, 2, 1, None).expect("OWASP's Argon2id parameters");
        let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
        let dummy = hash_with(&argon, "no one's password").expect("hashing a constant");
        Arc::new(Passwords { argon, dummy, permits: Semaphore::new(HASHING_PERMITS) })
    }

    /// `password` hashed, as a PHC string.
    ///
    /// # Errors
    /// [`Error::Hashing`] (never with these parameters).
    pub async fn hash(self: &Arc<Self>, password: String) -> Result<String, Error> {
        let _permit = self.permits.acquire().await.map_err(|e| Error::Hashing(e.to_string()))?;
        let me = self.clone();
        tokio::task::spawn_blocking(move || hash_with(&me.argon, &password))
            .await
            .map_err(|e| Error::Hashing(e.to_string()))?
    }

    /// Whether `password` matches `phc`; with no hash (an unknown email), the dummy is
    /// checked and the answer is false, in about the same time.
    pub async fn verify(self: &Arc<Self>, phc: Option<String>, password: String) -> bool {
        let Ok(_permit) = self.permits.acquire().await else { return false };
        let me = self.clone();
        let known = phc.is_some();
        let checked = tokio::task::spawn_blocking(move || {
            let phc = phc.unwrap_or_else(|| me.dummy.clone());
            PasswordHash::new(&phc)
                .map(|h| me.argon.verify_password(password.as_bytes(), &h).is_ok())
                .unwrap_or(false)
        })
        .await
        .unwrap_or(false);
        known && checked
    }
}

fn hash_with(argon: &Argon2<'_>, password: &str) -> Result<String, Error> {
    // 16 bytes of salt from the OS, as RFC 9106 recommends.
    let salt = SaltString::encode_b64(&service_kit::time::os_random_32()[..16])
        .map_err(|e| Error::Hashing(e.to_string()))?;
    argon
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::Hashing(e.to_string()))
}

/// An email address as stored: trimmed and lower-cased, bounded, with one `@` between a
/// local part and a domain that has a dot, no whitespace or control characters.
///
/// # Errors
/// INVALID_ARGUMENT naming `email`.
pub fn normalize_email(raw: &str) -> Result<String, Error> {
    const FIELD: &str = "email";
    api_convert::text::at_most(FIELD, raw.len(), MAX_EMAIL_BYTES, "bytes")?;
    let email = raw.trim().to_lowercase();
    let valid = match email.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        }
        None => false,
    };
    if !valid {
        return Err(bad(FIELD, "email is not an email address (name@example.org)".into()).into());
    }
    Ok(email)
}

/// A new password within bounds.
///
/// # Errors
/// INVALID_ARGUMENT naming `field`.
pub fn check_new_password(field: &str, password: &str) -> Result<(), Error> {
    api_convert::text::at_most(field, password.len(), MAX_PASSWORD_BYTES, "bytes")?;
    if password.len() < MIN_PASSWORD_BYTES {
        return Err(bad(field, format!("{field} is at least {MIN_PASSWORD_BYTES} bytes")).into());
    }
    Ok(())
}

/// A rate-limit bucket's name for `what` (an email, an address): a digest, so no client
/// text reaches a key name.
fn bucket(kind: &str, what: &str) -> String {
    format!("{kind}:{}", &store::token_digest(what)[..32])
}

/// Counts a login attempt for the email and for the client address; refuses once either
/// is over its limit.
///
/// # Errors
/// [`Error::RateLimited`], or the store's failure.
pub async fn count_login(store: &dyn LobbyStore, email: &str, address: &str) -> Result<(), Error> {
    let (account_bucket, address_bucket) =
        (bucket("login-account", email), bucket("login-address", address));
    let by_account = store.rate_limit(&account_bucket, LOGIN_WINDOW_MS, LOGIN_LIMIT_PER_ACCOUNT);
    let by_address = store.rate_limit(&address_bucket, LOGIN_WINDOW_MS, LOGIN_LIMIT_PER_ADDRESS);
    let (a, b) = tokio::join!(by_account, by_address);
    for decision in [a?, b?] {
        if let RateDecision::Limited { retry_after_ms } = decision {
            return Err(Error::RateLimited { retry_after_ms });
        }
    }
    Ok(())
}

/// Counts a registration from the client address; refuses once over its limit.
///
/// # Errors
/// [`Error::RateLimited`], or the store's failure.
pub async fn count_register(store: &dyn LobbyStore, address: &str) -> Result<(), Error> {
    let b = bucket("register-address", address);
    match store.rate_limit(&b, LOGIN_WINDOW_MS, REGISTER_LIMIT_PER_ADDRESS).await? {
        RateDecision::Allowed => Ok(()),
        RateDecision::Limited { retry_after_ms } => Err(Error::RateLimited { retry_after_ms }),
    }
}

/// A display name given, or one made up from the player id.
pub fn name_or_default(name: String, player: PlayerId) -> String {
    if name.is_empty() { format!("player-{}", &player.to_string()[..8]) } else { name }
}

/// Registers `account` (its hash already made).
///
/// # Errors
/// [`Error::EmailTaken`], or the store's failure.
pub async fn register(store: &dyn LobbyStore, account: &Account) -> Result<(), Error> {
    match store.register(account).await? {
        Registered::Created => Ok(()),
        Registered::EmailTaken => Err(Error::EmailTaken),
    }
}

/// A new session for `account`: the token (returned once, stored only as its digest).
///
/// # Errors
/// The store's failure.
pub async fn open_session(store: &dyn LobbyStore, account: &Account) -> Result<String, Error> {
    let token = hex::encode(service_kit::time::os_random_32());
    store.put_session(&store::token_digest(&token), account.player, &account.display_name).await?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalized_and_checked() {
        assert_eq!(normalize_email("  Ada@Example.ORG ").unwrap(), "ada@example.org");
        for bad in ["", "ada", "ada@", "@example.org", "ada@example", "a b@example.org", "a@b@c.d"]
        {
            assert!(normalize_email(bad).is_err(), "{bad:?}");
        }
        let long = format!("{}@example.org", "a".repeat(300));
        let e = normalize_email(&long).unwrap_err().to_string();
        assert!(e.contains("at most 254 bytes"), "{e}");
        assert!(!e.contains("aaaaaaaaaa"), "no echo: {e}");
    }

    #[test]
    fn passwords_are_bounded() {
        assert!(check_new_password("password", "short").is_err());
        assert!(check_new_password("password", "long enough").is_ok());
        assert!(check_new_password("password", &"x".repeat(129)).is_err());
    }

    #[tokio::test]
    async fn a_hash_checks_its_password_only_and_an_unknown_email_never_passes() {
        let p = Passwords::new();
        let phc = p.hash("correct horse".into()).await.unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        assert!(p.verify(Some(phc.clone()), "correct horse".into()).await);
        assert!(!p.verify(Some(phc), "battery staple".into()).await);
        assert!(!p.verify(None, "no one's password".into()).await);
        assert!(!p.verify(Some("not a phc".into()), "x".into()).await);
    }
}
