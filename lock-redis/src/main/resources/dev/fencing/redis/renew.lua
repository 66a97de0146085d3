-- KEYS[1] lock key, KEYS[2] token key; ARGV[1] owner id, ARGV[2] ttl in ms, ARGV[3] token idle expiry in ms or '0'
-- Returns 1 if the owner held the lock and it was extended, else 0.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if ARGV[3] ~= '0' then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return 1
