-- KEYS[1] lock key, KEYS[2] token key (same hash slot)
-- ARGV[1] owner id, ARGV[2] ttl in ms, ARGV[3] '1' to seed a missing token key from TIME,
-- ARGV[4] idle expiry of the token key in ms ('0' for none)
-- Returns the new token, or 0 if the lock is held.
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 0
end
local token = redis.call('INCR', KEYS[2])
if token == 1 and ARGV[3] == '1' then
  -- the counter was missing (fresh server, restart without persistence, lossy failover, idle
  -- expiry): restart it from the server clock in microseconds, above every token issued before
  local now = redis.call('TIME')
  token = tonumber(now[1]) * 1000000 + tonumber(now[2])
  redis.call('SET', KEYS[2], string.format('%d', token))
end
if ARGV[4] ~= '0' then
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
return token
