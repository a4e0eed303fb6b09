-- Stores an account unless its email has one.
--
-- KEYS[1] colosseum:{lobby}:email:<digest>   KEYS[2] colosseum:{lobby}:account:<player>
-- ARGV[1] the player id; ARGV[2..] the account's field/value pairs
--
-- Returns 1 stored, 0 the email is taken (nothing changed).
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
return 1
