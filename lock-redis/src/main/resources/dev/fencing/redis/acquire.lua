-- KEYS[1] lock key, KEYS[2] token key (same hash slot)
-- ARGV[1] owner id, ARGV[2] ttl in ms, ARGV[3] '1' to take every token from max(counter + 1, TIME in µs),
-- ARGV[4] idle expiry of the token key in ms ('0' for none); optional (Redlock): ARGV[5] a clock
-- reading in µs the client proposes to every node of the round, ARGV[6] how far in µs it may be
-- from this server's TIME to be used instead of it
-- Returns the new token (the same one again if this owner id already took it), 0 if the lock is
-- held, or an error (nothing written) if the counter is not a decimal number of at most 2^53 - 1:
-- Lua numbers are doubles and would round it.
local counter = redis.call('GET', KEYS[2])
if counter and (not string.match(counter, '^[0-9]+$') or #counter > 16
    or (#counter == 16 and counter > '9007199254740991')) then
  return redis.error_reply('FENCING token counter ' .. KEYS[2] .. ' holds ' .. counter
      .. ', above 2^53 - 1 (9007199254740991) or not a number: tokens would lose precision; nothing was taken')
end
local holder = redis.call('GET', KEYS[1])
if holder then
  if holder == ARGV[1] and counter then
    -- this attempt's own script, run again (a client that resent it after a reconnect): the grant
    -- stands with the token it took; the lock's expiry is left as the first run set it
    return tonumber(counter)
  end
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local token = tonumber(counter or '0') + 1
if ARGV[3] == '1' then
  -- the counter may have come back old (a restart from an older snapshot or AOF, a failover to a
  -- replica that missed writes, the idle expiry): the server clock in microseconds is above every
  -- token issued before, while the clock has not gone back and grants stay below one per µs
  local now = redis.call('TIME')
  local micros = tonumber(now[1]) * 1000000 + tonumber(now[2])
  if ARGV[5] then
    -- one reading shared by the whole Redlock round, so that nodes whose counters are in step
    -- answer the same token and no write-back round is needed; used only while it is within the
    -- tolerance of this server's clock, so the floor stays above TIME minus the tolerance
    local proposed = tonumber(ARGV[5])
    if math.abs(proposed - micros) <= tonumber(ARGV[6]) then
      micros = proposed
    end
  end
  if micros > token then
    token = micros
  end
end
if ARGV[4] ~= '0' then
  redis.call('SET', KEYS[2], string.format('%d', token), 'PX', ARGV[4]) -- one call for the value and its idle expiry
else
  redis.call('SET', KEYS[2], string.format('%d', token))
end
return token
