-- Puts a player on one board of a game (off the others), or on none.
--
-- KEYS[1..3] the game's boards: rated, provisional, bots
-- ARGV[1] the player; ARGV[2] the board's number (1-3), '' for none; ARGV[3] the score
for b = 1, 3 do
  if tostring(b) == ARGV[2] then
    redis.call('ZADD', KEYS[b], ARGV[3], ARGV[1])
  else
    redis.call('ZREM', KEYS[b], ARGV[1])
  end
end
return 1
