-- Takes, renews or gives up one holder's presence lease on one seat of a match, and
-- announces a change of the seat's presence: atomic, one round trip, on one key of the
-- match (its Redis Cluster slot).
--
-- KEYS[1] colosseum:{<match>}:presence:<seat>   holder -> its lease's expiry (Unix ms)
-- ARGV[1] 'mark' (take or renew) or 'unmark' (give up); ARGV[2] the holder
-- ARGV[3] now (Unix ms, the caller's clock); ARGV[4] the lease's expiry (mark only)
-- ARGV[5] the presence feed's channel; ARGV[6] the notification's start ('<match> <seat>')
--
-- Returns {connected, changed} (1 or 0 each): whether a live lease is held on the seat
-- after the call, and whether that is not what it was before (then announced).
local now = tonumber(ARGV[3])

-- Whether a lease is live at `now`, and the latest expiry; run-out leases are dropped.
local function live()
  local flat = redis.call('HGETALL', KEYS[1])
  local any, latest = false, 0
  for i = 1, #flat, 2 do
    local expiry = tonumber(flat[i + 1])
    if expiry == nil or expiry <= now then
      redis.call('HDEL', KEYS[1], flat[i])
    else
      any = true
      if expiry > latest then latest = expiry end
    end
  end
  return any, latest
end

local before = live()
if ARGV[1] == 'mark' then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[4])
else
  redis.call('HDEL', KEYS[1], ARGV[2])
end
local after, latest = live()
if after then
  -- The key goes by itself a minute after its longest lease (the holders' clocks may
  -- differ from the server's).
  redis.call('PEXPIRE', KEYS[1], math.max(latest - now, 1) + 60000)
end
local changed = before ~= after
if changed then
  -- PUBLISH names no key, so it is allowed in a cluster script; Redis Cluster delivers it
  -- to subscribers on every node.
  redis.call('PUBLISH', ARGV[5], ARGV[6] .. (after and ' 1' or ' 0'))
end
return {after and 1 or 0, changed and 1 or 0}
