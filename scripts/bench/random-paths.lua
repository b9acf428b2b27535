-- random-paths.lua: a wrk script that asks for many different paths, one per line of a
-- file, so that no cache can serve them all.
--
-- Usage: wrk -tT ... -s scripts/bench/random-paths.lua URL -- FILE [PREFIX] [T]
--   FILE    one path (or the end of one) per line, e.g. /lists/transactions/items/42?view=feed,
--           or cursors gathered beforehand (e.g. by scripts/bench-service)
--   PREFIX  put before every line (default empty), e.g.
--           /lists/transactions/items?view=feed&limit=20&cursor= for a file of cursors
--   T       wrk's thread count (-t), default 2
-- Requests cycle through the file; thread i of T starts at i/T of the way into it, so
-- the threads do not ask for the same paths in step.

local thread_count = 0

-- Runs in the main state once per thread, before the threads start.
function setup(thread)
   thread:set("thread_index", thread_count)
   thread_count = thread_count + 1
end

local paths = {}
local prefix = ""
local next_index = 0

-- Runs in each thread's own Lua state.
function init(args)
   local file_name = args[1]
   if file_name == nil then
      error("usage: wrk ... -s random-paths.lua URL -- FILE [PREFIX] [T]")
   end
   prefix = args[2] or ""
   local file = io.open(file_name, "r")
   if file == nil then
      error("cannot open " .. file_name)
   end
   for line in file:lines() do
      local path = line:match("^%s*(.-)%s*$")
      if path ~= "" then
         paths[#paths + 1] = path
      end
   end
   file:close()
   if #paths == 0 then
      error("no paths in " .. file_name)
   end
   local threads = tonumber(args[3]) or 2
   if threads < 1 then threads = 1 end
   local index = tonumber(thread_index) or 0
   next_index = math.floor(index * #paths / threads) % #paths
end

function request()
   next_index = next_index % #paths + 1
   return wrk.format("GET", prefix .. paths[next_index])
end
