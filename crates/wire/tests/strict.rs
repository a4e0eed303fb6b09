//! JSON moves into protobuf messages (`wire::move_from_json` by name, what `colosseum play` sends
//! through the cluster): objects of the game's shape only (every game of the registry), and
//! nothing dropped on the way.

use games::registry::move_from_json;
use rules_core::{Match, Seed};
use serde_json::json;

/// A legal move of a fresh match of `G` (default options) as JSON, and its list form
/// (the object's values in order: serde's sequence form of a struct).
struct LegalMove;

/// An object's values in the order written (a `Value` keeps its keys sorted).
struct Values(Vec<serde_json::Value>);

impl<'de> serde::Deserialize<'de> for Values {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Values;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Values, A::Error> {
                let mut values = Vec::new();
                while let Some((_, v)) = map.next_entry::<String, serde_json::Value>()? {
                    values.push(v);
                }
                Ok(Values(values))
            }
        }
        d.deserialize_map(V)
    }
}

impl games::Visit for LegalMove {
    type Out = (serde_json::Value, serde_json::Value);
    fn visit<G: games::Hostable>(self) -> Self::Out {
        let seed = Seed::from_bytes(&[7; 8]).expect("8 bytes");
        let m = Match::<G>::new(&G::Options::default(), seed, &mut Vec::new()).expect("defaults");
        let mut legal = Vec::new();
        let seat = m.to_move().iter().next().expect("a seat owes the first move");
        m.legal_moves(seat, &mut legal);
        let text = serde_json::to_string(legal.first().expect("a legal move")).expect("JSON");
        let object = serde_json::from_str(&text).expect("JSON");
        let Values(list) = serde_json::from_str(&text).expect("a move is an object");
        (object, serde_json::Value::Array(list))
    }
}

#[test]
fn list_forms_are_not_moves() {
    for g in games::GAMES {
        let game = g.name;
        let (object, list) = games::visit(game, LegalMove).expect("a registry game");
        assert!(move_from_json(game, &object).is_ok(), "{game}: {object}");
        let e = move_from_json(game, &list).unwrap_err();
        assert!(e.contains("expected an object"), "{game}: {list}: {e}");
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
