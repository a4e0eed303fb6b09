//! The placement family of rules: Cure & Plague (rules text 001). Not yet implemented.
