-- The archive of finished matches: one row per match, its record as GetMatchRecord
-- answers it (text, byte for byte; PostgreSQL compresses it out of line), and one row per
-- player seated in it, for each player's history by the page.
CREATE TABLE archived_matches (
    match_id        uuid PRIMARY KEY,
    game            text NOT NULL,
    seat0           text NOT NULL,
    seat1           text NOT NULL,
    winner          smallint,
    reason          text NOT NULL,
    finished_at_ms  bigint NOT NULL,
    tenant_id       uuid,
    tournament_id   uuid,
    rating0_before  double precision,
    rating0_after   double precision,
    rating1_before  double precision,
    rating1_after   double precision,
    record          text NOT NULL,
    archived_at_ms  bigint NOT NULL
);

CREATE TABLE archived_players (
    player_id       uuid NOT NULL,
    finished_at_ms  bigint NOT NULL,
    match_id        uuid NOT NULL REFERENCES archived_matches (match_id) ON DELETE CASCADE,
    PRIMARY KEY (player_id, finished_at_ms, match_id)
);

-- The deletes cascading from archived_matches find a match's player rows by it.
CREATE INDEX archived_players_match ON archived_players (match_id);
CREATE INDEX archived_matches_tenant ON archived_matches (tenant_id, finished_at_ms, match_id)
    WHERE tenant_id IS NOT NULL;
CREATE INDEX archived_matches_tournament
    ON archived_matches (tournament_id, finished_at_ms, match_id)
    WHERE tournament_id IS NOT NULL;
-- Retention deletes the oldest first.
CREATE INDEX archived_matches_finished ON archived_matches (finished_at_ms);
