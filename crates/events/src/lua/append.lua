-- Appends one entry to a match's log and applies its deadline change: atomic, one round trip.
--
-- KEYS[1] colosseum:{<match>}:log    the stream
-- KEYS[2] colosseum:{<match>}:idem   idempotency key -> version
-- KEYS[3] colosseum:deadlines        due time by match
-- KEYS[4] colosseum:deadline-fences  fence version by match
-- ARGV[1] the entry's version, decimal
-- ARGV[2] '1' if the entry has an idempotency key, else '0'; ARGV[3] the key
-- ARGV[4] deadline change: 'keep', 'clear' or 'set'; ARGV[5] due ms; ARGV[6] fence version
-- ARGV[7] the match id (the member in the deadline keys)
-- ARGV[8..] the entry's field/value pairs, as XADD takes them
--
-- Returns {0, version} appended, {1, version} duplicate key (accepted at that version),
-- {2, current} version conflict, {3, 0} no such match. Only the appended case writes.
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 then
  return {3, 0}
end
if ARGV[2] == '1' then
  local seen = redis.call('HGET', KEYS[2], ARGV[3])
  if seen then
    return {1, tonumber(seen)}
  end
end
local current = tonumber(string.match(last[1][1], '^(%d+)%-'))
if tonumber(ARGV[1]) ~= current + 1 then
  return {2, current}
end
-- The explicit id '<version>-1' is the second guard: the stream itself refuses an id that
-- is not above its last one.
redis.call('XADD', KEYS[1], ARGV[1] .. '-1', unpack(ARGV, 8))
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
end
if ARGV[4] == 'set' then
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[7])
  redis.call('HSET', KEYS[4], ARGV[7], ARGV[6])
elseif ARGV[4] == 'clear' then
  redis.call('ZREM', KEYS[3], ARGV[7])
  redis.call('HDEL', KEYS[4], ARGV[7])
end
return {0, tonumber(ARGV[1])}
