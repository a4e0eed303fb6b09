//! Hexspiel in the terminal (being written: a placeholder that shows the view's debug form).

use super::{Face, Names};
use api::v1;

/// The Hexspiel face.
#[derive(Default)]
pub struct Hexspiel;

impl Face for Hexspiel {
    fn how_to_move(&self) -> &'static str {
        "type the move as JSON"
    }

    fn status(&self, view: &v1::View, _names: &Names) -> Vec<String> {
        vec![super::cut(&format!("{view:?}"), super::WIDTH)]
    }

    fn narrate(&mut self, event: &v1::Event, _names: &Names) -> Option<String> {
        Some(format!("{event:?}"))
    }

    fn spell(&self, mv: &v1::Move) -> String {
        format!("{mv:?}")
    }

    fn read(&self, line: &str, _legal: &[v1::Move]) -> Result<v1::Move, String> {
        games::registry::move_from_json(
            "hexspiel",
            &serde_json::from_str(line).map_err(|e| e.to_string())?,
        )
    }

    fn final_board(&self, view: &v1::View, names: &Names) -> Vec<String> {
        self.status(view, names)
    }

    fn score(&self, _view: &v1::View) -> Option<[String; 2]> {
        None
    }
}
