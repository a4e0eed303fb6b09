-- Records a live bot match after every one added before it (added again: moved last).
--
-- KEYS[1] colosseum:{bots}:matches; KEYS[2] colosseum:{bots}:seq
-- ARGV[1] the member: `<match id> <game> <bot>`
--
-- Returns its position.
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], seq, ARGV[1])
return seq
