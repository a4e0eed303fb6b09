-- Creates a match: its meta, its secret and its opening entry (version 0, stream id 0-1),
-- atomically: a match never exists without its seed.
--
-- KEYS[1] colosseum:{<match>}:meta   KEYS[2] colosseum:{<match>}:log
-- KEYS[3] colosseum:{<match>}:idem   KEYS[4] colosseum:{<match>}:secret
-- ARGV[1] the fixed meta (JSON); ARGV[2], ARGV[3] the holders of seat 0 and seat 1
-- ARGV[4] the seed (hex)
-- ARGV[5] '1' if the opening entry has an idempotency key, else '0'; ARGV[6] the key
-- ARGV[7..] the opening entry's field/value pairs
--
-- Returns 1 if created, 0 if the match exists (nothing written).
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[4]) > 0 then
  return 0
end
redis.call('XADD', KEYS[2], '0-1', unpack(ARGV, 7))
redis.call('HSET', KEYS[1], 'm', ARGV[1], 'seat0', ARGV[2], 'seat1', ARGV[3])
redis.call('HSET', KEYS[4], 'seed', ARGV[4])
if ARGV[5] == '1' then
  redis.call('HSET', KEYS[3], ARGV[6], '0')
end
return 1
