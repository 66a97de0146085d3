-- KEYS[1] lock key; ARGV[1] owner id, ARGV[2] the resource's release channel ('' for none), ARGV[3] resource
-- Deletes the lock only if the owner holds it, and announces the release to waiters (PUBLISH to a
-- channel nobody subscribes to costs next to nothing: processes subscribe only while they wait).
-- Returns 1 if released, 0 if another owner (or nobody) held it.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
if ARGV[2] ~= '' then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return 1
