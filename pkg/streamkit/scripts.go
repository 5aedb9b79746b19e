package streamkit

import "github.com/redis/go-redis/v9"

// Each script touches keys of one stage only, which share a hash tag, so
// they run unchanged on Redis Cluster.

// renewScript renews the leases of the entries this consumer still owns:
// XCLAIM to itself with JUSTID (idle time reset, no delivery counted).
// KEYS: stream. ARGV: group, consumer, id, ... Returns 1 per owned id, 0
// per id another consumer owns or nobody does (acked elsewhere).
var renewScript = redis.NewScript(`
local out = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  if #redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1, ARGV[2]) == 1 then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'JUSTID')
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
`)

// retryScript schedules a retry and acks the original in one step, only
// while the consumer still owns the entry: of two consumers that both
// failed it, only the owner schedules one retry.
// KEYS: stream, retry set. ARGV: group, entry id, member, delay ms, consumer.
// Returns 1 if scheduled, 0 if the entry was not this consumer's.
var retryScript = redis.NewScript(`
if #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1, ARGV[5]) == 0 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
return 1
`)

// promoteScript moves due entries of one or more sets (retries, deferrals)
// back onto the stream. Being one script it is atomic: with many promoters
// each entry moves exactly once; one script for every set is one round
// trip per pass, which a crawler promoting every 10 ms makes often.
// KEYS: stream, then the sets. ARGV: max entries per set. Returns the
// number moved and the milliseconds until the next entry left is due (-1:
// the sets are empty), so an idle promoter can wait longer.
var promoteScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local moved, next = 0, -1
for i = 2, #KEYS do
  local due = redis.call('ZRANGEBYSCORE', KEYS[i], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
  for _, member in ipairs(due) do
    if redis.call('ZREM', KEYS[i], member) == 1 then
      local ok, m = pcall(cjson.decode, member)
      if ok and type(m) == 'table' and type(m.f) == 'table' then
        local args = {}
        for k, v in pairs(m.f) do
          args[#args + 1] = k
          args[#args + 1] = tostring(v)
        end
        if #args == 0 then args = {'attempt', '0'} end
        redis.call('XADD', KEYS[1], '*', unpack(args))
        moved = moved + 1
      end
    end
  end
  local first = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  if #first == 2 then
    local wait = math.max(tonumber(first[2]) - now, 0)
    if next < 0 or wait < next then next = wait end
  end
end
return {moved, next}
`)

// deadLetterScript appends a dead letter and acks the original in one
// step, only while the consumer still owns the entry.
// KEYS: stream, dlq. ARGV: group, entry id (or "" for none), consumer,
// field, value, ... Returns 1 if dead-lettered, 0 if not this consumer's.
var deadLetterScript = redis.NewScript(`
if ARGV[2] ~= '' and #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1, ARGV[3]) == 0 then return 0 end
local args = {}
for i = 4, #ARGV do args[#args + 1] = ARGV[i] end
redis.call('XADD', KEYS[2], '*', unpack(args))
if ARGV[2] ~= '' then redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) end
return 1
`)

// replayScript moves one dead letter back onto its stream.
// KEYS: dlq, stream. ARGV: dlq entry id, field, value, ...
var replayScript = redis.NewScript(`
if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
local args = {}
for i = 2, #ARGV do args[#args + 1] = ARGV[i] end
return redis.call('XADD', KEYS[2], '*', unpack(args))
`)
