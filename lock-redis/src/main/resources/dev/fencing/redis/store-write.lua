-- KEYS[1] item hash: fields v (value, absent in a tombstone), t (high-water mark), n (version),
--   r (the resource whose tokens fence the key; absent in items written before it was kept)
-- KEYS[2] this write's marker key (same hash slot as KEYS[1]), named by a random write id
-- ARGV[1] token, ARGV[2] '1' for STRICT, ARGV[3] '1' to write a tombstone, ARGV[4] value,
-- ARGV[5] expected version: '*' for any, '' for "absent", else the version loaded,
-- ARGV[6] the marker's time to live in seconds, ARGV[7] the token's resource
-- Returns '0' if written, '-1' if the item changed (version), 'r:' .. resource if the key is fenced
-- by another resource (compared byte for byte), or the mark if the token is stale.
-- Idempotent: a client that re-sends the same call after a lost reply (Lettuce does after a
-- reconnect) finds the marker of its first run and is told '0' without writing a second time.
if redis.call('EXISTS', KEYS[2]) == 1 then
  return '0'
end
-- Tokens and marks stay decimal strings (positive, no leading zeros): Lua numbers are doubles and
-- would call 2^53 and 2^53 + 1 equal, so the comparison is by length, then digit by digit.
local function compare(a, b)
  if #a ~= #b then
    return #a < #b and -1 or 1
  end
  if a == b then
    return 0
  end
  return a < b and -1 or 1
end
local bound = redis.call('HGET', KEYS[1], 'r')
if bound and bound ~= ARGV[7] then
  return 'r:' .. bound
end
local mark = redis.call('HGET', KEYS[1], 't')
if mark then
  local order = compare(ARGV[1], mark)
  if order < 0 or (ARGV[2] == '1' and order == 0) then
    return mark
  end
end
if ARGV[5] ~= '*' then
  local version = redis.call('HGET', KEYS[1], 'n')
  if (version or '') ~= ARGV[5] then
    return '-1'
  end
end
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[1], 'v')
else
  redis.call('HSET', KEYS[1], 'v', ARGV[4])
end
redis.call('HSET', KEYS[1], 't', ARGV[1], 'r', ARGV[7])
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('SET', KEYS[2], '1', 'EX', ARGV[6])
return '0'
