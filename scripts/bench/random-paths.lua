-- random-paths.lua: a wrk script that asks for many different paths, one per line of a file.
--
-- Usage: wrk -tT ... -s scripts/bench/random-paths.lua URL -- PATH_FILE [T]
--   PATH_FILE  one path with its query per line, e.g. /lists/transactions/items/42?view=feed
--   T          wrk's thread count (-t), default 2
-- Requests cycle through the file; thread i of T starts at i/T of the way into it.

local thread_count = 0

function setup(thread)
   thread:set("thread_index", thread_count)
   thread_count = thread_count + 1
end

local paths = {}
local next_index = 0

function init(args)
   local file_name = args[1]
   if file_name == nil then
      error("usage: wrk ... -s random-paths.lua URL -- PATH_FILE [T]")
   end
   local file = io.open(file_name, "r")
   if file == nil then
      error("cannot open the path file " .. file_name)
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
   local threads = tonumber(args[2]) or 2
   if threads < 1 then threads = 1 end
   local index = tonumber(thread_index) or 0
   next_index = math.floor(index * #paths / threads) % #paths
end

function request()
   next_index = next_index % #paths + 1
   return wrk.format("GET", paths[next_index])
end
