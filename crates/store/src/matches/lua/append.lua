-- Appends one entry to a match's log, applies its deadline change and announces it: atomic,
-- one round trip, on the match's own keys only (one Redis Cluster slot).
--
-- KEYS[1] colosseum:{<match>}:log        the stream
-- KEYS[2] colosseum:{<match>}:idem       idempotency key -> version
-- KEYS[3] colosseum:{<match>}:deadline   the armed deadline: due, fence
-- KEYS[4] colosseum:{<match>}:views      each viewer's view after the latest version
-- KEYS[5] colosseum:{<match>}:open       the opening entry (version 0)
-- KEYS[6] colosseum:{<match>}:record     a finished match's compacted record
-- KEYS[7] colosseum:{<match>}:finished   the final step's owed announcement
-- KEYS[8] colosseum:{<match>}:meta       the seat holders (seat0, seat1); `over` once finished
-- ARGV[1] the entry's version, decimal
-- ARGV[2] '1' if the entry has an idempotency key, else '0'; ARGV[3] the key
-- ARGV[4] deadline change: 'keep', 'clear' or 'set'; ARGV[5] due ms; ARGV[6] fence version
-- ARGV[7] the append feed's channel; ARGV[8] the notification ('<match> <version>')
-- ARGV[9] the viewers' views after this version ('' for none)
-- ARGV[10] the match's `Finished` JSON if this step ends it, else ''; its `players` are
--          the holders the step was decided with
-- ARGV[11..] the entry's field/value pairs, as XADD takes them
--
-- Returns {0, version} appended, {1, version} duplicate key (accepted at that version),
-- {2, current} version conflict (a compacted match answers its last version, so a caller
-- behind it rebuilds from the record and finds a retried key there), {3, 0} no such match.
-- A final step is a conflict too if a seat was taken since its holders were read (a join
-- through another replica): the caller reads them again, so the announcement names every
-- player seated before the end. Only the appended case writes; a final step also marks
-- the meta `over` (its version), after which a seat's claim (its
-- compare-and-set guards `over`) seats no one new.
-- The global deadline index is not touched here (another slot): the caller adds to it
-- before this script runs, and a stale index entry is dropped by whoever finds it. The
-- same holds for the index of owed announcements; the announcement itself (KEYS[7]) is
-- written here, so it exists exactly when the final step does.
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
-- No stream yet: the match is at its opening (version 0) if it exists at all.
if #last == 0 and redis.call('EXISTS', KEYS[5]) == 0 then
  local compacted = string.match(redis.call('GETRANGE', KEYS[6], 0, 24), '^(%d+):')
  if compacted then
    return {2, tonumber(compacted)}
  end
  return {3, 0}
end
if ARGV[2] == '1' then
  local seen = redis.call('HGET', KEYS[2], ARGV[3])
  if seen then
    return {1, tonumber(seen)}
  end
end
local current = 0
if #last > 0 then
  current = tonumber(string.match(last[1][1], '^(%d+)%-'))
end
if tonumber(ARGV[1]) ~= current + 1 then
  return {2, current}
end
if ARGV[10] ~= '' then
  -- The holders' fence: a seat is only ever taken (open or reserved -> player), so a step
  -- decided on stale holders names fewer players than the meta holds.
  local players = cjson.decode(ARGV[10]).players
  local holders = redis.call('HMGET', KEYS[8], 'seat0', 'seat1')
  for i = 1, 2 do
    local held = holders[i] and string.match(holders[i], '^player:(.+)$')
    if held and players[i] ~= held then
      return {2, current}
    end
  end
end
-- The explicit id '<version>-1' is the second guard: the stream itself refuses an id that
-- is not above its last one.
redis.call('XADD', KEYS[1], ARGV[1] .. '-1', unpack(ARGV, 11))
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
end
-- Overwritten, not appended: a match keeps one set of views however long it runs.
if ARGV[9] ~= '' then
  redis.call('HSET', KEYS[4], 'v', ARGV[1], 'b', ARGV[9])
else
  redis.call('DEL', KEYS[4])
end
if ARGV[4] == 'set' then
  redis.call('HSET', KEYS[3], 'due', ARGV[5], 'fence', ARGV[6])
elseif ARGV[4] == 'clear' then
  redis.call('DEL', KEYS[3])
end
if ARGV[10] ~= '' then
  redis.call('SET', KEYS[7], ARGV[10])
  redis.call('HSET', KEYS[8], 'over', ARGV[1])
end
-- PUBLISH names no key, so it is allowed in a cluster script; Redis Cluster delivers it to
-- subscribers on every node.
redis.call('PUBLISH', ARGV[7], ARGV[8])
return {0, tonumber(ARGV[1])}
