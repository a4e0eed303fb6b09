-- Appends one entry to a match's log, applies its deadline change and announces it: atomic,
-- one round trip, on the match's own keys only (one Redis Cluster slot).
--
-- KEYS[1] colosseum:{<match>}:log        the stream
-- KEYS[2] colosseum:{<match>}:idem       idempotency key -> version
-- KEYS[3] colosseum:{<match>}:deadline   the armed deadline: due, fence
-- ARGV[1] the entry's version, decimal
-- ARGV[2] '1' if the entry has an idempotency key, else '0'; ARGV[3] the key
-- ARGV[4] deadline change: 'keep', 'clear' or 'set'; ARGV[5] due ms; ARGV[6] fence version
-- ARGV[7] the append feed's channel; ARGV[8] the notification ('<match> <version>')
-- ARGV[9..] the entry's field/value pairs, as XADD takes them
--
-- Returns {0, version} appended, {1, version} duplicate key (accepted at that version),
-- {2, current} version conflict, {3, 0} no such match. Only the appended case writes.
-- The global deadline index is not touched here (another slot): the caller adds to it
-- before this script runs, and a stale index entry is dropped by whoever finds it.
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
redis.call('XADD', KEYS[1], ARGV[1] .. '-1', unpack(ARGV, 9))
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
end
if ARGV[4] == 'set' then
  redis.call('HSET', KEYS[3], 'due', ARGV[5], 'fence', ARGV[6])
elseif ARGV[4] == 'clear' then
  redis.call('DEL', KEYS[3])
end
-- PUBLISH names no key, so it is allowed in a cluster script; Redis Cluster delivers it to
-- subscribers on every node.
redis.call('PUBLISH', ARGV[7], ARGV[8])
return {0, tonumber(ARGV[1])}
