"""What a reader of the explorer meets beyond the paging, checked by scripts/check-explorer:
values written to mislead (a right-to-left override, an id of 900 characters), live changes
above what the reader looks at, a token asked for on a deep link, an item that is not in
the view, a view emptied live, a next page the server refuses, and a page size or a page's
cursor in the address."""

import time
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from explorer_browser import CheckFailed, api, browser_errors, problem_text, scroll_to_loading, trap, untrap, wait_for
from explorer_edges import check_edges, row_with, rows, shown, transaction
from explorer_gap_edges import far_item_is_not_put_beside, gap_at_the_bottom_keeps_order, gap_at_the_top_is_read

UNAUTHORIZED = {"type": "/problems/unauthorized", "title": "Unauthorized", "status": 401,
                "detail": "Reads need a token."}

# The first row whose top is in sight, and its offset below the screen's top.
IN_SIGHT = """
const screen = document.getElementById('screen');
const top = screen.getBoundingClientRect().top;
for (const row of screen.querySelectorAll('section[data-kind="items"] .row')) {
  const offset = row.getBoundingClientRect().top - top;
  if (offset >= 0) return [row.dataset.id, offset];
}
return null;
"""

OFFSET_OF = """
const screen = document.getElementById('screen');
const row = Array.from(screen.querySelectorAll('section[data-kind="items"] .row')).find((r) => r.dataset.id === arguments[0]);
return row ? row.getBoundingClientRect().top - screen.getBoundingClientRect().top : null;
"""


def isolated_values(driver, base, token, written):
    """a right-to-left override in one value does not reorder the others"""
    item = transaction(base, token, "\u202eRTL\u200b", 10 ** 9, "2020-01-03T00:00:00Z")
    written.append(item)
    driver.execute_script(f"location.hash = '#/lists/transactions?around={item}';")
    row = wait_for(driver, "the written row", lambda d: row_with(d, item))
    values = row.find_elements(By.CSS_SELECTOR, ".summary bdi")
    texts = [value.get_attribute("textContent") for value in values]
    if "1000000000" not in texts or "\u202eRTL\u200b" not in texts:
        raise CheckFailed(f"each value is not isolated in its own <bdi>: {texts!r}")
    if row.find_element(By.CSS_SELECTOR, ".id").tag_name != "bdi":
        raise CheckFailed("the row's id is not isolated")


def long_values_fit(driver, base, token, written):
    """an id or section title of 900 characters does not widen the list"""
    player = "w" * 900
    written.append(transaction(base, token, player, 10 ** 9 + 1, "2020-01-03T00:00:00Z"))
    for hash_, item in (("#/lists/highscore", player), (f"#/lists/transactions?view=by_player&around={written[-1]}",
                                                         written[-1])):
        driver.execute_script(f"location.hash = '{hash_}';")
        wait_for(driver, f"the long row of {hash_}", lambda d: row_with(d, item))
        wide = driver.execute_script("const s = document.getElementById('screen'); return s.scrollWidth - s.clientWidth;")
        if wide > 1:
            raise CheckFailed(f"{hash_}: the list is {wide} px wider than the screen")


def live_changes_keep_place(driver, base, token, written):
    """rows put and taken above the rows in sight do not move them"""
    driver.execute_script("location.hash = '#/lists/transactions';")
    wait_for(driver, "the list live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    driver.execute_script("document.getElementById('screen').scrollTop = 300;")
    time.sleep(0.3)
    seen, offset = driver.execute_script(IN_SIGHT)
    above = [transaction(base, token, f"above-{n}", 1, "2099-01-01T00:00:0{n}Z") for n in range(3)]
    written.extend(above)
    wait_for(driver, "the new rows above", lambda d: all(row_with(d, item) for item in above))
    moved = driver.execute_script(OFFSET_OF, seen)
    if moved is None or abs(moved - offset) > 2:
        raise CheckFailed(f"the row in sight moved from {offset} to {moved} px below the top as rows came above it")
    status = driver.execute_script("const s = document.getElementById('live-status'); return s && s.textContent;")
    if status != "live":
        raise CheckFailed(f"the screen reader's status says {status!r} after the changes (not once: live)")
    for item in above:
        api(base, "DELETE", "/lists/transactions/items/" + item, token=token)
    wait_for(driver, "the rows above gone", lambda d: not any(row_with(d, item) for item in above))
    moved = driver.execute_script(OFFSET_OF, seen)
    if moved is None or abs(moved - offset) > 2:
        raise CheckFailed(f"the row in sight moved from {offset} to {moved} px below the top as rows above went")


ID_SHOWN = (
    "const r = Array.from(document.querySelectorAll('#screen section[data-kind=\"items\"] .row'))"
    ".find((r) => r.dataset.id === arguments[0]); const i = r && r.querySelector('.id');"
    " return i ? [i.innerText] : null;"
)


def typed_values_as_they_are(driver, base, token, written):
    """the form opens at an id, and with a parameter value, as typed: spaces and all"""
    player = " padded "
    written.append(transaction(base, token, player, 10 ** 9 + 2, "2020-01-03T00:00:00Z"))
    driver.execute_script("location.hash = '#/lists/highscore';")
    wait_for(driver, "the high scores", lambda d: rows(d))
    field = driver.find_element(By.ID, "around")
    field.clear()
    field.send_keys(player)
    field.send_keys(Keys.ENTER)
    # The row and its id read in one script: the list's reload after the write may draw its
    # rows again between two reads (a row found, then gone from the page).
    found = wait_for(driver, "the row of the id typed",
                     lambda d: d.execute_script(ID_SHOWN, player) or "Unknown item" in problem_text(d))
    if found is True:
        raise CheckFailed(f"opening at {player!r} says {problem_text(driver)!r}")
    shown_id = found[0]
    if shown_id != player:
        raise CheckFailed(f"the row of {player!r} shows its id as {shown_id!r}")
    driver.execute_script("location.hash = '#/lists/transactions?view=by_player&player=explorer-empty';")
    wait_for(driver, "the empty view", lambda d: d.find_elements(By.CSS_SELECTOR, "#screen .empty"))
    field = driver.find_element(By.CSS_SELECTOR, "#params input[name='param:player']")
    field.clear()
    field.send_keys(player)
    field.send_keys(Keys.ENTER)
    wait_for(driver, f"the row of player {player!r}", lambda d: row_with(d, written[-1]))


def token_on_a_deep_link(driver, base, token, written):
    """a token given on a list that refused keeps the address and shows nothing stale"""
    driver.execute_script("location.hash = '#/lists/transactions?view=game&game=7';")
    wait_for(driver, "the game view's rows", lambda d: rows(d))
    trap(driver, "/lists/highscore", "answer", 401, UNAUTHORIZED)
    driver.execute_script("location.hash = '#/lists/highscore';")
    wait_for(driver, "the token field", lambda d: "Unauthorized" in problem_text(d) and shown(d, "token-field"))
    # The keyboard is in the token field (probe 62: it stayed on the page's body).
    focused = driver.execute_script("return document.activeElement && document.activeElement.id;")
    if focused != "token":
        raise CheckFailed(f"after a 401 the focus is on {focused!r}, not the token field")
    options = driver.execute_script("return document.getElementById('view').options.length;")
    params = driver.execute_script("return document.getElementById('params').children.length;")
    if options or params:
        raise CheckFailed(f"the refused list shows the last list's controls ({options} views, {params} parameters)")
    untrap(driver)
    trap(driver, "/lists/transactions", "answer", 401, UNAUTHORIZED)
    driver.execute_script("location.hash = '#/lists/transactions?view=feed';")
    wait_for(driver, "the token field", lambda d: "Unauthorized" in problem_text(d))
    untrap(driver)
    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys("deep-link-token")
    field.send_keys(Keys.ENTER)
    wait_for(driver, "the list once a token is given", lambda d: rows(d))
    at = driver.execute_script("return location.hash;")
    crumb = driver.find_element(By.ID, "crumb").text
    driver.execute_script("sessionStorage.clear();")
    if at != "#/lists/transactions?view=feed" or "feed" not in crumb:
        raise CheckFailed(f"after the token the address is {at!r} and the screen shows {crumb!r}")


def unknown_item_shows_the_view(driver, base, token, written):
    """a deep link to an item not in the view opens the view from the top, saying so"""
    driver.execute_script("location.hash = '#/lists/transactions?around=no-such-item';")
    wait_for(driver, "the view's rows", lambda d: rows(d))
    wait_for(driver, "a notice naming the item", lambda d: "'no-such-item' is not in this view" in problem_text(d))


def emptied_view_says_so(driver, base, token, written):
    """a view whose last item goes live says it has none"""
    driver.execute_script("location.hash = '#/lists/transactions?view=by_player&player=explorer-empty';")
    wait_for(driver, "the empty view", lambda d: d.find_elements(By.CSS_SELECTOR, "#screen .empty"))
    wait_for(driver, "the view live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    item = transaction(base, token, "explorer-empty", 1, "2020-01-03T00:00:00Z")
    written.append(item)
    wait_for(driver, "the written row", lambda d: row_with(d, item))
    api(base, "DELETE", "/lists/transactions/items/" + item, token=token)
    wait_for(driver, "'No items.' again", lambda d: d.find_elements(By.CSS_SELECTOR, "#screen .empty")
             and not rows(d))


def refused_page_is_not_asked_again(driver, base, token, written):
    """a page being loaded is told (aria-busy); a next page refused with 401 is not asked
    for again and again"""
    driver.execute_script("location.hash = '#/lists/transactions?view=feed';")
    wait_for(driver, "the feed's rows", lambda d: rows(d))
    busy = "return document.getElementById('screen').getAttribute('aria-busy');"
    trap(driver, "cursor=", "hang")
    scroll_to_loading(driver)
    wait_for(driver, "the list said busy while its next page loads", lambda d: d.execute_script(busy) == "true")
    untrap(driver)
    driver.execute_script("location.hash = '#/lists/transactions?view=feed&again=1';")
    wait_for(driver, "the feed's rows, not busy", lambda d: rows(d) and d.execute_script(busy) is None)
    trap(driver, "cursor=", "answer", 401, UNAUTHORIZED)
    scroll_to_loading(driver)
    wait_for(driver, "the refusal with a way on", lambda d: "Unauthorized" in problem_text(d)
             and d.find_elements(By.CSS_SELECTOR, "#problem .retry"))
    time.sleep(3)
    calls = driver.execute_script("return window.checkCalls;")
    untrap(driver)
    if "Trying again" in problem_text(driver) or calls != 1:
        raise CheckFailed(f"the refused page was asked for {calls} times in 3 s: {problem_text(driver)!r}")


def answer_not_of_the_api(driver, base, token, written):
    """a 200 that is not an answer of the API (a proxy's page) is shown as a problem"""
    browser_errors(driver)
    trap(driver, "/lists", "answer", 200, "<html>Sign in to the proxy</html>")
    driver.execute_script("location.hash = '#/index-again';")
    wait_for(driver, "the problem", lambda d: "Not an answer of the API (200)" in problem_text(d)
             and "Sign in to the proxy" in problem_text(d))
    untrap(driver)
    errors = [error for error in browser_errors(driver) if "TypeError" in error or "Uncaught" in error]
    if errors:
        raise CheckFailed("the page failed with: " + "; ".join(errors))


def stream_ended_says_why(driver, base, token, written):
    """a stream the server ends says why in the badge's tooltip"""
    trap(driver, "/events", "answer", 200, "")
    driver.execute_script("location.hash = '#/lists/transactions?view=feed';")
    wait_for(driver, "the badge saying why it reconnects", lambda d: "ended the stream" in (
        d.find_element(By.ID, "live").get_attribute("title") or ""))
    untrap(driver)


def stream_refused_shows_the_token(driver, base, token, written):
    """a stream refused with 401 (the server ends it at the token's exp; the page asks
    again and is refused) says so as a problem and shows the token input, as a page's
    refusal does (review 87: only the badge changed, the rows went stale)"""
    trap(driver, "/events", "answer", 401, UNAUTHORIZED)
    driver.execute_script("location.hash = '#/lists/transactions?view=feed&stream=refused';")
    wait_for(driver, "the refusal and the token input", lambda d: "Unauthorized (401)" in problem_text(d)
             and shown(d, "token-field"))
    untrap(driver)
    if "not live" not in (driver.find_element(By.ID, "live").text or ""):
        raise CheckFailed(f"the badge says {driver.find_element(By.ID, 'live').text!r} after a refused stream")


def page_size_and_cursor_links(driver, base, token, written):
    """the page size in the address (and its control) holds for every page; a page's
    cursor in the address opens that page, and one read backward goes on forward"""
    def ids(page):
        return [cell["id"] for section in page["sections"] if section["kind"] == "items" for cell in section["items"]]

    def shown_ids(d):
        return [row.get_attribute("data-id") for row in rows(d)]

    _, first = api(base, "GET", "/lists/transactions/items?view=feed&limit=3")
    _, second = api(base, "GET", "/lists/transactions/items?view=feed&limit=3&cursor=" + urllib.parse.quote(first["next"]))
    driver.execute_script("performance.clearResourceTimings(); location.hash = '#/lists/transactions?view=feed&limit=3';")
    # Three rows do not fill the screen: the loading row in sight asks for the pages after.
    wait_for(driver, "two pages of 3", lambda d: shown_ids(d)[:6] == ids(first) + ids(second))
    if driver.find_element(By.ID, "limit").get_attribute("value") != "3":
        raise CheckFailed("the page size control does not show the address's 3")
    asked = driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)"
                                  ".filter((n) => n.includes('/lists/transactions/items?'));")
    if len(asked) < 2 or any("limit=3" not in url for url in asked):
        raise CheckFailed(f"a page was read without the page size: {asked!r}")
    link = "#/lists/transactions?view=feed&limit=3&cursor="
    driver.execute_script("location.hash = arguments[0];", link + urllib.parse.quote(first["next"]))
    # Its rows, and (read forward, it has a `prev` and no loading row of its own) the page
    # before it above them once the loading row made for it comes in sight (review 87: the
    # items before it were never read); three rows leave it in sight at once.
    wait_for(driver, "the linked page's rows", lambda d: all(item in shown_ids(d) for item in ids(second)))
    driver.execute_script("document.getElementById('screen').scrollTop = 0;")
    wait_for(driver, "the page before the linked one, above it", lambda d: shown_ids(d)[:6] == ids(first) + ids(second))
    # A page read backward ends with no loading row of its own; the pages after it follow.
    driver.execute_script("location.hash = arguments[0];", link + urllib.parse.quote(second["prev"]))
    wait_for(driver, "the page before, then the pages after it", lambda d: shown_ids(d)[:6] == ids(first) + ids(second))
    # A page size over the list's maximum is the one the server used.
    _, clamped = api(base, "GET", "/lists/transactions/items?view=feed&limit=100000")
    driver.execute_script("location.hash = '#/lists/transactions?view=feed&limit=100000';")
    wait_for(driver, "the clamped size in the control", lambda d: d.find_element(By.ID, "limit").get_attribute(
        "value") == str(clamped["limit"]))
    # A size typed as the number input takes it (`1e3`) is asked for in digits (probe 62:
    # sent as typed, the server refused it).
    control = driver.find_element(By.ID, "limit")
    control.clear()
    control.send_keys("1e3", Keys.ENTER)
    wait_for(driver, "limit=1000 in the address", lambda d: "limit=1000" in d.execute_script("return location.hash"))
    wait_for(driver, "the clamped size again", lambda d: d.find_element(By.ID, "limit").get_attribute(
        "value") == str(clamped["limit"]) and rows(d))
    if problem_text(driver):
        raise CheckFailed(f"a page size of 1e3 shows a problem: {problem_text(driver)!r}")

def row_shows_all_its_data(driver, base, token, written):
    """a row opens (its button, Enter, a tap) to show all its data, which follows live
    changes, and closes again"""
    reason = "a reason long enough to be cut in the row's one line " * 6
    item = transaction(base, token, "explorer-details", 7, "2020-01-03T00:00:00Z")
    written.append(item)
    api(base, "PATCH", "/lists/transactions/items/" + item, token=token, body={"data": {"reason": reason}})
    driver.execute_script(f"location.hash = '#/lists/transactions?around={item}';")
    row = wait_for(driver, "the written row", lambda d: row_with(d, item))
    toggle = row.find_element(By.CSS_SELECTOR, ".toggle")
    if toggle.get_attribute("aria-expanded") != "false" or row.find_elements(By.CSS_SELECTOR, ".data"):
        raise CheckFailed("the row is open before it is asked")
    toggle.click()

    def shown_data(d):
        found = row_with(d, item)
        terms = found.find_elements(By.CSS_SELECTOR, ".data dt") if found else []
        values = found.find_elements(By.CSS_SELECTOR, ".data dd") if found else []
        return {t.get_attribute("textContent"): v.get_attribute("textContent") for t, v in zip(terms, values)}

    wait_for(driver, "the whole reason under the row", lambda d: shown_data(d).get("reason") == reason
             and shown_data(d).get("points") == "7")
    if row_with(driver, item).find_element(By.CSS_SELECTOR, ".toggle").get_attribute("aria-expanded") != "true":
        raise CheckFailed("the open row's button does not say it is expanded")
    # A live change to the open row shows there.
    wait_for(driver, "the view live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    api(base, "PATCH", "/lists/transactions/items/" + item, token=token, body={"data": {"points": 8}})
    wait_for(driver, "the new points in the open row", lambda d: shown_data(d).get("points") == "8")
    # The keyboard closes it from its button, which keeps the focus.
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(driver, "the row closed", lambda d: not shown_data(d)
             and row_with(d, item).find_element(By.CSS_SELECTOR, ".toggle").get_attribute("aria-expanded") == "false")


def titles_as_they_are(driver, base, token, written):
    """a section's header shows its title as the API gives it (not in capitals, which made
    two sections whose titles differ in case look alike)"""
    _, page = api(base, "GET", "/lists/transactions/items?view=by_player&limit=5")
    title = next(section["title"] for section in page["sections"] if section["kind"] == "items")
    driver.execute_script("location.hash = '#/lists/transactions?view=by_player&limit=5';")
    wait_for(driver, "the rows by player", lambda d: rows(d))
    header = driver.execute_script("return document.querySelector('#screen .section-header').innerText;")
    if header != title:
        raise CheckFailed(f"the first section's header reads {header!r}, its title is {title!r}")


RECORD_FETCHES = """
window.fetchModes = [];
if (!window.recordedFetch) {
  window.recordedFetch = window.fetch;
  window.fetch = (url, init) => {
    window.fetchModes.push([String(url), (init && init.cache) || 'default']);
    return window.recordedFetch(url, init);
  };
}
"""


def refusals_of_the_address(driver, base, token, written):
    """a cursor the server refuses, or a list it does not have, in the address offers a
    way on rather than the same request again; notices are said together (an unknown
    view, item and parameter); pages read with a token are not written to the browser's
    disk cache"""
    driver.execute_script("location.hash = '#/lists/transactions?view=feed&cursor=garbage';")
    way_on = "#problem .retry"
    wait_for(driver, "the refused cursor", lambda d: "(400)" in problem_text(d) and d.find_elements(By.CSS_SELECTOR, way_on))
    button = driver.find_element(By.CSS_SELECTOR, way_on)
    if button.text != "Open the list from its top":
        raise CheckFailed(f"a refused cursor in the address offers {button.text!r}")
    button.click()
    wait_for(driver, "the list from its top", lambda d: rows(d) and d.execute_script("return location.hash;")
             == "#/lists/transactions")
    driver.execute_script("location.hash = '#/lists/no-such-list';")
    wait_for(driver, "the unknown list", lambda d: "(404)" in problem_text(d) and d.find_elements(By.CSS_SELECTOR, way_on))
    button = driver.find_element(By.CSS_SELECTOR, way_on)
    if button.text != "Back to the lists":
        raise CheckFailed(f"an unknown list offers {button.text!r}")
    button.click()
    wait_for(driver, "the lists", lambda d: d.execute_script("return location.hash;") == "#/")
    driver.execute_script("location.hash = '#/lists/transactions?view=nope&around=no-such-item&bogus=1';")
    wait_for(driver, "the three notices", lambda d: "no view 'nope'" in problem_text(d)
             and "'no-such-item' is not in this view" in problem_text(d)
             and "takes no parameter 'bogus'" in problem_text(d))
    # A misspelt required parameter: the view's need, and the misspelling named with it.
    driver.execute_script("location.hash = '#/lists/transactions?view=game&gmae=3';")
    wait_for(driver, "the need and the misspelt parameter", lambda d: "This view needs game." in d.execute_script(
        "return document.getElementById('screen').innerText;") and "takes no parameter 'gmae'" in problem_text(d))
    driver.execute_script(RECORD_FETCHES + "sessionStorage.setItem('data-mediator-token', arguments[0]);"
                          " location.hash = '#/lists/transactions?view=feed&with-token=1';", token)
    wait_for(driver, "the feed read with a token", lambda d: rows(d))
    modes = driver.execute_script("sessionStorage.removeItem('data-mediator-token'); return window.fetchModes;")
    pages = [mode for url, mode in modes if "/lists/transactions/items" in url]
    if not pages or any(mode != "no-store" for mode in pages):
        raise CheckFailed(f"pages read with a token were fetched with cache modes {modes!r}")


STEPS = [isolated_values, long_values_fit, live_changes_keep_place, gap_at_the_top_is_read,
         gap_at_the_bottom_keeps_order, far_item_is_not_put_beside, typed_values_as_they_are,
         token_on_a_deep_link,
         unknown_item_shows_the_view, emptied_view_says_so, refused_page_is_not_asked_again,
         answer_not_of_the_api, stream_ended_says_why, stream_refused_shows_the_token, page_size_and_cursor_links,
         row_shows_all_its_data, titles_as_they_are, refusals_of_the_address]


def check_reader_edges(base, token):
    check_edges(base, token, STEPS, "check-explorer: reader's edges: isolated values, long ids, live changes above"
                " the rows in sight, a gap at the top, a gap at the bottom, an item far past the rows, ids and values as typed, a token on a deep link, an unknown item, a view emptied live, a refused page, an answer"
                " not of the API, a stream the server ended, a stream refused, page sizes and cursors in the address"
                " (a linked page read both ways), a row's whole data,"
                " section titles as they are and the address's refusals")
