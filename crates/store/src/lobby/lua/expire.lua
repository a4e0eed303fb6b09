-- Expires the given tickets that are still waiting and due. After the prelude.
--
-- ARGV[4] now (ms); ARGV[5..] ticket ids
--
-- Returns the records of the tickets it expired, in the order given.
local now = ARGV[4]
local expired = {}
for i = 5, #ARGV do
  local id = ARGV[i]
  local r = load(id)
  if r and r.state == 'waiting' and tonumber(r.expires) <= tonumber(now) then
    unlist(id, r)
    unlive(id, r)
    r.state = 'expired'
    r.changed = now
    expired[#expired + 1] = save(id, r)
    announce(r.player)
  end
end
return expired
