-- Shared by the platform's stream scripts: a results stream's entries have the explicit
-- ids `<seq>-1` (seq dense from 1), so its last sequence number is its last entry's.
local function last_seq(key)
  local r = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #r == 0 then return 0 end
  return tonumber(string.match(r[1][1], '^(%d+)'))
end

-- Appends ARGV[from..to] to the stream `key` after sequence number `seq`; answers the last.
local function push(key, seq, from, to)
  for i = from, to do
    seq = seq + 1
    redis.call('XADD', key, seq .. '-1', 'f', ARGV[i])
  end
  return seq
end
