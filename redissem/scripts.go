package redissem

import "github.com/redis/go-redis/v9"

// The Lua scripts. Each runs atomically on the server in one round trip
// (EVALSHA, falling back to EVAL when the server has not cached it yet).
//
// Every script starts with the same prelude. It reads the time from the
// server (TIME), checks the semaphore's recorded size and that none of its
// keys has gone missing, reaps holders whose lease has passed and waiters
// whose handle stopped refreshing them, and defines grant(), which admits queued waiters in
// ticket order while the head of the queue fits. Scripts that free permits
// call grant() before they return, so a waiter is admitted by whichever
// script first makes room for it.
//
// Keys, all in one hash slot thanks to the {name} tag:
//
//	KEYS[1] meta     hash: size; used (permits held); seq (last ticket or
//	                 token); queued (waiters); qn (permits they ask for); reap (no expiry is earlier,
//	                 0: none); quiet (no grant before this server ms, set
//	                 when the keys were found lost)
//	KEYS[2] holders  sorted set: grant id -> lease expiry (server ms);
//	                 tombstone id -> when it is forgotten (server ms)
//	KEYS[3] recs     hash: id -> "h n token" (a grant of n permits),
//	                 "w n lease_ms" (a queued request for n), "x" (a
//	                 tombstone: the request was withdrawn or released) or
//	                 "e" (a tombstone: a shrink made it larger than the size)
//	KEYS[4] queue    sorted set: waiter id -> ticket (arrival order)
//	KEYS[5] wexp     sorted set: waiter id -> expiry of its queue entry (server ms)
//
// ARGV[1] is the size the client last saw, ARGV[2] the prefix of the
// notification channels, ARGV[3] the handle's lease in ms (for grants and
// queue entries alike), ARGV[4] how long in ms a tombstone lasts (see
// below), ARGV[5] how long in ms an idle name's counters last, and ARGV[6]
// "new" when a missing semaphore may be created (New asks), "idle" when
// the caller holds no grant and sent nothing on the name for that long (it
// may create it too, see below), "" otherwise. An id is "<handle>/<seq>", and a grant is
// published on ARGV[2]..<handle> as "<id> <token>".
//
// Tickets and tokens come from one counter, seq, that every issue moves to
// max(seq + 1, server time in microseconds). Within a history it strictly
// increases; and when Redis forgets its latest writes (a restart from an
// RDB snapshot or an AOF fsynced every second, a replica promoted before it
// received them), the server's clock has moved on, so the rolled-back
// counter jumps above every token issued before. That assumes the server's
// clock never steps back and that seq leads the clock by less than the
// restart takes: it can only lead by the grants issued faster than one per
// microsecond. After a failover it also assumes that the promoted
// replica's clock is not behind the old primary's by more than the
// failover took, unless the replica received every grant reported
// (WithReplicas): then seq alone keeps the order.
//
// A token is drawn when a request is granted, not when it queues, so tokens
// increase in grant order even if a rollback revives an old queue entry.
//
// A request that ends (withdrawn, or its grant released) leaves a tombstone
// for a lease plus the handle's timeout (ARGV[4]): go-redis sends a retry
// within the timeout of its operation, so the retry finds the tombstone
// even when the client's ReadTimeout is longer than the lease. Requests travel on several connections and go-redis retries
// a script whose reply timed out, so a script can reach Redis after the
// one that ended its request: a retried release must find the release done,
// not a lost grant, and an acquire that arrives after its own withdrawal
// must not take permits that nobody would hold. A script that comes later
// than that finds no tombstone; an acquire that late is
// granted, and nobody refreshes the grant, so it expires a lease later.
//
// The counters in meta promise keys: permits in use need holders and recs,
// waiters need queue, wexp and recs. A key missing behind them, or meta
// missing while other keys remain, or meta missing for anyone but New, means
// Redis evicted or lost the semaphore's state (an allkeys-* maxmemory
// policy, a DEL, a restart without the data). Recreating the counters at
// zero would admit others beside holders that still believe they hold, so
// lost() wipes what is left and refuses every grant until each lease handed
// out before could have run out (the latest expiry left in holders, and at
// least the caller's lease from now). Holders learn it at their next
// refresh, which finds their grants gone.
//
// The uncontended path stays short: the counters live in one hash read and
// written once, the reaping scans run only once the earliest recorded
// expiry has passed (an expiry pushed back by a refresh leaves that bound
// early, which costs one extra scan), the queue is only looked at when
// someone waits, and the consistency check is one EXISTS, skipped while
// nothing is held or queued. A script that leaves the name idle, or takes
// it out of idleness, adds the commands that set or clear its keys' TTLs
// (four, or three; see below): an uncontended Acquire and Release pay both.
// Server time per script grows with its command count; INFO commandstats
// counts them.
//
// When Redis is full (used_memory above maxmemory, under noeviction or a
// volatile-* policy with nothing left to evict), it refuses a script's
// first write if that write could grow memory, and lets every later write
// through: it cannot stop a script half-way. The scripts that release,
// refresh, withdraw, resize and report (whenFull) start with a write that
// cannot grow memory, so a full Redis still takes releases and keeps
// leases alive; only a request for new permits (acquireScript) is
// refused, with an OOM error that the client reports as ErrUnavailable.
// The writes that follow are a tombstone, a lease's new expiry and the
// counters: a few dozen bytes per release, given back a lease later.
//
// Redis's TIME is the wall clock of its host, which NTP or an operator may
// step. A step forward would reap holders that refresh on time, a step
// back would stretch leases and tombstones. So the scripts keep their own
// time, now: the server's clock less a skew kept in meta, with the time of
// the last script (last). A script that finds the clock more than a third
// of the caller's lease past last counts only that third and adds the rest
// to skew; one that finds it behind last counts nothing. A holder refreshes
// every third of its lease, so no step can reap it; the cost is that after
// a quiet spell longer than that, dead holders are reaped up to a lease
// later than a wall clock would. Fencing tokens still come from the raw
// clock in microseconds (see above): they need only that it does not
// step back across a restart.
//
// A name nothing holds or waits on is reclaimed: when a script leaves it
// idle, holders and recs (tombstones only, by then) expire with their last
// tombstone, and meta after a day (ARGV[5], or its quiet time if longer);
// the first grant or queued request makes them persist again. A name with
// grants or waiters has no TTL, so volatile-* policies never evict it.
// All keys gone is then what an idle name looks like a day after the last
// script on it, and New, or a handle that holds nothing and sent nothing
// on the name for a day, creates it afresh (with the size it last saw: a
// Resize older than that is forgotten by handles that never heard of it).
// Any other caller that finds the keys gone, in part or all, takes it for
// a loss (lost()): the name cannot have expired since its last script.
// What stays open is a FLUSHALL or a restart without the data followed by
// a New: holders elsewhere learn it at their next refresh.
//
// Numbers are written with string.format('%.0f'): Lua's tostring switches to
// exponent notation past 14 digits, and tokens have 16. They stay exact in
// Lua's doubles up to 2^53, centuries of microseconds away.
const prelude = `
local meta, holders, recs, queue, wexp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local size, chan, lease, tomb, idle = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local clock = redis.call('TIME')
local nowUs = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local function num(x) return string.format('%.0f', x) end

local m = redis.call('HMGET', meta, 'size', 'used', 'seq', 'queued', 'reap', 'quiet', 'qn', 'last', 'skew')

-- now is the semaphore's time: the server's clock less skew, which
-- absorbs its steps. Between two scripts it goes forward by at most a
-- third of the lease, and never back (see the server's clock, above).
local last, skew = tonumber(m[8]) or 0, tonumber(m[9]) or 0
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) - skew
if last > 0 then
  local step = math.floor(lease / 3)
  if now > last + step then
    skew, now = skew + (now - last - step), last + step
  elseif now < last then
    skew, now = skew - (last - now), last
  end
end

-- lost wipes what is left of a semaphore whose state Redis evicted or lost,
-- and refuses grants until every lease given out before has run out. The
-- size stays the recorded one if meta survived, else the caller's, which
-- is the latest it saw (a Resize included).
local function lost()
  local quiet = now + lease
  local latest = redis.call('ZRANGE', holders, -1, -1, 'WITHSCORES')
  if #latest > 0 then quiet = math.max(quiet, tonumber(latest[2])) end
  redis.call('DEL', holders, recs, queue, wexp)
  redis.call('HSET', meta, 'size', m[1] or ARGV[1], 'used', 0, 'seq', 0, 'queued', 0, 'qn', 0, 'reap', 0,
    'quiet', num(quiet), 'last', num(now), 'skew', num(skew))
  return redis.error_reply('SEMLOST ' .. num(quiet - now))
end

if not m[1] then
  if (ARGV[6] ~= 'new' and ARGV[6] ~= 'idle') or redis.call('EXISTS', holders, recs, queue, wexp) > 0 then
    return lost()
  end
  m = {ARGV[1], '0', '0', '0', '0', '0', '0'}
  redis.call('HSET', meta, 'size', ARGV[1], 'used', 0, 'seq', 0, 'queued', 0, 'qn', 0, 'reap', 0)
elseif ARGV[6] == 'new' and tonumber(m[1]) ~= size then
  return redis.error_reply('SEMSIZE ' .. m[1])
end
size = tonumber(m[1]) -- as recorded: a Resize may have changed it since New
local used, seq, queued, reapAt = tonumber(m[2]) or 0, tonumber(m[3]) or 0, tonumber(m[4]) or 0, tonumber(m[5]) or 0
local quiet, qn = tonumber(m[6]) or 0, tonumber(m[7]) or 0
local idle0 = used == 0 and queued == 0

local need = {}
if used > 0 then need = {holders, recs} end
if queued > 0 then
  need[#need + 1] = queue
  need[#need + 1] = wexp
  if used == 0 then need[#need + 1] = recs end
end
if #need > 0 and redis.call('EXISTS', unpack(need)) < #need then return lost() end

local function save()
  redis.call('HSET', meta, 'used', used, 'seq', num(seq), 'queued', queued, 'qn', qn, 'reap', num(reapAt),
    'last', num(now), 'skew', num(skew))
  if used == 0 and queued == 0 then
    -- Idle: holders and recs hold only tombstones, which may go with the
    -- last of them; meta after idle, not before the quiet time.
    local ttl = 1
    local latest = redis.call('ZRANGE', holders, -1, -1, 'WITHSCORES')
    if #latest > 0 then ttl = math.max(ttl, tonumber(latest[2]) - now) end
    redis.call('PEXPIRE', holders, num(ttl))
    redis.call('PEXPIRE', recs, num(ttl))
    redis.call('PEXPIRE', meta, num(math.max(idle, ttl, quiet - now)))
  elseif idle0 then
    redis.call('PERSIST', holders)
    redis.call('PERSIST', recs)
    redis.call('PERSIST', meta)
  end
end

-- ticket returns the next ticket or token: above the last one, and above
-- every one issued before a rollback of the data.
local function ticket()
  seq = math.max(seq + 1, nowUs)
  return seq
end

-- expires records that something expires at the given time.
local function expires(at)
  if reapAt == 0 or at < reapAt then reapAt = at end
end

-- bury leaves a tombstone for an ended request (see above): 'x' for one
-- withdrawn or released, 'e' for one a shrink made impossible.
local function bury(id, mark)
  redis.call('HSET', recs, id, mark)
  redis.call('ZADD', holders, num(now + tomb), id)
  expires(now + tomb)
end

local function unqueue(id)
  if redis.call('ZREM', queue, id) == 1 then
    queued = queued - 1
    qn = qn - (tonumber(string.match(redis.call('HGET', recs, id) or '', '^w (%d+)')) or 0)
  end
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

-- refuse fails a queued request that a shrink made larger than the size:
-- its waiter is told (any payload but a token makes it ask again) and
-- finds the tombstone.
local function refuse(id)
  unqueue(id)
  bury(id, 'e')
  redis.pcall('PUBLISH', chan .. string.match(id, '^(.*)/'), id .. ' exceeds')
end

-- Admit waiters in ticket order while the head of the queue fits; a head
-- that does not fit blocks those behind it (FIFO, so no starvation).
local function grant()
  while queued > 0 do
    local head = redis.call('ZRANGE', queue, 0, 0)
    if #head == 0 then
      queued, qn = 0, 0
      return
    end
    local id = head[1]
    local n, ttl = string.match(redis.call('HGET', recs, id) or '', '^w (%d+) (%d+)')
    if not n then
      unqueue(id)
    elseif tonumber(n) > size then
      refuse(id)
    else
      n = tonumber(n)
      if used + n > size then return end
      unqueue(id)
      local exp, token = now + tonumber(ttl), num(ticket())
      redis.call('ZADD', holders, num(exp), id)
      redis.call('HSET', recs, id, 'h ' .. n .. ' ' .. token)
      used = used + n
      expires(exp)
      -- pcall: a PUBLISH that fails (an ACL without the channel) must not
      -- abort the script after its writes; the waiter's handle finds the
      -- grant when it next refreshes the entry.
      redis.pcall('PUBLISH', chan .. string.match(id, '^(.*)/'), id .. ' ' .. token)
    end
  end
end

if reapAt > 0 and now >= reapAt then reap() end
`

// replicate asks Redis 3.2 and 4 to replicate the scripts' effects, not
// the scripts, which read TIME; later versions always do.
const replicate = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
`

// whenFull makes a script's first write one that cannot grow memory (an
// HDEL of a field that never exists), so that a full Redis runs the script
// (see above).
const whenFull = `
redis.call('HDEL', KEYS[1], 'none')
`

// acquireScript asks for permits, or polls a request already made: it is
// idempotent in its id, so a retried call never takes permits twice.
//
// ARGV[7] id, ARGV[8] n, ARGV[9] "try" or "wait".
// Returns {code, token, size}, size being the semaphore's: code 1 when the
// id holds its permits (with their token), 0 when it is queued (its
// entry's expiry pushed back), -1 when a "try" was refused, -2 when the
// request was withdrawn already, -3 when n exceeds the size (the request
// was refused, or a shrink failed it). While
// grants are refused after a loss of the keys, it fails with SEMLOST and
// the milliseconds left.
var acquireScript = redis.NewScript(replicate + prelude + `
local id, n = ARGV[7], tonumber(ARGV[8])
if quiet > now then
  save()
  return redis.error_reply('SEMLOST ' .. num(quiet - now))
end
grant()
local r = redis.call('HGET', recs, id)
if r == 'x' then
  save()
  return {-2, 0, size}
end
if r == 'e' or (not r and n > size) then
  save()
  return {-3, 0, size}
end
if r and string.sub(r, 1, 1) == 'h' then
  save()
  return {1, string.match(r, ' (%d+)$'), size}
end
if r then
  redis.call('ZADD', wexp, num(now + lease), id)
  expires(now + lease)
  save()
  return {0, 0, size}
end
if queued == 0 and used + n <= size then
  local token = num(ticket())
  redis.call('ZADD', holders, num(now + lease), id)
  redis.call('HSET', recs, id, 'h ' .. n .. ' ' .. token)
  used = used + n
  expires(now + lease)
  save()
  return {1, token, size}
end
if ARGV[9] == 'try' then
  save()
  return {-1, 0, size}
end
redis.call('ZADD', queue, num(ticket()), id)
redis.call('ZADD', wexp, num(now + lease), id)
redis.call('HSET', recs, id, 'w ' .. n .. ' ' .. lease)
queued, qn = queued + 1, qn + n
expires(now + lease)
save()
return {0, 0, size}
`)

// updateScript releases and refreshes grants, and withdraws requests. It is
// idempotent and commutative: a grant's count only ever goes down to the
// given value.
//
// From ARGV[7], pairs: id, permits the client still holds under it. More
// than 0 pushes the grant's lease back (and lowers its count if less);
// 0 releases the grant, or withdraws the request from the queue, and is
// silent if Redis does not know the id (a withdrawal of a request that may
// not have arrived yet); -1 releases too, but reports an id Redis does not
// know. Either leaves a tombstone, so a retry finds the release done. -2
// is a waiter's request: its queue entry's expiry is pushed back.
// Returns {missing, granted}: the ids given with a count other than 0 that
// Redis does not know (their lease expired, or Redis lost them; for a
// waiter, its entry), and id, token pairs of the waiters given that are
// granted. Whoever now fits at the head of the queue is
// admitted.
var updateScript = redis.NewScript(replicate + whenFull + prelude + `
local missing = {}
local waiting = {}
for i = 7, #ARGV, 2 do
  local id, keep = ARGV[i], tonumber(ARGV[i + 1])
  local r = redis.call('HGET', recs, id)
  if keep == -2 then
    waiting[#waiting + 1] = id
    if r and string.sub(r, 1, 1) == 'w' then
      redis.call('ZADD', wexp, num(now + lease), id)
      expires(now + lease)
    end
  elseif not r then
    if keep ~= 0 then missing[#missing + 1] = id else bury(id, 'x') end
  elseif r == 'x' then
    -- This handle ended it already: a partial release that arrives after
    -- the release of the rest (they travel on different connections) is
    -- no loss; a refresh never names an ended grant.
  elseif r == 'e' then
    if keep > 0 then missing[#missing + 1] = id end
  elseif string.sub(r, 1, 1) == 'w' then
    if keep <= 0 then
      unqueue(id)
      bury(id, 'x')
    end
  else
    local n, token = string.match(r, '^h (%d+) (%d+)$')
    n = tonumber(n)
    if keep <= 0 then
      used = used - n
      bury(id, 'x')
    else
      if keep < n then
        used = used - (n - keep)
        redis.call('HSET', recs, id, 'h ' .. keep .. ' ' .. token)
      end
      redis.call('ZADD', holders, num(now + lease), id)
      expires(now + lease)
    end
  end
end
grant()
save()
local granted = {}
for _, id in ipairs(waiting) do
  local r = redis.call('HGET', recs, id)
  if r and string.sub(r, 1, 1) == 'h' then
    granted[#granted + 1] = id
    granted[#granted + 1] = string.match(r, ' (%d+)$')
  elseif not r or r == 'x' or r == 'e' then
    missing[#missing + 1] = id
  end
end
return {missing, granted, size}
`)

// infoScript records the size if the semaphore is new and reports
// {free permits, queued waiters, permits they ask for}.
var infoScript = redis.NewScript(replicate + whenFull + prelude + `
grant()
save()
return {size - used, queued, qn, size}
`)

// resizeScript sets the size to ARGV[7]. Growing admits the waiters that
// now fit; shrinking revokes no grant (none is admitted until fewer than
// the new size are held) and fails every queued request larger than the
// new size. Returns what infoScript does.
var resizeScript = redis.NewScript(replicate + whenFull + prelude + `
size = tonumber(ARGV[7])
redis.call('HSET', meta, 'size', size)
for _, id in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
  local n = tonumber(string.match(redis.call('HGET', recs, id) or '', '^w (%d+)'))
  if n and n > size then refuse(id) end
end
grant()
save()
return {size - used, queued, qn, size}
`)
