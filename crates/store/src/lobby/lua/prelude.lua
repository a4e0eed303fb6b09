-- The part a ticket script starts with (prepended by `src/lobby/redis.rs`; only
-- `create_ticket.lua` is one now, every other ticket change going through `cas.lua`):
-- the keys and arguments and the helpers that keep the indexes in step with a new
-- ticket. Every key is a `colosseum:{lobby}:` one, so a script is atomic on the one node
-- that serves the slot; the waiting sets are named here from their prefix because a
-- ticket's queue is known only once its record is read.
--
-- KEYS[1] tickets (hash id -> record)   KEYS[2] seeks (zset)      KEYS[3] queues (hash)
-- KEYS[4] live (hash)                   KEYS[5] idem (hash)
-- ARGV[1] the waiting sets' key prefix  ARGV[2] the ticket feed's channel
-- ARGV[3] how many tickets a player's list keeps
--
-- A record is a JSON object of strings only (cjson round-trips strings exactly, while it
-- would round numbers to 14 digits): `t` the ticket as created (opaque here), `q` its
-- queue's JSON, `queue` the queue key, `player`, `seek` ('1'/'0'), `created`, `expires`
-- (ms), `idem` and `live` (its fields in those hashes), `state` (waiting, pairing,
-- assigned, cancelled, expired), `changed` (ms), `match` and `seat` ('' unless paired).
local TICKETS, SEEKS, QUEUES, LIVE = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local IDEM = KEYS[5]
local WAITING, CHANNEL, KEPT = ARGV[1], ARGV[2], tonumber(ARGV[3])

local function load(id)
  local record = redis.call('HGET', TICKETS, id)
  if record then
    return cjson.decode(record)
  end
  return nil
end

-- The stored record of the ticket an index hash (IDEM, LIVE) names under `field`, if any.
local function indexed(hash, field)
  local id = redis.call('HGET', hash, field)
  if id then
    return redis.call('HGET', TICKETS, id)
  end
  return false
end

local function is_live(r)
  return r.state == 'waiting' or r.state == 'pairing'
end

-- Puts a waiting ticket in its queue, or a seek on the list.
local function list(id, r)
  if r.seek == '1' then
    redis.call('ZADD', SEEKS, r.created, id)
  else
    redis.call('SADD', WAITING .. r.queue, id)
    redis.call('HSET', QUEUES, r.queue, r.q)
  end
end

-- Lists a new ticket among its player's (KEY), and forgets the oldest ended ones past
-- KEPT: their records and idempotency keys.
local function remember(key, id, r)
  redis.call('ZADD', key, r.created, id)
  local excess = redis.call('ZCARD', key) - KEPT
  if excess <= 0 then
    return
  end
  for _, old in ipairs(redis.call('ZRANGE', key, 0, -1)) do
    if excess <= 0 then
      break
    end
    local o = load(old)
    if o == nil or not is_live(o) then
      redis.call('ZREM', key, old)
      if o then
        redis.call('HDEL', TICKETS, old)
        if redis.call('HGET', IDEM, o.idem) == old then
          redis.call('HDEL', IDEM, o.idem)
        end
      end
      excess = excess - 1
    end
  end
end

-- Announces a player on the ticket feed, once per script. PUBLISH names no key, so a
-- cluster script may send it; Redis Cluster delivers it on every node.
local announced = {}
local function announce(player)
  if not announced[player] then
    announced[player] = true
    redis.call('PUBLISH', CHANNEL, player)
  end
end
