-- Cancels a player's waiting ticket. After the prelude.
--
-- ARGV[4] the ticket id; ARGV[5] the player; ARGV[6] now (ms)
--
-- Returns the record after the call (unchanged unless it was waiting), or nil if there is
-- no such ticket of this player's.
local id = ARGV[4]
local r = load(id)
if r == nil or r.player ~= ARGV[5] then
  return false
end
if r.state ~= 'waiting' then
  return cjson.encode(r)
end
unlist(id, r)
unlive(id, r)
r.state = 'cancelled'
r.changed = ARGV[6]
announce(r.player)
return save(id, r)
