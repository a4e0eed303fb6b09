-- Marks a begun request done and appends its events to the tenant's stream, once
-- (PlatformStore::finish). After platform_prelude.lua.
-- KEYS[1] the request hash, KEYS[2] the unfinished set, KEYS[3] the tenant's stream.
-- ARGV: the events. Answers 1 done now, 0 done before, -1 never begun.
local done = redis.call('HGET', KEYS[1], 'done')
if not done then return -1 end
if done == '1' then return 0 end
redis.call('HSET', KEYS[1], 'done', '1')
redis.call('ZREM', KEYS[2], KEYS[1])
push(KEYS[3], last_seq(KEYS[3]), 1, #ARGV)
return 1
