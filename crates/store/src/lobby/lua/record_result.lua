-- Records a rated match's result, all at once: unless the match is no rated match waiting
-- for its result (rated before, unpaired, or never rated) or a player's games count moved,
-- both ratings, boards and histories change and the match's rated-matches entry goes
-- (which is what makes a repeated result change nothing, and keeps the hash to the rated
-- matches in play).
--
-- KEYS[1] rated-matches (hash)   KEYS[2] unrated (set)   KEYS[3] rating:<game> (hash)
-- KEYS[4..6] the game's boards: rated, provisional, bots
-- KEYS[7], KEYS[8] the two players' histories in the game
-- ARGV[1] the match id; ARGV[2] how many history lines are kept; then per player, 6
-- arguments: the player, the games count expected, the new rating's JSON (stored whole,
-- never re-encoded here), its board's number (1-3, '' for none), its score, the history
-- line's JSON
--
-- Returns 0 applied, 1 already applied, 2 stale. Only the applied case writes.
local match = ARGV[1]
if redis.call('HEXISTS', KEYS[1], match) == 0 then
  return 1
end
for p = 0, 1 do
  local at = 3 + p * 6
  local current = redis.call('HGET', KEYS[3], ARGV[at])
  local games = 0
  if current then
    -- A count read, not written back: exact below 2^53.
    games = cjson.decode(current).games
  end
  if games ~= tonumber(ARGV[at + 1]) then
    return 2
  end
end
for p = 0, 1 do
  local at = 3 + p * 6
  local player = ARGV[at]
  redis.call('HSET', KEYS[3], player, ARGV[at + 2])
  for b = 1, 3 do
    if tostring(b) == ARGV[at + 3] then
      redis.call('ZADD', KEYS[3 + b], ARGV[at + 4], player)
    else
      redis.call('ZREM', KEYS[3 + b], player)
    end
  end
  redis.call('LPUSH', KEYS[7 + p], ARGV[at + 5])
  redis.call('LTRIM', KEYS[7 + p], 0, tonumber(ARGV[2]) - 1)
end
redis.call('HDEL', KEYS[1], match)
redis.call('SREM', KEYS[2], match)
return 0
