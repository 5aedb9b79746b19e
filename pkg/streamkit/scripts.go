package streamkit

import "github.com/redis/go-redis/v9"

// Each script touches keys of one stage only, which share a hash tag, so
// they run unchanged on Redis Cluster.

// retryScript schedules a retry and acks the original in one step.
// KEYS: stream, retry set. ARGV: group, entry id, member, delay ms.
var retryScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
return redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
`)

// promoteScript moves due retries back onto the stream. Being one script it
// is atomic: with many promoters each entry moves exactly once.
// KEYS: retry set, stream. ARGV: max entries. Returns the number moved.
var promoteScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local moved = 0
for _, member in ipairs(due) do
  if redis.call('ZREM', KEYS[1], member) == 1 then
    local ok, m = pcall(cjson.decode, member)
    if ok and type(m) == 'table' and type(m.f) == 'table' then
      local args = {}
      for k, v in pairs(m.f) do
        args[#args + 1] = k
        args[#args + 1] = tostring(v)
      end
      if #args == 0 then args = {'attempt', '0'} end
      redis.call('XADD', KEYS[2], '*', unpack(args))
      moved = moved + 1
    end
  end
end
return moved
`)

// deadLetterScript appends a dead letter and acks the original in one step.
// KEYS: stream, dlq. ARGV: group, entry id (or "" for none), field, value, ...
var deadLetterScript = redis.NewScript(`
local args = {}
for i = 3, #ARGV do args[#args + 1] = ARGV[i] end
local id = redis.call('XADD', KEYS[2], '*', unpack(args))
if ARGV[2] ~= '' then redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) end
return id
`)

// replayScript moves one dead letter back onto its stream.
// KEYS: dlq, stream. ARGV: dlq entry id, field, value, ...
var replayScript = redis.NewScript(`
if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
local args = {}
for i = 2, #ARGV do args[#args + 1] = ARGV[i] end
return redis.call('XADD', KEYS[2], '*', unpack(args))
`)
