//! Strict JSON for moves and options: a parsed value must say everything its input said.
//! serde's derives also read a struct from a sequence of its fields (`[5]` for
//! `{"card": 5}`); [`parse_strict`] refuses that and any key the parsed value dropped.
//! [`clip`] keeps client text in messages short.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::borrow::Cow;

/// The most characters of anything a client sent that a message repeats.
pub const CLIP: usize = 64;

/// `s` cut to [`CLIP`] characters (with `…` when cut).
pub fn clip(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(CLIP) {
        None => Cow::Borrowed(s),
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
    }
}

/// A parser's message with every quoted run (between `` ` `` or `"`) cut to [`CLIP`]
/// characters and the whole to four times that: serde quotes the input it refuses.
pub fn clip_message(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(4 * CLIP + 8));
    let mut quoted: Option<(char, usize)> = None;
    for ch in msg.chars() {
        match quoted {
            Some((q, _)) if ch == q => {
                quoted = None;
                out.push(ch);
            }
            Some((q, n)) => {
                if n < CLIP {
                    out.push(ch);
                } else if n == CLIP {
                    out.push('…');
                }
                quoted = Some((q, n + 1));
            }
            None => {
                if ch == '`' || ch == '"' {
                    quoted = Some((ch, 0));
                }
                out.push(ch);
            }
        }
    }
    let cut = clip_chars(&out, 4 * CLIP);
    cut.into_owned()
}

fn clip_chars(s: &str, n: usize) -> Cow<'_, str> {
    match s.char_indices().nth(n) {
        None => Cow::Borrowed(s),
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
    }
}

/// Parses `input` as a `T` and checks, by writing the result back, that nothing was read
/// from another shape or dropped: where `T` writes an object the input is an object with
/// no key that `T` left out; lists are compared element by element (a list longer than
/// a type keeps is the type's own business: Hexspiel keeps the count for the rules).
///
/// # Errors
/// The parser's message, or where the input's shape differs, clipped.
pub fn parse_strict<T: DeserializeOwned + Serialize>(input: &Value) -> Result<T, String> {
    let t: T = serde_json::from_value(input.clone()).map_err(|e| clip_message(&e.to_string()))?;
    let written = serde_json::to_value(&t).map_err(|e| clip_message(&e.to_string()))?;
    same_shape(input, &written, "")?;
    Ok(t)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn at(path: &str) -> String {
    if path.is_empty() { String::new() } else { format!(" at `{}`", clip(path)) }
}

/// Whether `input` has the shape of `written` (what the parsed value writes).
fn same_shape(input: &Value, written: &Value, path: &str) -> Result<(), String> {
    match (input, written) {
        (Value::Object(i), Value::Object(w)) => {
            for (k, v) in i {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match w.get(k) {
                    Some(wv) => same_shape(v, wv, &p)?,
                    None => return Err(format!("unknown or unused key `{}`", clip(&p))),
                }
            }
            Ok(())
        }
        (_, Value::Object(_)) => {
            Err(format!("expected an object{}, found {}", at(path), kind(input)))
        }
        (Value::Array(i), Value::Array(w)) => {
            for (n, (iv, wv)) in i.iter().zip(w).enumerate() {
                same_shape(iv, wv, &format!("{path}[{n}]"))?;
            }
            Ok(())
        }
        (_, Value::Array(_)) => Err(format!("expected a list{}, found {}", at(path), kind(input))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Card {
        card: i64,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        inner: Card,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        list: Option<Vec<Card>>,
    }

    #[test]
    fn objects_only() {
        // The derive alone accepts the sequence form: this is what the check is for.
        assert_eq!(serde_json::from_value::<Card>(json!([5])).unwrap(), Card { card: 5 });
        assert_eq!(parse_strict::<Card>(&json!({"card": 5})), Ok(Card { card: 5 }));
        let e = parse_strict::<Card>(&json!([5])).unwrap_err();
        assert_eq!(e, "expected an object, found a list");
        let e = parse_strict::<Outer>(&json!({"inner": [5]})).unwrap_err();
        assert_eq!(e, "expected an object at `inner`, found a list");
        let e = parse_strict::<Outer>(&json!({"inner": {"card": 1}, "list": [[2]]})).unwrap_err();
        assert_eq!(e, "expected an object at `list[0]`, found a list");
        assert!(
            parse_strict::<Outer>(&json!({"inner": {"card": 1}, "list": [{"card": 2}]})).is_ok()
        );
        assert!(parse_strict::<Card>(&json!({"card": 5, "x": 1})).is_err());
    }

    #[test]
    fn messages_are_clipped() {
        let long = "z".repeat(10_000);
        let e = parse_strict::<Card>(&json!({ long.clone(): 1 })).unwrap_err();
        assert!(e.chars().count() <= 4 * CLIP + 1, "{e}");
        assert!(!e.contains(&"z".repeat(CLIP + 1)), "{e}");
        assert_eq!(clip("abc"), "abc");
        assert_eq!(clip(&long).chars().count(), CLIP + 1);
        assert_eq!(
            clip_message("unknown field `ab`, expected `card`"),
            "unknown field `ab`, expected `card`"
        );
    }
}
