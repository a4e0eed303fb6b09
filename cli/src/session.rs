//! The account session `colosseum register` and `login` keep between commands: one JSON
//! file (token, player id, display name, gateway) in the user's config directory, readable
//! by its owner only, so `play --queue`, `leaderboard --around me` and `logout` find it.

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::fs::{self, DirBuilder, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The gateway when neither the command line nor a saved session names one: the address
/// `colosseum run` serves by default.
pub const DEFAULT_GATEWAY: &str = "http://127.0.0.1:50051";

/// The file's name in the config directory.
const FILE: &str = "session.json";

/// A logged-in account, as Register or Login answered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The gateway the session was opened on (sessions live in that cluster's store).
    pub gateway: String,
    /// The bearer token: whoever reads it plays as the account, hence the file's mode.
    pub token: String,
    /// The account's player id (a UUID).
    pub player_id: String,
    /// The display name in use when the session was opened.
    pub display_name: String,
}

/// Where sessions are kept: `COLOSSEUM_CONFIG_DIR`, else `$XDG_CONFIG_HOME/colosseum`,
/// else `~/.config/colosseum`; `None` when the environment names no home at all.
pub fn config_dir() -> Option<PathBuf> {
    config_dir_from(|name| std::env::var_os(name))
}

/// [`config_dir`], or why there is none.
///
/// # Errors
/// The environment names no home.
pub fn dir() -> Result<PathBuf, String> {
    config_dir().ok_or_else(|| "no config directory: set HOME or COLOSSEUM_CONFIG_DIR".to_string())
}

/// [`config_dir`] over `var`, the environment's lookup (so tests need not change the
/// process's environment). Empty values count as unset, as the XDG spec says.
fn config_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set("COLOSSEUM_CONFIG_DIR") {
        return Some(dir);
    }
    let base = set("XDG_CONFIG_HOME").or_else(|| set("HOME").map(|h| h.join(".config")))?;
    Some(base.join("colosseum"))
}

/// The session file in `dir`.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The gateway a command talks to: the one it was given, else the saved session's, else
/// [`DEFAULT_GATEWAY`].
pub fn gateway(given: Option<&str>, saved: Option<&Session>) -> String {
    given
        .map(str::to_string)
        .or_else(|| saved.map(|s| s.gateway.clone()))
        .unwrap_or_else(|| DEFAULT_GATEWAY.to_string())
}

/// Saves `session` in `dir` (created, mode 0700, if missing), replacing any earlier one.
///
/// # Errors
/// The directory or the file cannot be written.
pub fn save(dir: &Path, session: &Session) -> Result<PathBuf, String> {
    let json = serde_json::to_vec_pretty(session).map_err(|e| e.to_string())?;
    write_private(dir, FILE, &json)
}

/// Writes `bytes` (and a newline) as the file `name` in `dir` (created, mode 0700, if
/// missing), replacing any earlier one. The file is written whole under another name,
/// mode 0600 from its creation, then renamed: a reader never sees half a file, and a
/// token in it is never readable by others.
///
/// # Errors
/// The directory or the file cannot be written.
pub fn write_private(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    let at = |e: std::io::Error, p: &Path| format!("{}: {e}", p.display());
    DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| at(e, dir))?;
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f =
            OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
        // `mode` applies only to a file this call creates: a leftover keeps its own.
        f.set_permissions(fs::Permissions::from_mode(0o600))?;
        f.write_all(bytes)?;
        f.write_all(b"\n")?;
        f.sync_all()
    };
    if let Err(e) = write() {
        let _ = fs::remove_file(&tmp);
        return Err(at(e, &tmp));
    }
    fs::rename(&tmp, &path).map_err(|e| at(e, &path))?;
    Ok(path)
}

/// The session saved in `dir`, if any.
///
/// # Errors
/// The file exists but cannot be read, or is not a session.
pub fn load(dir: &Path) -> Result<Option<Session>, String> {
    let path = path_in(dir);
    let text = match fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    serde_json::from_slice(&text).map(Some).map_err(|e| {
        format!("{}: not a saved session ({e}); colosseum login again", path.display())
    })
}

/// Forgets the session saved in `dir`; whether there was one.
///
/// # Errors
/// The file exists but cannot be removed.
pub fn remove(dir: &Path) -> Result<bool, String> {
    let path = path_in(dir);
    match fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temp dir, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> TempDir {
            let dir =
                std::env::temp_dir().join(format!("colosseum-session-{}", uuid::Uuid::new_v4()));
            fs::create_dir(&dir).expect("a temp dir");
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn session() -> Session {
        Session {
            gateway: "http://127.0.0.1:50051".into(),
            token: "secret-token".into(),
            player_id: "5f0c1f4e-8d0f-4a86-9a41-2d1c8f3b7e10".into(),
            display_name: "Ada".into(),
        }
    }

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).expect("metadata").permissions().mode() & 0o777
    }

    #[test]
    fn a_saved_session_reads_back_the_same_and_only_its_owner_can_read_it() {
        let tmp = TempDir::new();
        // A directory that does not exist yet: save makes it, private.
        let dir = tmp.0.join("colosseum");
        assert_eq!(load(&dir), Ok(None));
        let path = save(&dir, &session()).expect("saved");
        assert_eq!(path, path_in(&dir));
        assert_eq!(load(&dir), Ok(Some(session())));
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir), 0o700);
        // Nothing is left beside it.
        let names: Vec<_> =
            fs::read_dir(&dir).expect("listed").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(names, vec![OsString::from(FILE)]);
    }

    #[test]
    fn saving_again_replaces_the_session_and_makes_a_readable_file_private() {
        let tmp = TempDir::new();
        let path = path_in(&tmp.0);
        fs::write(&path, "{}").expect("written");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).expect("chmod");
        let other = Session { display_name: "Grace".into(), token: "another".into(), ..session() };
        save(&tmp.0, &other).expect("saved");
        assert_eq!(load(&tmp.0), Ok(Some(other)));
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn removing_forgets_the_session_once() {
        let tmp = TempDir::new();
        save(&tmp.0, &session()).expect("saved");
        assert_eq!(remove(&tmp.0), Ok(true));
        assert_eq!(load(&tmp.0), Ok(None));
        assert_eq!(remove(&tmp.0), Ok(false));
    }

    #[test]
    fn a_file_that_is_no_session_says_so() {
        let tmp = TempDir::new();
        fs::write(path_in(&tmp.0), "not json").expect("written");
        let e = load(&tmp.0).expect_err("refused");
        assert!(e.contains("colosseum login again"), "{e}");
    }

    #[test]
    fn the_config_dir_follows_the_override_then_xdg_then_home() {
        fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
            move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v))
        }
        let all = [("COLOSSEUM_CONFIG_DIR", "/c"), ("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")];
        assert_eq!(config_dir_from(env(&all)), Some(PathBuf::from("/c")));
        assert_eq!(
            config_dir_from(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/colosseum"))
        );
        // An empty XDG_CONFIG_HOME is unset.
        assert_eq!(
            config_dir_from(env(&[
                ("COLOSSEUM_CONFIG_DIR", ""),
                ("XDG_CONFIG_HOME", ""),
                ("HOME", "/h")
            ])),
            Some(PathBuf::from("/h/.config/colosseum"))
        );
        assert_eq!(config_dir_from(env(&[])), None);
    }

    #[test]
    fn the_gateway_is_the_given_one_then_the_saved_one_then_the_default() {
        let s = Session { gateway: "http://saved:1".into(), ..session() };
        assert_eq!(gateway(Some("http://given:2"), Some(&s)), "http://given:2");
        assert_eq!(gateway(None, Some(&s)), "http://saved:1");
        assert_eq!(gateway(None, None), DEFAULT_GATEWAY);
    }
}
