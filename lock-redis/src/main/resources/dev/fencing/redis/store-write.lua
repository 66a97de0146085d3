-- KEYS[1] item hash: fields v (value, absent in a tombstone), t (high-water mark), n (version)
-- ARGV[1] token, ARGV[2] '1' for STRICT, ARGV[3] '1' to write a tombstone, ARGV[4] value,
-- ARGV[5] expected version: '*' for any, '' for "absent", else the version loaded
-- Returns 0 if written, -1 if the item changed (version), or the mark (> 0) if the token is stale.
local mark = tonumber(redis.call('HGET', KEYS[1], 't'))
local token = tonumber(ARGV[1])
if mark and (token < mark or (ARGV[2] == '1' and token == mark)) then
  return mark
end
if ARGV[5] ~= '*' then
  local version = redis.call('HGET', KEYS[1], 'n')
  if (version or '') ~= ARGV[5] then
    return -1
  end
end
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[1], 'v')
else
  redis.call('HSET', KEYS[1], 'v', ARGV[4])
end
redis.call('HSET', KEYS[1], 't', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'n', 1)
return 0
