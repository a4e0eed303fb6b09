-- Claims a seat, atomically: 'open' or 'reserved:<player>' becomes 'player:<player>', in
-- a match not over. The finished mark is the fence against a final step stored through
-- another replica between the caller's look at the match and this claim: the final step's
-- append.lua sets `over` in the meta, so a seat is never taken in a finished match.
--
-- KEYS[1] colosseum:{<match>}:meta
-- KEYS[2] colosseum:{<match>}:record   a compacted (so finished) match's record
-- ARGV[1] the seat's field ('seat0' or 'seat1'); ARGV[2] the player id
--
-- Returns 0 claimed, 1 already the player's (finished or not: a retried join keeps its
-- seat), 2 taken, 3 reserved for another, 4 no match, 5 the match is over.
local holder = redis.call('HGET', KEYS[1], ARGV[1])
if not holder then
  return 4
end
local me = 'player:' .. ARGV[2]
if holder == me then
  return 1
end
if redis.call('HEXISTS', KEYS[1], 'over') == 1 or redis.call('EXISTS', KEYS[2]) == 1 then
  return 5
end
if holder == 'open' or holder == 'reserved:' .. ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], me)
  return 0
end
if string.sub(holder, 1, 9) == 'reserved:' then
  return 3
end
return 2
