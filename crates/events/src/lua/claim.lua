-- Claims a seat, atomically: 'open' or 'reserved:<player>' becomes 'player:<player>'.
--
-- KEYS[1] colosseum:{<match>}:meta
-- ARGV[1] the seat's field ('seat0' or 'seat1'); ARGV[2] the player id
--
-- Returns 0 claimed, 1 already the player's, 2 taken, 3 reserved for another, 4 no match.
local holder = redis.call('HGET', KEYS[1], ARGV[1])
if not holder then
  return 4
end
local me = 'player:' .. ARGV[2]
if holder == 'open' or holder == 'reserved:' .. ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], me)
  return 0
end
if holder == me then
  return 1
end
if string.sub(holder, 1, 9) == 'reserved:' then
  return 3
end
return 2
