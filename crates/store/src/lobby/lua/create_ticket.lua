-- Creates a ticket unless the player's idempotency key or live ticket in the queue says
-- otherwise. After the prelude.
--
-- KEYS[6] the player's ticket list
-- ARGV[4] the ticket id; ARGV[5] its record (state waiting)
--
-- Returns {0, record} created, {1, record} the key's ticket, {2, record} the live ticket
-- in the queue, {3, ''} the id is taken. Only the created case writes.
local id, record = ARGV[4], ARGV[5]
local r = cjson.decode(record)
local before = indexed(IDEM, r.idem)
if before then
  return {1, before}
end
local live = indexed(LIVE, r.live)
if live then
  return {2, live}
end
if redis.call('HEXISTS', TICKETS, id) == 1 then
  return {3, ''}
end
redis.call('HSET', TICKETS, id, record)
redis.call('HSET', IDEM, r.idem, id)
redis.call('HSET', LIVE, r.live, id)
list(id, r)
remember(KEYS[6], id, r)
announce(r.player)
return {0, record}
