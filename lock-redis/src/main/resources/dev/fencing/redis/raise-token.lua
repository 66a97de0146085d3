-- KEYS[1] token key; ARGV[1] the token a Redlock grant handed out, ARGV[2] idle expiry in ms or '0'
-- Raises the counter to ARGV[1] unless it is already there or above, so the next grant on this node
-- goes past every token a majority has seen. Returns 1.
-- Compared as decimal strings (length, then digits), never as Lua doubles.
local current = redis.call('GET', KEYS[1]) or '0'
if #current < #ARGV[1] or (#current == #ARGV[1] and current < ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
end
if ARGV[2] ~= '0' then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
