package redissem

import "github.com/redis/go-redis/v9"

// The Lua scripts. Each runs atomically on the server in one round trip
// (EVALSHA, falling back to EVAL when the server has not cached it yet).
//
// Every script starts with the same prelude. It reads the time from the
// server (TIME), checks the semaphore's recorded size, reaps holders whose
// lease has passed and waiters that stopped polling, and defines grant(),
// which admits queued waiters in ticket order while the head of the queue
// fits. Scripts that free permits call grant() before they return, so a
// waiter is admitted by whichever script first makes room for it.
//
// Keys, all in one hash slot thanks to the {name} tag:
//
//	KEYS[1] meta     hash: size; used (permits held); seq (last ticket);
//	                 queued (waiters); reap (no expiry is earlier, 0: none)
//	KEYS[2] holders  sorted set: grant id -> lease expiry (server ms)
//	KEYS[3] recs     hash: id -> "h n ticket" (a grant of n permits) or
//	                 "w n lease_ms ticket" (a queued request for n)
//	KEYS[4] queue    sorted set: waiter id -> ticket (arrival order)
//	KEYS[5] wexp     sorted set: waiter id -> expiry of its queue entry (server ms)
//
// ARGV[1] is the size the client expects and ARGV[2] the prefix of the
// notification channels; an id is "<handle>/<seq>", and a grant is published
// on ARGV[2]..<handle> as "<id> <ticket>".
//
// The uncontended path is six commands per script (TIME, HMGET of the
// counters, HGET of the request's record, two writes, HSET of the counters):
// the counters live in one hash read and written once, the reaping scans run
// only once the earliest recorded expiry has passed (an expiry pushed back by
// a refresh leaves that bound early, which costs one extra scan), and the
// queue is only looked at when someone waits. Counted with INFO
// commandstats, an uncontended Acquire+Release pair runs 12 commands inside
// its scripts, down from 21 in the first version that scanned on every call;
// server time per script grows with that count.
//
// Numbers are written with string.format('%.0f'): Lua's tostring switches to
// exponent notation past 14 digits, and tickets have 16.
const prelude = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local meta, holders, recs, queue, wexp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local size, chan = tonumber(ARGV[1]), ARGV[2]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function num(x) return string.format('%.0f', x) end

local m = redis.call('HMGET', meta, 'size', 'used', 'seq', 'queued', 'reap')
if not m[1] then
  -- A new semaphore, or one whose data Redis lost: tickets start at the
  -- server's time in microseconds, above every ticket issued before.
  m = {ARGV[1], '0', num(tonumber(clock[1]) * 1000000 + tonumber(clock[2])), '0', '0'}
  redis.call('HSET', meta, 'size', ARGV[1], 'used', 0, 'seq', m[3], 'queued', 0, 'reap', 0)
elseif tonumber(m[1]) ~= size then
  return redis.error_reply('SEMSIZE ' .. m[1])
end
local used, seq, queued, reapAt = tonumber(m[2]) or 0, tonumber(m[3]) or 0, tonumber(m[4]) or 0, tonumber(m[5]) or 0
local used0, seq0, queued0, reapAt0 = used, seq, queued, reapAt

local function save()
  if used ~= used0 or seq ~= seq0 or queued ~= queued0 or reapAt ~= reapAt0 then
    redis.call('HSET', meta, 'used', used, 'seq', num(seq), 'queued', queued, 'reap', num(reapAt))
  end
end

-- expires records that something expires at the given time.
local function expires(at)
  if reapAt == 0 or at < reapAt then reapAt = at end
end

local function unqueue(id)
  if redis.call('ZREM', queue, id) == 1 then queued = queued - 1 end
  redis.call('ZREM', wexp, id)
  redis.call('HDEL', recs, id)
end

-- Holders past their lease and waiters past their entry's expiry are gone.
local function reap()
  local before = '(' .. num(now)
  local gone = redis.call('ZRANGEBYSCORE', holders, '-inf', before)
  for _, id in ipairs(gone) do
    local n = string.match(redis.call('HGET', recs, id) or '', '^h (%d+)')
    if n then used = used - tonumber(n) end
    redis.call('HDEL', recs, id)
  end
  if #gone > 0 then redis.call('ZREMRANGEBYSCORE', holders, '-inf', before) end
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', wexp, '-inf', before)) do
    unqueue(id)
  end
  reapAt = 0
  local h = redis.call('ZRANGE', holders, 0, 0, 'WITHSCORES')
  if #h > 0 then expires(tonumber(h[2])) end
  local w = redis.call('ZRANGE', wexp, 0, 0, 'WITHSCORES')
  if #w > 0 then expires(tonumber(w[2])) end
end

-- Admit waiters in ticket order while the head of the queue fits; a head
-- that does not fit blocks those behind it (FIFO, so no starvation).
local function grant()
  while queued > 0 do
    local head = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')
    if #head == 0 then
      queued = 0
      return
    end
    local id, ticket = head[1], head[2]
    local n, lease = string.match(redis.call('HGET', recs, id) or '', '^w (%d+) (%d+)')
    if not n then
      unqueue(id)
    else
      n = tonumber(n)
      if used + n > size then return end
      unqueue(id)
      local exp = now + tonumber(lease)
      redis.call('ZADD', holders, num(exp), id)
      redis.call('HSET', recs, id, 'h ' .. n .. ' ' .. ticket)
      used = used + n
      expires(exp)
      redis.call('PUBLISH', chan .. string.match(id, '^(.*)/'), id .. ' ' .. ticket)
    end
  end
end

if reapAt > 0 and now >= reapAt then reap() end
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
local r = redis.call('HGET', recs, id)
if r and string.sub(r, 1, 1) == 'h' then
  save()
  return {1, string.match(r, ' (%d+)$')}
end
if r then
  redis.call('ZADD', wexp, num(now + ttl), id)
  expires(now + ttl)
  save()
  return {0}
end
if queued == 0 and used + n <= size then
  seq = seq + 1
  redis.call('ZADD', holders, num(now + lease), id)
  redis.call('HSET', recs, id, 'h ' .. n .. ' ' .. num(seq))
  used = used + n
  expires(now + lease)
  save()
  return {1, num(seq)}
end
if ARGV[6] == 'try' then
  save()
  return {-1}
end
seq = seq + 1
redis.call('ZADD', queue, num(seq), id)
redis.call('ZADD', wexp, num(now + ttl), id)
redis.call('HSET', recs, id, 'w ' .. n .. ' ' .. lease .. ' ' .. num(seq))
queued = queued + 1
expires(now + ttl)
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
  local r = redis.call('HGET', recs, id)
  if not r then
    if keep > 0 then missing[#missing + 1] = id end
  elseif string.sub(r, 1, 1) == 'w' then
    if keep <= 0 then unqueue(id) end
  else
    local n, ticket = string.match(r, '^h (%d+) (%d+)$')
    n = tonumber(n)
    if keep <= 0 then
      used = used - n
      redis.call('HDEL', recs, id)
      redis.call('ZREM', holders, id)
    else
      if keep < n then
        used = used - (n - keep)
        redis.call('HSET', recs, id, 'h ' .. keep .. ' ' .. ticket)
      end
      redis.call('ZADD', holders, num(now + lease), id)
      expires(now + lease)
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
return {size - used, queued}
`)
