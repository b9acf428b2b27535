"""The explorer's live stream and its waits, checked by scripts/check-explorer (review 100):
the event stream read at every line end (a CR LF pair split across chunks), its `retry:`
and its silence; a dropped stream resumed within the version it was cut in; a change that
cannot be read; a live reload the server puts off; and `Retry-After` on a next page and on
opening a list."""

import json
import time

from selenium.webdriver.common.by import By

from explorer_browser import (CheckFailed, api, mark_rows, problem_text, rows_replaced, scroll_to_loading, trap,
                              untrap, wait_for)
from explorer_edges import check_edges, rows

# Reads the event stream module against bodies made in the page.
STREAM_READER = """
const done = arguments[arguments.length - 1];
import('/explorer/stream.js').then(async ({ readEvents }) => {
  const chunks = ['id: 7\\r', '\\nretry: 1234\\r', '\\ndata: a\\r', '\\ndata: b\\r\\n', '\\r\\n', ': beat\\r\\n\\r\\n',
                  'id: 8\\rdata: c\\r\\r'];
  const encoder = new TextEncoder();
  const body = new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(encoder.encode(x)); c.close(); } });
  const events = [];
  let retry = null;
  await readEvents(body, (e) => events.push(e), { onRetry: (ms) => { retry = ms; } });
  let silent = '';
  try {
    await readEvents(new ReadableStream({ start() {} }), () => {}, { silence: 300 });
  } catch (error) {
    silent = error.message;
  }
  done({ events, retry, silent });
}).catch((error) => done({ error: String(error) }));
"""

# Answers the page's `/events` requests from a script: `streams(n, from)` gives the text of
# the n-th stream (1-based) opened with `Last-Event-ID: from`, and whether it ends there
# (`window.checkStreamControllers` holds each stream's, to send more); requests of `busy` (a
# URL part) answer 503 with `Retry-After: 2` while `window.checkBusy`.
SCRIPTED_STREAMS = """
const [script, busy] = arguments;
const streams = new Function('n', 'from', script);
if (!window.checkRealFetch) window.checkRealFetch = window.fetch;
window.checkStreams = [];
window.checkStreamTimes = [];
window.checkStreamControllers = [];
window.checkBusy = false;
window.fetch = async (url, options) => {
  if (busy && window.checkBusy && String(url).includes(busy) && !String(url).includes('/events')) {
    const problem = { type: '/problems/not-ready', title: 'Not ready', status: 503, detail: 'Busy for the check.' };
    return new Response(JSON.stringify(problem),
                        { status: 503, headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '2' } });
  }
  if (!String(url).includes('/events')) return window.checkRealFetch(url, options);
  const from = new Headers((options && options.headers) || {}).get('Last-Event-ID');
  window.checkStreams.push(from);
  window.checkStreamTimes.push(Date.now());
  const [text, ends] = streams(window.checkStreams.length, from);
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    start(c) {
      window.checkStreamControllers.push(c);
      c.enqueue(encoder.encode(text));
      if (ends) c.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
};
"""


def version_now(base):
    return int(api(base, "GET", "/lists/transactions/items?view=feed&limit=1")[1]["version"])


def open_feed(driver, marker):
    driver.execute_script(f"location.hash = '#/lists/transactions?view=feed&_check={marker}';")
    wait_for(driver, "the feed's rows", lambda d: rows(d))


def stream_read_at_every_line_end(driver, base, token, written):
    """an event stream is read at CR LF, CR and LF, also a CR LF pair split across chunks (it
    ended an event early); `retry:` is taken; a stream silent past its heartbeats fails"""
    result = driver.execute_async_script(STREAM_READER)
    expected = [{"id": "7", "type": "message", "data": "a\nb"}, {"id": "8", "type": "message", "data": "c"}]
    if result.get("events") != expected or result.get("retry") != 1234 or "heartbeat" not in result.get("silent", ""):
        raise CheckFailed(f"the stream reader gave {result!r}")


def stream_resumed_within_its_version(driver, base, token, written):
    """a stream cut between two changes of one version (a composite's write is several) is
    resumed from the version before, and the change it had not brought is applied (it was
    lost: review 100 F1)"""
    items = [cell for section in api(base, "GET", "/lists/transactions/items?view=feed&limit=5")[1]["sections"]
             for cell in section["items"]]
    first, second = (dict(items[0]), dict(items[1]))
    first["data"] = dict(first["data"], points=987654)
    second["data"] = dict(second["data"], points=876543)
    version = version_now(base) + 1000
    change = lambda item: json.dumps({"op": "update", "version": str(version), "item": item})
    script = (f"const a = 'id: {version}\\ndata: ' + {json.dumps(change(first))} + '\\n\\n';"
              f"const b = 'id: {version}\\ndata: ' + {json.dumps(change(second))} + '\\n\\n';"
              f"if (n === 1) return [a, true];"
              f"return [Number(from) < {version} ? a + b : '', false];")
    driver.execute_script(SCRIPTED_STREAMS, script, None)
    try:
        open_feed(driver, "resume")
        wait_for(driver, "the second change after the stream was cut",
                 lambda d: "876543" in d.find_element(By.ID, "screen").text, timeout=15)
        streams = driver.execute_script("return window.checkStreams;")
        if len(streams) < 2 or streams[1] != str(version - 1):
            raise CheckFailed(f"the streams opened with Last-Event-ID {streams!r}")
        if driver.find_element(By.ID, "screen").text.count("987654") != 1:
            raise CheckFailed("the first change, sent again, was shown twice")
    finally:
        untrap(driver)


def cut_streams_back_off(driver, base, token, written):
    """a stream cut at once each time, with `retry: 0`, is opened again later and later, not
    in a loop (probe 86: 1,015 streams in 5 s)"""
    driver.execute_script(SCRIPTED_STREAMS, "return ['retry: 0\\n: cut\\n\\n', true];", None)
    try:
        open_feed(driver, "cut")
        time.sleep(6)
        times = driver.execute_script("return window.checkStreamTimes;")
        if not 3 <= len(times) <= 5:
            raise CheckFailed(f"{len(times)} streams opened in 6 s (3 to 5 expected)")
        # Later and later: the second wait is longer than the first (review 102 L11).
        if times[2] - times[1] <= 1.2 * (times[1] - times[0]):
            raise CheckFailed(f"the streams opened at {times!r} ms: the waits do not grow")
    finally:
        untrap(driver)


def unreadable_change_reloads(driver, base, token, written):
    """a change the page cannot read is not skipped: the view is read again, and followed
    from its version (the stream went on past it: review 100 F3)"""
    version = version_now(base) + 1000
    script = f"return n === 1 ? ['id: {version}\\ndata: {{{{\\n\\n', false] : [': open\\n\\n', false];"
    driver.execute_script(SCRIPTED_STREAMS, script, None)
    try:
        open_feed(driver, "unreadable")
        wait_for(driver, "a stream opened again", lambda d: len(d.execute_script("return window.checkStreams;")) > 1)
        streams = driver.execute_script("return window.checkStreams;")
        if streams[1] == str(version):
            raise CheckFailed(f"the stream was resumed past the unreadable change: {streams!r}")
    finally:
        untrap(driver)


def live_reload_put_off_keeps_the_rows(driver, base, token, written):
    """a live reload the server answers 503 keeps the rows read before and is made again
    after its Retry-After (the screen went blank for good: review 100 F2)"""
    version = version_now(base) + 1000
    driver.execute_script(SCRIPTED_STREAMS, "return [': open\\n\\n', false];", "/lists/transactions")
    try:
        open_feed(driver, "put-off")
        wait_for(driver, "the stream", lambda d: d.execute_script("return window.checkStreams.length;") == 1)
        count = len(rows(driver))
        mark_rows(driver)
        driver.execute_script("window.checkBusy = true; window.checkStreamControllers[0].enqueue("
                              f"new TextEncoder().encode('event: reload\\nid: {version}\\ndata: {{}}\\n\\n'));")
        wait_for(driver, "the reload put off", lambda d: "Trying again in 5 s" in problem_text(d))
        time.sleep(1)
        if len(rows(driver)) != count or rows_replaced(driver):
            raise CheckFailed(f"{len(rows(driver))} rows of {count} while the reload was put off")
        driver.execute_script("window.checkBusy = false;")
        wait_for(driver, "the reload made again", lambda d: rows_replaced(d) and not problem_text(d), timeout=15)
    finally:
        untrap(driver)


def next_page_waits_for_retry_after(driver, base, token, written):
    """a next page answered 503 with Retry-After is not asked again before it, however the
    reader scrolls (each scroll asked again: review 100 F5)"""
    open_feed(driver, "retry-after")
    trap(driver, "cursor=", "answer", 503, {"type": "/problems/not-ready", "title": "Not ready", "status": 503,
                                            "detail": "Busy for the check."}, "30")
    try:
        scroll_to_loading(driver)
        wait_for(driver, "the wait the server asked for", lambda d: "Trying again in 30 s" in problem_text(d))
        for _ in range(4):
            driver.execute_script("document.getElementById('screen').scrollTop = 0;")
            time.sleep(0.4)
            scroll_to_loading(driver)
            time.sleep(0.4)
        calls = driver.execute_script("return window.checkCalls;")
        if calls != 1:
            raise CheckFailed(f"the next page was asked for {calls} times within its Retry-After")
    finally:
        untrap(driver)


def opening_waits_for_retry_after(driver, base, token, written):
    """a list the server will not open yet (429 with Retry-After) is opened again by itself
    after the wait, with no button to ask sooner"""
    trap(driver, "/lists/expansions", "answer", 429, {"type": "/problems/too-many-requests",
                                                      "title": "Too many requests", "status": 429,
                                                      "detail": "Slow down."}, "6")
    driver.execute_script("location.hash = '#/lists/expansions?_check=busy';")
    wait_for(driver, "the wait the server asked for", lambda d: "Trying again in 6 s" in problem_text(d))
    if driver.find_elements(By.CSS_SELECTOR, "#problem button"):
        raise CheckFailed("a button offers to ask before the Retry-After")
    untrap(driver)
    wait_for(driver, "the list opened after the wait", lambda d: rows(d) and not problem_text(d), timeout=15)


def try_again_keeps_one_retry(driver, base, token, written):
    """each *Try again* that fails again replaces the retry that waits, not adds a chain of
    its own (review 102 M4: N clicks asked N times every 5 s, for ever)"""
    trap(driver, "/lists/expansions", "answer", 503, {"type": "/problems/not-ready", "title": "Not ready",
                                                      "status": 503, "detail": "Down for the check."})
    try:
        driver.execute_script("location.hash = '#/lists/expansions?_check=again';")
        for _ in range(3):
            button = wait_for(driver, "the button to try again",
                              lambda d: d.find_elements(By.XPATH, "//div[@id='problem']//button[.='Try again']"))[0]
            button.click()
            time.sleep(0.3)
        wait_for(driver, "the problem again", lambda d: "Trying again in 5 s" in problem_text(d))
        driver.execute_script("window.checkCalls = 0;")
        time.sleep(6)
        calls = driver.execute_script("return window.checkCalls;")
        if calls > 2:
            raise CheckFailed(f"{calls} requests in 6 s after three clicks (one retry every 5 s expected)")
    finally:
        untrap(driver)


STEPS = [stream_read_at_every_line_end, stream_resumed_within_its_version, cut_streams_back_off,
         unreadable_change_reloads,
         live_reload_put_off_keeps_the_rows, next_page_waits_for_retry_after, opening_waits_for_retry_after,
         try_again_keeps_one_retry]


def check_stream_edges(base, token):
    check_edges(base, token, STEPS, "check-explorer: the stream and its waits: every line end, a stream resumed"
                " within a version, streams cut at once, an unreadable change, a live reload put off, Retry-After on a next page and"
                " on opening a list, one retry however often the reader tries again")
