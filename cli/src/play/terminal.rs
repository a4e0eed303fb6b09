//! What a person at the terminal types and sees, the same for a local match and one
//! through the cluster: move shorthands and their hints, a view on a few lines, an event
//! on one.

use api::v1;
use serde_json::{Value, json};

/// Turns what a person types into the game's move JSON: raw JSON, or a shorthand.
pub fn shorthand(game: &str, line: &str) -> Value {
    let line = line.trim();
    if line.starts_with('{') {
        return serde_json::from_str(line).unwrap_or(Value::String(line.to_string()));
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |w: &str| w.parse::<i64>().map(Value::from).unwrap_or(Value::String(w.to_string()));
    match (game, words.as_slice()) {
        ("gops", [c]) => json!({ "card": num(c) }),
        ("dueling-monsters", [b, w]) => json!({ "black": num(b), "white": num(w) }),
        ("masterminds", [c]) => json!({ "card": c }),
        ("masterminds", [c, a]) => json!({ "card": c, "as": a }),
        ("hexspiel", [b]) if b.parse::<i64>().is_ok() => json!({ "bid": num(b) }),
        ("hexspiel", cells) if cells.first() == Some(&"place") => json!({ "place": cells[1..] }),
        ("cure-plague", [hx, hy, cx, cy, px, py, rest @ ..]) => {
            let mut m = json!({
                "human": [num(hx), num(hy)], "cure": [num(cx), num(cy)], "plague": [num(px), num(py)]
            });
            match rest {
                [] => m,
                [item] => {
                    m["item"] = json!(item);
                    m
                }
                // Words past the item are not dropped: the line is not a move.
                _ => Value::String(line.to_string()),
            }
        }
        _ => Value::String(line.to_string()),
    }
}

/// How to type a move of `game`, in a few words.
pub fn hint(game: &str) -> &'static str {
    match game {
        "gops" => "type a card, e.g. 7",
        "dueling-monsters" => "type a black and a white, e.g. 2 9",
        "masterminds" => "type a card, e.g. kill, or bluff fireball",
        "hexspiel" => "type a bid, e.g. 5, or place c3 d4 (or {json} with a pattern)",
        "cure-plague" => "type human x y, cure x y, plague x y [item], e.g. -1 1 0 1 1 1",
        _ => "type the move as JSON",
    }
}

/// Prints a view: its board picture (games with a board carry one), then every other
/// field on one line.
pub fn show_view(view: &Value) {
    let Some(obj) = view.get("game").and_then(Value::as_object) else { return };
    if let Some(lines) = obj.get("picture").and_then(Value::as_array) {
        for l in lines.iter().filter_map(Value::as_str) {
            println!("    {l}");
        }
    }
    let line: Vec<String> = obj
        .iter()
        .filter(|(k, v)| {
            !v.is_null()
                && !matches!(k.as_str(), "viewer" | "picture" | "board" | "costs" | "tiles")
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    println!("  {}", line.join("  "));
}

/// One line for an event: its innermost message (a game's event as the registry writes it).
pub fn describe(e: &v1::Event) -> String {
    use v1::event::Kind;
    match &e.kind {
        Some(Kind::MatchStarted(m)) => {
            format!("match started ({}), seed commitment {}", m.game, m.commitment)
        }
        Some(Kind::Resigned(r)) => format!("seat {} resigned", r.seat),
        Some(Kind::MatchEnded(m)) => format!(
            "match ended: {} ({}), seed {}",
            m.winner.map_or("no winner".to_string(), |w| format!("seat {w} wins")),
            m.reason,
            m.seed
        ),
        // A game's own event: its wire module writes it.
        Some(kind) => games::registry::describe_event(e).unwrap_or_else(|| format!("{kind:?}")),
        None => "(empty event)".into(),
    }
    .replace("Some(", "(")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_games_event_is_its_innermost_message() {
        let moved = v1::Event {
            kind: Some(v1::event::Kind::Gops(v1::GopsEvent {
                kind: Some(v1::gops_event::Kind::Moved(v1::GopsMoved { seat: 1 })),
            })),
        };
        assert_eq!(describe(&moved), "(Moved(GopsMoved { seat: 1 }))");
        let resigned =
            v1::Event { kind: Some(v1::event::Kind::Resigned(v1::Resigned { seat: 0 })) };
        assert_eq!(describe(&resigned), "seat 0 resigned");
        assert_eq!(describe(&v1::Event { kind: None }), "(empty event)");
    }

    #[test]
    fn shorthands_become_moves() {
        assert_eq!(shorthand("gops", " 7 "), json!({"card": 7}));
        assert_eq!(shorthand("dueling-monsters", "2 9"), json!({"black": 2, "white": 9}));
        assert_eq!(shorthand("masterminds", "bluff kill"), json!({"card": "bluff", "as": "kill"}));
        assert_eq!(shorthand("hexspiel", "place c3 d4"), json!({"place": ["c3", "d4"]}));
        assert_eq!(shorthand("hexspiel", "4"), json!({"bid": 4}));
        assert_eq!(
            shorthand("cure-plague", "-1 1 0 1 1 1 permute"),
            json!({"human": [-1, 1], "cure": [0, 1], "plague": [1, 1], "item": "permute"})
        );
        assert_eq!(shorthand("gops", "{\"card\": 3}"), json!({"card": 3}));
        assert_eq!(shorthand("gops", "seven"), json!({"card": "seven"}));
        // Nothing typed is dropped: extra words make the line no move (a bad move).
        assert_eq!(
            shorthand("cure-plague", "-1 1 0 1 1 1 permute extra"),
            json!("-1 1 0 1 1 1 permute extra")
        );
        assert_eq!(shorthand("gops", "7 8"), json!("7 8"));
        assert_eq!(shorthand("dueling-monsters", "2 9 1"), json!("2 9 1"));
        // A third cell is kept, and the rules (or the wire) refuse it, never send two.
        assert_eq!(shorthand("hexspiel", "place c3 d4 e5"), json!({"place": ["c3", "d4", "e5"]}));
        assert!(
            games::registry::move_from_json("hexspiel", &shorthand("hexspiel", "place c3 d4 e5"))
                .is_err()
        );
        assert!(
            games::registry::move_from_json("hexspiel", &shorthand("hexspiel", "place c3 d4"))
                .is_ok()
        );
    }
}
