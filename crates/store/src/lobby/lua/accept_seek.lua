-- Accepts a waiting seek: stores the accepter's ticket and pairs the two. After the
-- prelude.
--
-- KEYS[9] the accepter's ticket list
-- ARGV[4] the seek's id; ARGV[5] the accepter's ticket id; ARGV[6] its record (state
-- pairing); ARGV[7] the seek's seat; ARGV[8] the match id; ARGV[9] the pairing's JSON;
-- ARGV[10] the rated match's JSON ('' if casual); ARGV[11] now (the pairing's time, ms);
-- ARGV[12] the seek's player and ARGV[13] the queue key, as the pairing names them
--
-- Returns {0, ''} paired, {1, record} the accepter's key was used (that ticket), {2, ''}
-- no such seek, {3, record} the seek is not waiting (or no seek): it, {4, ''} the seek is
-- of another player or queue than the pairing says, {5, ''} the accepter's id is taken,
-- {6, record} the accepter has a live ticket in the queue already: it.
-- Only the paired case writes.
local seek, id, record = ARGV[4], ARGV[5], ARGV[6]
local match, now = ARGV[8], ARGV[11]
local a = cjson.decode(record)
local before = indexed(IDEM, a.idem)
if before then
  return {1, before}
end
local s = load(seek)
if s == nil then
  return {2, ''}
end
if s.player ~= ARGV[12] or s.queue ~= ARGV[13] then
  return {4, ''}
end
if s.seek ~= '1' or s.state ~= 'waiting' or tonumber(s.expires) <= tonumber(now)
  or redis.call('HEXISTS', PAIRINGS, match) == 1 then
  return {3, cjson.encode(s)}
end
if redis.call('HEXISTS', TICKETS, id) == 1 then
  return {5, ''}
end
local live = indexed(LIVE, a.live)
if live then
  return {6, live}
end
unlist(seek, s)
s.state = 'pairing'
s.match = match
s.seat = ARGV[7]
s.changed = now
save(seek, s)
redis.call('HSET', TICKETS, id, record)
redis.call('HSET', IDEM, a.idem, id)
redis.call('HSET', LIVE, a.live, id)
remember(KEYS[9], id, a)
store_pairing(match, ARGV[9], ARGV[10])
announce(s.player)
announce(a.player)
return {0, ''}
