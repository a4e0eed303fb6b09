-- Creates a match: its meta, its secret and its opening entry (version 0, in a hash of its
-- own: the stream starts with the first step, so an idle match pays for no stream node),
-- atomically: a match never exists without its seed.
--
-- KEYS[1] colosseum:{<match>}:meta   KEYS[2] colosseum:{<match>}:log
-- KEYS[3] colosseum:{<match>}:idem   KEYS[4] colosseum:{<match>}:secret
-- KEYS[5] colosseum:{<match>}:views  KEYS[6] colosseum:{<match>}:open
-- KEYS[7] colosseum:{<match>}:deadline
-- ARGV[1] the fixed meta (JSON); ARGV[2], ARGV[3] the holders of seat 0 and seat 1
-- ARGV[4] the seed (hex)
-- ARGV[5] '1' if the opening entry has an idempotency key, else '0'; ARGV[6] the key
-- ARGV[7] the viewers' views after the opening ('' for none)
-- ARGV[8] the first deadline's due time, ms ('' for none: a seat is still open); its
--         fence is version 0 (the caller adds it to the global index before this runs)
-- ARGV[9..] the opening entry's field/value pairs
--
-- Returns 1 if created, 0 if the match exists (nothing written).
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[4], KEYS[6]) > 0 then
  return 0
end
redis.call('HSET', KEYS[6], unpack(ARGV, 9))
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[5], 'v', '0', 'b', ARGV[7])
end
redis.call('HSET', KEYS[1], 'm', ARGV[1], 'seat0', ARGV[2], 'seat1', ARGV[3])
redis.call('HSET', KEYS[4], 'seed', ARGV[4])
if ARGV[5] == '1' then
  redis.call('HSET', KEYS[3], ARGV[6], '0')
end
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[7], 'due', ARGV[8], 'fence', '0')
end
return 1
