-- Reads a match's entries from a version on: the opening (version 0, its own hash) and the
-- stream's steps, with the viewers' views when the last entry read is the latest; or,
-- once the match is compacted, its record. Atomic, so a compaction between two commands
-- can never make a match look empty.
--
-- KEYS[1] colosseum:{<match>}:log      KEYS[2] colosseum:{<match>}:views
-- KEYS[3] colosseum:{<match>}:record   KEYS[4] colosseum:{<match>}:open
-- ARGV[1] the first version wanted; ARGV[2] the most entries wanted (at least 1)
--
-- Returns {0, opening fields or {}, stream entries, views version or nil, views or nil}
-- while the match is live (all empty for no such match), or {1, '<version>:<record>'}.
local from = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local opening = {}
if from == 0 then
  opening = redis.call('HGETALL', KEYS[4])
  if #opening > 0 then
    count = count - 1
    from = 1
  end
  -- No opening hash: a match stored before it had one keeps its opening in the stream, as
  -- entry 0-1, which the range from 0-0 takes.
end
local entries = {}
if count > 0 then
  entries = redis.call('XRANGE', KEYS[1], from .. '-0', '+', 'COUNT', count)
end
if #opening == 0 and #entries == 0 and redis.call('EXISTS', KEYS[1], KEYS[4]) == 0 then
  local record = redis.call('GET', KEYS[3])
  if record then
    return {1, record}
  end
  return {0, {}, {}}
end
-- The views only go with the latest version: a reader of older ones gets none.
local last = '0'
if #entries > 0 then
  last = string.match(entries[#entries][1], '^(%d+)%-')
elseif #opening == 0 then
  return {0, opening, entries}
end
local views = redis.call('HMGET', KEYS[2], 'v', 'b')
if views[1] == last then
  return {0, opening, entries, views[1], views[2]}
end
return {0, opening, entries}
