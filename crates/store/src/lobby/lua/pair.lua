-- Makes pairings, each all or nothing: both tickets waiting, unexpired, not seeks, of the
-- pairing's players and queue, and the match not pending already. After the prelude.
--
-- ARGV[4] now (ms); then per pairing, 8 arguments: match id, seat 0's ticket, seat 1's,
-- seat 0's player, seat 1's, the queue key, the pairing's JSON, the rated match's JSON
-- ('' for a casual queue)
--
-- Returns one 1 (made) or 0 (not) per pairing.
local now = ARGV[4]
local made = {}
for i = 5, #ARGV, 8 do
  local match = ARGV[i]
  local ids = {ARGV[i + 1], ARGV[i + 2]}
  local players = {ARGV[i + 3], ARGV[i + 4]}
  local queue = ARGV[i + 5]
  local ok = ids[1] ~= ids[2] and redis.call('HEXISTS', PAIRINGS, match) == 0
  local rs = {}
  for seat = 1, 2 do
    if ok then
      local r = load(ids[seat])
      ok = r ~= nil and r.state == 'waiting' and r.seek == '0'
        and tonumber(r.expires) > tonumber(now) and r.player == players[seat]
        and r.queue == queue
      rs[seat] = r
    end
  end
  if ok then
    for seat = 1, 2 do
      local r = rs[seat]
      unlist(ids[seat], r)
      r.state = 'pairing'
      r.match = match
      r.seat = tostring(seat - 1)
      r.changed = now
      save(ids[seat], r)
    end
    store_pairing(match, ARGV[i + 6], ARGV[i + 7])
    announce(players[1])
    announce(players[2])
    made[#made + 1] = 1
  else
    made[#made + 1] = 0
  end
end
return made
