-- A pending pairing's match exists: its tickets become assigned and the pairing is done.
-- After the prelude.
--
-- ARGV[4] the match id; ARGV[5] now (ms)
--
-- Returns 1, or 0 if no such pairing is pending.
local match = ARGV[4]
local pairing = redis.call('HGET', PAIRINGS, match)
if not pairing then
  return 0
end
-- Only its ticket ids are read from the pairing (strings: exact).
for _, id in ipairs(cjson.decode(pairing).tickets) do
  local r = load(id)
  if r and r.state == 'pairing' and r.match == match then
    unlive(id, r)
    r.state = 'assigned'
    r.changed = ARGV[5]
    save(id, r)
    announce(r.player)
  end
end
redis.call('HDEL', PAIRINGS, match)
return 1
