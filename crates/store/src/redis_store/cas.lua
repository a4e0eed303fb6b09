-- Compare and set: writes only if every value the caller read (and decided on, in Rust) is
-- still what it read. No rule lives here: the guards are exact values, the writes exact
-- commands (`src/redis_store/cas.rs`, `Cas`, builds both, for the lobby and the matches'
-- seats). Every key is in KEYS, all in one Redis Cluster slot.
--
-- ARGV[1] the number of guards; then per guard 3 arguments: the key's index in KEYS, the
-- hash field, the value read ('' for none); or, for the field '', the members of the sorted
-- set, each followed by a space, as ZRANGE 0 -1 reads them; then the writes, each an
-- opcode, the key's index (0 for none) and its arguments:
--   HSET f v | HDEL f | HDELEQ f v (delete if it is v) | SADD m | SREM m | ZADD s m | ZREM m
--   UNQUEUE m h f (SREM m; if the set is empty, HDEL f from KEYS[h])
--   TRIM v n (LPUSH v, keep the first n)
--   PUBLISH channel message (no key: 0)
--
-- Returns 1 written, 0 a guard failed (nothing written).
local guards = tonumber(ARGV[1])
local at = 2
for _ = 1, guards do
  local key, field = KEYS[tonumber(ARGV[at])], ARGV[at + 1]
  local now
  if field == '' then
    local members = redis.call('ZRANGE', key, 0, -1)
    now = #members > 0 and (table.concat(members, ' ') .. ' ') or ''
  else
    now = redis.call('HGET', key, field) or ''
  end
  if now ~= ARGV[at + 2] then
    return 0
  end
  at = at + 3
end
local arity = {HSET = 2, HDEL = 1, HDELEQ = 2, SADD = 1, SREM = 1, ZADD = 2, ZREM = 1,
  UNQUEUE = 3, TRIM = 2, PUBLISH = 2}
while at <= #ARGV do
  local op = ARGV[at]
  local key = KEYS[tonumber(ARGV[at + 1])]
  local a, b, c = ARGV[at + 2], ARGV[at + 3], ARGV[at + 4]
  if op == 'HSET' or op == 'ZADD' then
    redis.call(op, key, a, b)
  elseif op == 'HDEL' or op == 'SADD' or op == 'SREM' or op == 'ZREM' then
    redis.call(op, key, a)
  elseif op == 'HDELEQ' then
    if redis.call('HGET', key, a) == b then
      redis.call('HDEL', key, a)
    end
  elseif op == 'UNQUEUE' then
    redis.call('SREM', key, a)
    if redis.call('SCARD', key) == 0 then
      redis.call('HDEL', KEYS[tonumber(b)], c)
    end
  elseif op == 'TRIM' then
    redis.call('LPUSH', key, a)
    redis.call('LTRIM', key, 0, tonumber(b) - 1)
  elseif op == 'PUBLISH' then
    redis.call('PUBLISH', a, b)
  else
    return redis.error_reply('cas: unknown write ' .. tostring(op))
  end
  at = at + 2 + arity[op]
end
return 1
