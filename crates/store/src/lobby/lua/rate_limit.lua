-- Counts a hit in a fixed window that starts at the bucket's first hit; whether the hit
-- is within the limit is decided in Rust (`rules::rate_limit`).
--
-- KEYS[1] colosseum:{lobby}:rl:<bucket>
-- ARGV[1] the window (ms)
--
-- Returns {the hits in the window, this one counted; the ms until the window ends}.
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  -- A counter without an expiry would count forever: start its window now.
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {hits, left}
