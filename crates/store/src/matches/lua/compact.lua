-- Compacts a finished match: its record (built by the caller from the entries it read)
-- replaces the stream, the idempotency keys, the snapshot, the views and any deadline, if
-- the stream still ends at the version the record was built from. Then, with a retention,
-- the record, the meta and the secret expire together (sooner, if the match was released).
--
-- KEYS[1] log   KEYS[2] idem   KEYS[3] snap   KEYS[4] views   KEYS[5] record
-- KEYS[6] meta  KEYS[7] secret KEYS[8] deadline   KEYS[9] open   (all colosseum:{<match>}:...)
-- ARGV[1] the record's last version; ARGV[2] the record; ARGV[3] retention in ms (0: none)
-- ARGV[4] the tag of the record's last entry, decimal ('0' for none): after a failover
-- that lost and reissued the last versions, the same number names another entry
--
-- Returns 1 compacted, 0 not (compacted already, unknown, or moved on).
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local version = nil
if #last > 0 then
  version = string.match(last[1][1], '^(%d+)%-')
  local fields = last[1][2]
  local tag = '0'
  for i = 1, #fields, 2 do
    if fields[i] == 'tag' then
      tag = fields[i + 1]
    end
  end
  if tag ~= ARGV[4] then
    return 0
  end
elseif redis.call('EXISTS', KEYS[9]) == 1 then
  version = '0'
end
if version ~= ARGV[1] then
  return 0
end
-- A string, '<version>:<record>': a hash with a value this long would cost a hash table.
redis.call('SET', KEYS[5], ARGV[1] .. ':' .. ARGV[2])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[8], KEYS[9])
-- A match the archive already holds was released (release.lua) before this compaction:
-- its meta's expiry is the sooner one, and the record keeps it too. PTTL answers 0 for a
-- key in the very millisecond it expires (it is still there): released all the same, so
-- at least 1 ms (a 0 here once handed a released match the whole retention back).
local keep = tonumber(ARGV[3])
local released = redis.call('PTTL', KEYS[6])
if released >= 0 and (keep == 0 or released < keep) then
  keep = math.max(released, 1)
end
if keep > 0 then
  redis.call('PEXPIRE', KEYS[5], keep)
  redis.call('PEXPIRE', KEYS[6], keep)
  redis.call('PEXPIRE', KEYS[7], keep)
end
return 1
