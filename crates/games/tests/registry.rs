//! The registry: every entry starts a match and is hosted through the protobuf codec,
//! its moves survive the wire both ways and its views encode and decode, it has bots, and
//! `GAMES` and `visit` name the same games.

use api::v1;
use games::host::{Host, StepIn};
use games::{Family, GAMES, Hostable, Logged, Visit};
use prost::Message;
use rules_core::{Seat, Seed, Step, Viewer};

const VIEWERS: [Viewer; 3] = [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator];

/// Plays random matches of `G` through the host's protobuf codec, checking the wire on
/// the way; returns the game's name (what `visit` picked).
struct Hosts;

impl Visit for Hosts {
    type Out = &'static str;
    fn visit<G: Hostable>(self) -> &'static str {
        for n in 0..8u64 {
            let seed = Seed::from_bytes(&n.to_le_bytes()).unwrap();
            let mut m = Logged::<G>::new(G::Options::default(), seed).expect("default options");
            let mut rng = seed.rng();
            let mut steps = 0;
            while m.outcome().is_none() && steps < 2000 {
                steps += 1;
                for v in VIEWERS {
                    let out = m.view_proto(v, true);
                    let bytes = out.view.encode_to_vec();
                    assert_eq!(
                        v1::View::decode(bytes.as_slice()).unwrap(),
                        out.view,
                        "{}",
                        G::NAME
                    );
                    assert!(out.view_json.is_some());
                }
                for seat in Seat::BOTH {
                    let mut legal = Vec::new();
                    m.inner().legal_moves(seat, &mut legal);
                    for mv in &legal {
                        let proto = G::move_to_proto(mv);
                        assert_eq!(G::move_from_proto(&proto).as_ref(), Ok(mv), "{}", G::NAME);
                        let bytes = proto.encode_to_vec();
                        assert_eq!(v1::Move::decode(bytes.as_slice()).unwrap(), proto);
                    }
                }
                let owing: Vec<Seat> = m.to_move().iter().collect();
                let step = if owing.is_empty() {
                    StepIn::Deadline
                } else {
                    let seat = owing[rng.below(owing.len() as u32) as usize];
                    let legal = m.view_proto(Viewer::Seat(seat), false).legal;
                    assert!(!legal.is_empty(), "{}: a seat owing a move has one", G::NAME);
                    StepIn::Move { seat, mv: legal[rng.below(legal.len() as u32) as usize].clone() }
                };
                // What the stream stores: the typed step as serde writes it.
                let typed = match &step {
                    StepIn::Move { seat, mv } => {
                        Step::Move { seat: *seat, mv: G::move_from_proto(mv).unwrap() }
                    }
                    StepIn::Deadline => Step::Deadline,
                    StepIn::Resign(s) => Step::Resign(*s),
                };
                let applied = m.step_proto(step).expect("a legal move is accepted");
                assert_eq!(applied.step_json, serde_json::to_string(&typed).unwrap());
                for e in &applied.events {
                    assert!(v1::Event::decode(e.payload.as_slice()).unwrap().kind.is_some());
                }
            }
            assert!(m.outcome().is_some(), "{}: a random match ends", G::NAME);
            assert_eq!(m.encoded_events().len(), m.event_count());
        }
        assert!(!G::BOTS.is_empty(), "{} has a bot", G::NAME);
        for b in G::BOTS {
            assert!(G::bot(b).is_some(), "{}: bot {b}", G::NAME);
        }
        G::NAME
    }
}

#[test]
fn every_registered_game_is_hosted_and_speaks_the_wire() {
    for g in GAMES {
        assert_eq!(games::visit(g.name, Hosts), Some(g.name));
        assert!(games::start(g.name, &serde_json::json!({}), Seed::ZERO).is_ok());
        assert!(games::registry::move_time(g.name).is_some());
        assert!(!games::registry::bot_names(g.name).is_empty());
    }
}

#[test]
fn games_and_visit_agree() {
    struct Name;
    impl Visit for Name {
        type Out = &'static str;
        fn visit<G: Hostable>(self) -> &'static str {
            G::NAME
        }
    }
    let mut names: Vec<&str> = GAMES.iter().map(|g| g.name).collect();
    for n in &names {
        assert_eq!(games::visit(n, Name), Some(*n));
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), GAMES.len(), "every name once");
    for wrong in ["chess", "", "GOPS", "dueling_monsters", "gops "] {
        assert_eq!(games::visit(wrong, Name), None, "{wrong:?}");
        assert!(games::start(wrong, &serde_json::json!({}), Seed::ZERO).is_err());
    }
}

#[test]
fn families_have_one_name_each() {
    for f in Family::ALL {
        assert_eq!(Family::parse(f.as_str()), Some(f));
        assert_eq!(f.env_var(), format!("ENGINE_{}_URL", f.as_str().to_uppercase()));
        assert_eq!(format!("{f:<10}|"), format!("{:<10}|", f.as_str()));
    }
    assert_eq!(Family::ALL.map(Family::as_str), ["goofspiel", "placement", "duel"]);
    assert_eq!(Family::parse("chess"), None);
    for f in Family::ALL {
        assert!(GAMES.iter().any(|g| g.family == f), "{f} hosts a game");
    }
}
