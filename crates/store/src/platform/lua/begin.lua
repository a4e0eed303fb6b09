-- Begins an idempotent request (PlatformStore::begin).
-- KEYS[1] the request hash, KEYS[2] the unfinished set of its kind, KEYS[3] owned,
-- KEYS[4] scheduled. ARGV[1] digest, ARGV[2] record, ARGV[3] now ms, ARGV[4] tenant,
-- ARGV[5] key, ARGV[6] n scheduled, then n (start ms, match id) pairs, then (match id,
-- record) pairs.
-- Answers {0, '', ''} new, {1, record, done} same, {2, '', ''} another request.
local digest = redis.call('HGET', KEYS[1], 'digest')
if digest then
  if digest ~= ARGV[1] then return {2, '', ''} end
  return {1, redis.call('HGET', KEYS[1], 'record'), redis.call('HGET', KEYS[1], 'done')}
end
redis.call('HSET', KEYS[1], 'digest', ARGV[1], 'record', ARGV[2], 'done', '0', 'begun', ARGV[3],
  'tenant', ARGV[4], 'key', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
local scheduled = tonumber(ARGV[6])
for i = 7, 6 + 2 * scheduled, 2 do
  redis.call('ZADD', KEYS[4], ARGV[i], ARGV[i + 1])
end
for i = 7 + 2 * scheduled, #ARGV, 2 do
  redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1])
end
return {0, '', ''}
