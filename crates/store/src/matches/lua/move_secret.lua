-- Moves the seed of a match stored before the secret had a key of its own out of its
-- meta: the seed into the secret hash, the meta's `m` rewritten without it, both or
-- neither. Only if `m` is still the text the caller read (else another replica moved it).
-- KEYS[1] the meta hash, KEYS[2] the secret hash (one Cluster slot: both are {M}'s)
-- ARGV[1] the `m` read, ARGV[2] `m` without the seed, ARGV[3] the seed
-- Returns 1 when moved, 0 when `m` had changed.
if redis.call('HGET', KEYS[1], 'm') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[2], 'seed', ARGV[3])
redis.call('HSET', KEYS[1], 'm', ARGV[2])
return 1
