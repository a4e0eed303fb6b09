-- Appends to a results stream (PlatformStore::append_results). After platform_prelude.lua.
-- KEYS[1] the stream, KEYS[2] the tenant's stream (the same key for a tenant stream),
-- KEYS[3] once, KEYS[4] owned, KEYS[5] the tenant's tournaments, KEYS[6] live.
-- ARGV[1] expected last seq ('' for any), ARGV[2] once mark (''), ARGV[3] at ms,
-- ARGV[4] '1' to close, ARGV[5] the tournament id ('' for a tenant stream),
-- ARGV[6] '<tenant>/<tournament>', ARGV[7] n owned, then n (match id, record) pairs, then
-- the events. Answers {'done', last} | {'conflict', last} | {'already', 0}.
local last = last_seq(KEYS[1])
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= last then return {'conflict', last} end
if ARGV[2] ~= '' and redis.call('SADD', KEYS[3], ARGV[2]) == 0 then return {'already', 0} end
local owned = tonumber(ARGV[7])
for i = 8, 7 + 2 * owned, 2 do
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1])
end
local first = 8 + 2 * owned
if ARGV[5] ~= '' then
  if last == 0 and first <= #ARGV then
    redis.call('ZADD', KEYS[5], ARGV[3], ARGV[5])
    redis.call('SADD', KEYS[6], ARGV[6])
  end
  if ARGV[4] == '1' then redis.call('SREM', KEYS[6], ARGV[6]) end
  push(KEYS[2], last_seq(KEYS[2]), first, #ARGV)
end
local done = push(KEYS[1], last, first, #ARGV)
-- The results feed (keys::RESULTS_CHANGES): PUBLISH names no key, so a cluster allows it.
redis.call('PUBLISH', 'colosseum:platform:results', ARGV[6])
return {'done', done}
