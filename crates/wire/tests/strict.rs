//! JSON moves into protobuf messages (`wire::move_from_json` by name, what `colosseum play` sends
//! through the cluster): objects of the game's shape only, and nothing dropped on the way.

use games::registry::move_from_json;
use serde_json::json;

#[test]
fn list_forms_are_not_moves() {
    for (game, list, object) in [
        ("gops", json!([5]), json!({"card": 5})),
        ("dueling-monsters", json!([1, 2]), json!({"black": 1, "white": 2})),
        (
            "cure-plague",
            json!([[-1, 1], [0, 1], [1, 1]]),
            json!({"human": [-1, 1], "cure": [0, 1], "plague": [1, 1]}),
        ),
        ("masterminds", json!(["kill"]), json!({"card": "kill"})),
        ("hexspiel", json!([5]), json!({"bid": 5})),
    ] {
        assert!(move_from_json(game, &object).is_ok(), "{game}: {object}");
        let e = move_from_json(game, &list).unwrap_err();
        assert!(e.contains("expected an object"), "{game}: {e}");
    }
}

#[test]
fn a_move_the_message_cannot_carry_whole_is_refused() {
    // Issue 12: three cells parsed (the rules refuse the count), but the message kept two
    // and the gateway placed them.
    let e = move_from_json("hexspiel", &json!({"place": ["c3", "d4", "e5"]})).unwrap_err();
    assert!(e.contains("carry whole"), "{e}");
    let cells = vec!["a1"; 8];
    let pattern = json!({"place": [], "pattern": {"kind": "y7", "cells": cells}});
    assert!(move_from_json("hexspiel", &pattern).is_err());
    let ok = move_from_json("hexspiel", &json!({"place": ["c3", "d4"]})).unwrap();
    assert_eq!(
        games::registry::move_to_json("hexspiel", &ok).unwrap(),
        json!({"place": ["c3", "d4"]})
    );
}
