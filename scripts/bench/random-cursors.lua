-- random-cursors.lua: a wrk script that asks for pages at many different positions.
--
-- Usage: wrk -tT ... -s scripts/bench/random-cursors.lua URL -- CURSOR_FILE PATH [T]
--   CURSOR_FILE  one cursor per line (gathered beforehand, e.g. by scripts/bench-service)
--   PATH         the page path with its query, without the cursor, e.g.
--                /lists/transactions/items?view=feed&limit=20
--   T            wrk's thread count (-t), default 2
-- Every request is PATH&cursor=C, C cycling through the file. Thread i of T starts at
-- i/T of the way into the list, so the threads do not ask for the same pages in step.

local thread_count = 0

-- Runs in the main state once per thread, before the threads start.
function setup(thread)
   thread:set("thread_index", thread_count)
   thread_count = thread_count + 1
end

local cursors = {}
local path = nil
local next_index = 0

-- Runs in each thread's own Lua state.
function init(args)
   local file_name = args[1]
   path = args[2]
   if file_name == nil or path == nil then
      error("usage: wrk ... -s random-cursors.lua URL -- CURSOR_FILE PATH")
   end
   local file = io.open(file_name, "r")
   if file == nil then
      error("cannot open the cursor file " .. file_name)
   end
   for line in file:lines() do
      local cursor = line:match("^%s*(.-)%s*$")
      if cursor ~= "" then
         cursors[#cursors + 1] = cursor
      end
   end
   file:close()
   if #cursors == 0 then
      error("no cursors in " .. file_name)
   end
   local separator = path:find("?", 1, true) and "&" or "?"
   path = path .. separator .. "cursor="
   -- setup() gave this thread its index; the threads spread evenly over the list.
   local threads = tonumber(args[3]) or 2
   if threads < 1 then threads = 1 end
   local index = tonumber(thread_index) or 0
   next_index = math.floor(index * #cursors / threads) % #cursors
end

function request()
   next_index = next_index % #cursors + 1
   return wrk.format("GET", path .. cursors[next_index])
end
