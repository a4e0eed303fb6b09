-- Corrects entries of the deadline index, each only if it still has the score it was read
-- with: an entry that moved meanwhile was written by an arming, and that one stands.
--
-- KEYS[1] colosseum:deadlines
-- ARGV triples: match id, the score it was read with, the new score or '' to remove it
--
-- Returns one flag per triple: 1 corrected, 0 left alone.
local out = {}
for i = 1, #ARGV, 3 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) == tonumber(ARGV[i + 1]) then
    if ARGV[i + 2] == '' then
      redis.call('ZREM', KEYS[1], ARGV[i])
    else
      redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
    end
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
