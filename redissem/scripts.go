package redissem

import "github.com/redis/go-redis/v9"

// The Lua scripts. Each runs atomically on the server in one round trip
// (EVALSHA, falling back to EVAL when the server has not cached it yet).
//
// Every script starts with the same prelude. It reads the time from the
// server (TIME), checks the semaphore's recorded size, reaps holders whose
// lease has passed and waiters that stopped polling, and defines grant(),
// which admits queued waiters in ticket order while the head of the queue
// fits. Scripts that free permits or reap call grant() before they return,
// so a waiter is admitted by whichever script first makes room for it.
//
// Keys, all in one hash slot thanks to the {name} tag:
//
//	KEYS[1] meta     hash: size, used (permits held), seq (ticket counter)
//	KEYS[2] holders  sorted set: grant id -> lease expiry (server ms)
//	KEYS[3] grants   hash: grant id -> "n ticket" (permits held, fencing token)
//	KEYS[4] queue    sorted set: waiter id -> ticket (arrival order)
//	KEYS[5] wexp     sorted set: waiter id -> expiry of its queue entry (server ms)
//	KEYS[6] wants    hash: waiter id -> "n lease_ms"
//
// ARGV[1] is the size the client expects and ARGV[2] the prefix of the
// notification channels; an id is "<handle>/<seq>", and a grant is published
// on ARGV[2]..<handle> as "<id> <ticket>".
//
// Numbers are written with string.format('%.0f'): Lua's tostring switches to
// exponent notation past 14 digits, and tickets have 16.
const prelude = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local meta, holders, grants, queue, wexp, wants = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local size, chan = tonumber(ARGV[1]), ARGV[2]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function num(x) return string.format('%.0f', x) end

local rec = redis.call('HMGET', meta, 'size', 'used')
if not rec[1] then
  -- A new semaphore, or one whose data Redis lost: tickets start at the
  -- server's time in microseconds, above every ticket issued before.
  redis.call('HSET', meta, 'size', ARGV[1], 'used', 0,
    'seq', num(tonumber(clock[1]) * 1000000 + tonumber(clock[2])))
  rec = {ARGV[1], '0'}
elseif tonumber(rec[1]) ~= size then
  return redis.error_reply('SEMSIZE ' .. rec[1])
end
local used0 = tonumber(rec[2])
local used = used0

local function save()
  if used ~= used0 then redis.call('HSET', meta, 'used', used) end
end

local function weight(g) return tonumber(string.match(g, '^(%d+)')) end

-- Holders past their lease and waiters past their entry's expiry are gone.
local function reap()
  local before = '(' .. num(now)
  local gone = redis.call('ZRANGEBYSCORE', holders, '-inf', before)
  for _, id in ipairs(gone) do
    local g = redis.call('HGET', grants, id)
    if g then used = used - weight(g) end
    redis.call('HDEL', grants, id)
  end
  if #gone > 0 then redis.call('ZREMRANGEBYSCORE', holders, '-inf', before) end
  local lost = redis.call('ZRANGEBYSCORE', wexp, '-inf', before)
  for _, id in ipairs(lost) do
    redis.call('ZREM', queue, id)
    redis.call('HDEL', wants, id)
  end
  if #lost > 0 then redis.call('ZREMRANGEBYSCORE', wexp, '-inf', before) end
end

local function unqueue(id)
  redis.call('ZREM', queue, id)
  redis.call('ZREM', wexp, id)
  redis.call('HDEL', wants, id)
end

-- Admit waiters in ticket order while the head of the queue fits; a head
-- that does not fit blocks those behind it (FIFO, so no starvation).
local function grant()
  while true do
    local head = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')
    if #head == 0 then return end
    local id, ticket = head[1], head[2]
    local n, lease = string.match(redis.call('HGET', wants, id) or '', '^(%d+) (%d+)$')
    if not n then
      unqueue(id)
    else
      n = tonumber(n)
      if used + n > size then return end
      unqueue(id)
      redis.call('ZADD', holders, num(now + tonumber(lease)), id)
      redis.call('HSET', grants, id, n .. ' ' .. ticket)
      used = used + n
      redis.call('PUBLISH', chan .. string.match(id, '^(.*)/'), id .. ' ' .. ticket)
    end
  end
end

reap()
`

// acquireScript asks for permits, or polls a request already made: it is
// idempotent in its id, so a retried call never takes permits twice.
//
// ARGV[3] id, ARGV[4] n, ARGV[5] lease ms, ARGV[6] "try" or "wait",
// ARGV[7] waiter entry ttl ms.
// Returns {1, ticket} when the id holds its permits, {0} when it is queued
// (its entry's expiry pushed back), {-1} when a "try" was refused.
var acquireScript = redis.NewScript(prelude + `
local id, n, lease, ttl = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[7])
grant()
local g = redis.call('HGET', grants, id)
if g then
  save()
  return {1, string.match(g, ' (%d+)$')}
end
if redis.call('ZSCORE', queue, id) then
  redis.call('ZADD', wexp, num(now + ttl), id)
  save()
  return {0}
end
if redis.call('ZCARD', queue) == 0 and used + n <= size then
  local ticket = num(redis.call('HINCRBY', meta, 'seq', 1))
  redis.call('ZADD', holders, num(now + lease), id)
  redis.call('HSET', grants, id, n .. ' ' .. ticket)
  used = used + n
  save()
  return {1, ticket}
end
if ARGV[6] == 'try' then
  save()
  return {-1}
end
local ticket = num(redis.call('HINCRBY', meta, 'seq', 1))
redis.call('ZADD', queue, ticket, id)
redis.call('ZADD', wexp, num(now + ttl), id)
redis.call('HSET', wants, id, n .. ' ' .. lease)
save()
return {0}
`)

// updateScript releases and refreshes grants, and withdraws requests. It is
// idempotent and commutative: a grant's count only ever goes down to the
// given value.
//
// ARGV[3] lease ms, then pairs: id, permits the client still holds under it.
// 0 releases the grant, or withdraws the request from the queue if it was
// not granted; more pushes the grant's lease back. Whoever now fits at the
// head of the queue is admitted.
// Returns the ids the client still holds that Redis no longer knows: their
// lease expired, or Redis lost its data.
var updateScript = redis.NewScript(prelude + `
local lease = tonumber(ARGV[3])
local missing = {}
for i = 4, #ARGV, 2 do
  local id, keep = ARGV[i], tonumber(ARGV[i + 1])
  local g = redis.call('HGET', grants, id)
  if not g then
    if keep > 0 then
      missing[#missing + 1] = id
    elseif redis.call('ZSCORE', queue, id) then
      unqueue(id)
    end
  else
    local n, ticket = string.match(g, '^(%d+) (%d+)$')
    n = tonumber(n)
    if keep <= 0 then
      used = used - n
      redis.call('HDEL', grants, id)
      redis.call('ZREM', holders, id)
    else
      if keep < n then
        used = used - (n - keep)
        redis.call('HSET', grants, id, keep .. ' ' .. ticket)
      end
      redis.call('ZADD', holders, num(now + lease), id)
    end
  end
end
grant()
save()
return missing
`)

// infoScript records the size if the semaphore is new and reports
// {free permits, queued waiters}.
var infoScript = redis.NewScript(prelude + `
grant()
save()
return {size - used, redis.call('ZCARD', queue)}
`)
