//! The duel family of rules: Masterminds Duel (rules text 002). Not yet implemented.
