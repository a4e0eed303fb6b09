-- Replaces fields of a stored account.
--
-- KEYS[1] colosseum:{lobby}:account:<player>
-- ARGV field/value pairs (never the email)
--
-- Returns 1 updated, 0 no such account (nothing changed).
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
