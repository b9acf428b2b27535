"""The explorer's edges where live changes meet the pages still to read, checked by
scripts/check-explorer: the first or the last loaded row goes and items come right beside
its place, and the page read from that place must put them where the view has them."""

import datetime
import time

from selenium.webdriver.common.by import By

from explorer_browser import CheckFailed, api, scroll_to_loading, wait_for
from explorer_edges import row_with, transaction

# The ids of the rows on the screen, in order.
ROW_IDS = """
return Array.from(document.querySelectorAll('#screen section[data-kind="items"] .row'), (r) => r.dataset.id);
"""

# Records the ids of the rows after each change of the screen, from now on.
RECORD_ROWS = """
window.rowStates = [];
const ids = () => Array.from(document.querySelectorAll('#screen section[data-kind="items"] .row'), (r) => r.dataset.id);
window.rowRecorder = new MutationObserver(() => window.rowStates.push(ids()));
window.rowRecorder.observe(document.getElementById('screen'), { childList: true, subtree: true });
"""



def moments_of(base, items):
    """When each transaction of `items` happened (its `created_at`), as times."""
    times = [api(base, "GET", "/lists/transactions/items/" + item)[1]["item"]["data"]["created_at"] for item in items]
    return [datetime.datetime.fromisoformat(moment.replace("Z", "+00:00")) for moment in times]


def stamp(moment):
    """A time as a transaction's `created_at`."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def gap_at_the_top_is_read(driver, base, token, written):
    """an item put right after the first loaded row, which goes, shows once the rows above are read"""
    chronological = api(base, "GET", "/lists/transactions/items?limit=40")[1]
    anchor = [cell["id"] for section in chronological["sections"] if section["kind"] == "items"
              for cell in section["items"]][30]
    driver.execute_script(f"location.hash = '#/lists/transactions?limit=5&around={anchor}';")
    wait_for(driver, "the list live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    first, second = driver.execute_script(ROW_IDS)[:2]
    moments = moments_of(base, (first, second))
    between = stamp(moments[1] + (moments[0] - moments[1]) / 2)
    # The first loaded row goes, and an item comes between its place and the next row:
    # the page above (read from the first row's place) does not hold it.
    api(base, "DELETE", "/lists/transactions/items/" + first, token=token)
    gap = transaction(base, token, "gap", 1, between)
    written.append(gap)
    wait_for(driver, "the first row gone", lambda d: not row_with(d, first))
    read_up_to(driver, gap, "the item put in the gap")


def read_up_to(driver, item, what):
    """Scrolls to the loading row above until `item`'s row shows or nothing is above; then
    waits for the row."""
    for _ in range(20):
        if row_with(driver, item) or not driver.find_elements(By.CSS_SELECTOR, '[data-section-id="loading-before"]'):
            break
        driver.execute_script("const r = document.querySelector('[data-section-id=\"loading-before\"] .row');"
                              " if (r) r.scrollIntoView();")
        time.sleep(0.5)
    wait_for(driver, what, lambda d: row_with(d, item))


def settled_rows(driver):
    """The row ids once the screen stopped loading pages (the same for a second)."""
    held, since = None, time.monotonic()
    deadline = since + 30
    while time.monotonic() < deadline:
        now = driver.execute_script(ROW_IDS)
        if now != held:
            held, since = now, time.monotonic()
        elif time.monotonic() - since > 1:
            return held
        time.sleep(0.1)
    raise CheckFailed("the screen did not stop loading pages")


def first_rows(driver):
    """Opens the transactions five rows a page, live, and answers the rows once it stops loading."""
    driver.execute_script("location.hash = '#/lists/transactions?limit=5';")
    wait_for(driver, "the list live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    return settled_rows(driver)


def gap_at_the_bottom_keeps_order(driver, base, token, written):
    """items put after the last loaded row, which goes, more than a page holds: the next page keeps the view's order"""
    held = first_rows(driver)
    walk = api(base, "GET", f"/lists/transactions/items?limit={len(held) + 1}")[1]
    ids = [cell["id"] for section in walk["sections"] if section["kind"] == "items" for cell in section["items"]]
    if ids[:len(held)] != held:
        raise CheckFailed(f"the rows {held} are not the view's first ones {ids}")
    last, following = held[-1], ids[len(held)]
    moments = moments_of(base, (last, following))
    # The last loaded row goes; seven items come between its place and the next item's,
    # each right after the one before: more than the five the next page shows.
    api(base, "DELETE", "/lists/transactions/items/" + last, token=token)
    for step in range(1, 8):
        moment = moments[0] + (moments[1] - moments[0]) * step / 8
        written.append(transaction(base, token, "bottom", step, stamp(moment)))
    wait_for(driver, "the items put beside the rows", lambda d: len(d.execute_script(ROW_IDS)) == len(held) + 6)
    fresh = api(base, "GET", f"/lists/transactions/items?limit={len(held) + 40}")[1]
    expected = [cell["id"] for section in fresh["sections"] if section["kind"] == "items" for cell in section["items"]]
    driver.execute_script(RECORD_ROWS)
    scroll_to_loading(driver)
    settled_rows(driver)
    states = driver.execute_script("window.rowRecorder.disconnect(); return window.rowStates;")
    if len(states[-1]) <= len(held) + 6:
        raise CheckFailed(f"no page was read after the rows {states[-1]}")
    for state in states:
        if state != expected[:len(state)]:
            raise CheckFailed(f"the rows {state} are not in the view's order {expected[:len(state)]}")


def far_item_is_not_put_beside(driver, base, token, written):
    """with the last loaded row gone, an item written after one of a section not loaded stays off the screen"""
    held = first_rows(driver)
    # The first two items of the first section after the loaded rows' sections, walked to.
    loaded, target, items, path = set(), None, [], "/lists/transactions/items?limit=100"
    while len(items) < 2 and path:
        page = api(base, "GET", path)[1]
        for section in (section for section in page["sections"] if section["kind"] == "items"):
            ids = [cell["id"] for cell in section["items"]]
            if set(ids) & set(held):
                loaded.add(section["id"])
            elif target is None and section["id"] not in loaded:
                target = section["id"]
            if section["id"] == target:
                items += ids
        path = "/lists/transactions/items?limit=100&cursor=" + page["next"] if page["next"] else None
    if len(items) < 2:
        raise CheckFailed("no section of two items past the loaded rows")
    head, second = items[:2]
    moments = moments_of(base, (held[0], head, second))
    # The last loaded row goes; an item comes right after the head of a section not loaded
    # (its change names that head, which the screen does not hold), then one at the top.
    api(base, "DELETE", "/lists/transactions/items/" + held[-1], token=token)
    far = transaction(base, token, "far", 1, stamp(moments[1] + (moments[2] - moments[1]) / 2))
    written.append(far)
    top = transaction(base, token, "top", 1, stamp(moments[0] + datetime.timedelta(seconds=1)))
    written.append(top)
    wait_for(driver, "the item written at the top", lambda d: row_with(d, top))
    if row_with(driver, far):
        raise CheckFailed(f"{far}, written after {head} of a section not loaded, is on the screen: "
                          f"{driver.execute_script(ROW_IDS)}")
