-- A pending pairing's match cannot be made: its tickets wait again (a seek is listed
-- again), the pairing and its rated match are dropped. After the prelude.
--
-- ARGV[4] the match id; ARGV[5] now (ms)
--
-- Returns 1, or 0 if no such pairing is pending.
local match = ARGV[4]
local pairing = redis.call('HGET', PAIRINGS, match)
if not pairing then
  return 0
end
for _, id in ipairs(cjson.decode(pairing).tickets) do
  local r = load(id)
  if r and r.state == 'pairing' and r.match == match then
    list(id, r)
    r.state = 'waiting'
    r.match = ''
    r.seat = ''
    r.changed = ARGV[5]
    save(id, r)
    announce(r.player)
  end
end
redis.call('HDEL', PAIRINGS, match)
redis.call('HDEL', RATED, match)
redis.call('SREM', UNRATED, match)
return 1
