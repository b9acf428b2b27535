"""The explorer's edges where a page and the live changes race, checked by
scripts/check-explorer: a change made while a page is on its way, changes the stream has
not brought when a newer page comes, a reload whose row in sight left the view, one whose first page
does not reach the row the reader opened, a section's new head put while the page above is read,
and a row the reader opened that a change moves."""

import time

from selenium.webdriver.common.by import By

from explorer_browser import CheckFailed, api, mark_rows, rows_replaced, scroll_to_loading, trap, untrap, wait_for
from explorer_edges import row_with, transaction
from explorer_gap_edges import ROW_IDS, first_rows, moments_of, read_up_to, settled_rows, stamp

# The id and revision of each row on the screen, in order.
ROW_REVS = """
return Array.from(document.querySelectorAll('#screen section[data-kind="items"] .row'),
  (r) => [r.dataset.id, r.dataset.rev]);
"""


def view_prefix(base, count):
    """The first `count` items of the transactions' default view as [id, rev], walked now."""
    page = api(base, "GET", f"/lists/transactions/items?limit={count}")[1]
    return [[cell["id"], cell["rev"]] for section in page["sections"] if section["kind"] == "items"
            for cell in section["items"]]


def expect_view(driver, base, what):
    """The rows, with their revisions, must be the view's first ones as a fresh walk reads them."""
    shown = settled_rows(driver) and driver.execute_script(ROW_REVS)
    fresh = view_prefix(base, len(shown) + 5)[:len(shown)]
    if shown != fresh:
        raise CheckFailed(f"{what}: the rows {shown} are not the view's {fresh}")


def write_around(base, token, written, coming):
    """Deletes `coming[0]`, updates `coming[1]` and puts an item between `coming[2]` and
    `coming[3]`; answers the new item's id."""
    moments = moments_of(base, coming[2:4])
    api(base, "DELETE", "/lists/transactions/items/" + coming[0], token=token)
    api(base, "PATCH", "/lists/transactions/items/" + coming[1], token=token, body={"data": {"points": 777}})
    new = transaction(base, token, "race", 1, stamp(moments[0] + (moments[1] - moments[0]) / 2))
    written.append(new)
    return new


def change_while_a_page_is_on_its_way(driver, base, token, written):
    """changes made while a next page is on its way (read before them, shown after them) are not undone by it"""
    held = first_rows(driver)
    coming = [item for item, _ in view_prefix(base, len(held) + 5)[len(held):]]
    trap(driver, "cursor=", "delay", 3000)
    scroll_to_loading(driver)
    wait_for(driver, "the next page read by the server", lambda d: d.execute_script("return window.delayedRead") >= 1)
    new = write_around(base, token, written, coming)
    wait_for(driver, "the next page", lambda d: len(d.execute_script(ROW_IDS)) > len(held), timeout=40)
    untrap(driver)
    expect_view(driver, base, "after a page read before three changes")
    if not row_with(driver, new):
        raise CheckFailed(f"{new}, put among the next page's rows while it was on its way, is not shown")


def changes_come_with_the_next_page(driver, base, token, written):
    """changes the stream has not brought when a newer page comes are read with it"""
    # No stream answers: the page learns of the changes from the next page's version.
    trap(driver, "/events", "hang")
    driver.execute_script("location.hash = '#/lists/transactions?limit=5';")
    wait_for(driver, "the first page", lambda d: d.execute_script(ROW_IDS))
    held = settled_rows(driver)
    write_around(base, token, written, held[1:])
    scroll_to_loading(driver)
    wait_for(driver, "the next page", lambda d: len(d.execute_script(ROW_IDS)) > len(held), timeout=40)
    expect_view(driver, base, "after a page newer than the rows held")
    untrap(driver)


def reload_keeps_the_next_row_when_the_row_in_sight_went(driver, base, token, written):
    """a reload whose row in sight left the view keeps the next row in sight, and the list is busy meanwhile"""
    top = api(base, "GET", "/lists/highscore/items?limit=40")[1]
    ranked = [cell for section in top["sections"] if section["kind"] == "items" for cell in section["items"]]
    if len(ranked) < 32:
        raise CheckFailed(f"the high scores have {len(ranked)} players, not the 32 this step needs")
    # A player of one transaction, ranked about 30th: the aggregate's rows change by reloads.
    points = (ranked[29]["data"]["points"] + ranked[30]["data"]["points"]) // 2
    gone = transaction(base, token, "zz-gone", points, "2020-01-01T00:00:00Z")
    written.append(gone)
    driver.execute_script("location.hash = '#/lists/highscore?limit=3';")
    wait_for(driver, "the list live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    # Pages until a screenful of rows lies below zz-gone's, so it can be scrolled to the top.
    for _ in range(40):
        ids = driver.execute_script(ROW_IDS)
        if "zz-gone" in ids and len(ids) - ids.index("zz-gone") > 15:
            break
        scroll_to_loading(driver)
        time.sleep(0.3)
    settled_rows(driver)
    ids = driver.execute_script(ROW_IDS)
    following = ids[ids.index("zz-gone") + 1]
    offset_of = """const s = document.getElementById('screen');
        const r = Array.from(s.querySelectorAll('.row')).find((x) => x.dataset.id === arguments[0]);
        if (arguments[1]) s.scrollTop += r.getBoundingClientRect().top - s.getBoundingClientRect().top - 5;
        return r ? r.getBoundingClientRect().top - s.getBoundingClientRect().top : null;"""
    driver.execute_script(offset_of, "zz-gone", True)
    time.sleep(0.5)
    if not 0 <= driver.execute_script(offset_of, "zz-gone", False) < 10:
        raise CheckFailed(f"zz-gone is not the first row in sight: {driver.execute_script(ROW_IDS)}")
    # The reader opened the next row's whole data, and its button has the focus.
    driver.execute_script("""const r = Array.from(document.querySelectorAll('#screen .row')).find((x) => x.dataset.id === arguments[0]);
        r.querySelector('.toggle').click(); r.querySelector('.toggle').focus({ preventScroll: true });""", following)
    before = driver.execute_script(offset_of, following, False)
    mark_rows(driver)
    trap(driver, "/lists/highscore/items?", "delay", 1500)
    api(base, "DELETE", "/lists/transactions/items/" + gone, token=token)
    wait_for(driver, "the reload's page asked", lambda d: d.execute_script("return window.delayedRead") >= 1)
    busy = driver.execute_script("return document.getElementById('screen').getAttribute('aria-busy');")
    if busy != "true":
        raise CheckFailed(f"the list is not aria-busy while the reload reads (aria-busy={busy!r})")
    wait_for(driver, "the reload", rows_replaced)
    untrap(driver)
    # The pages read after the one around it (still slow) make room to put it back.
    try:
        wait_for(driver, "the row after the gone one back in its place", lambda d: abs(
            (d.execute_script(offset_of, following, False) or 1e9) - before) <= 2, timeout=20)
    except CheckFailed:
        after = driver.execute_script(offset_of, following, False)
        raise CheckFailed(f"{following}, the row after the one in sight that went, was {before} px below the "
                          f"top and is at {after} after the reload") from None
    kept = driver.execute_script("""const r = Array.from(document.querySelectorAll('#screen .row')).find((x) => x.dataset.id === arguments[0]);
        return [r.classList.contains('open'), r.contains(document.activeElement)];""", following)
    if kept != [True, True]:
        raise CheckFailed(f"{following}, open and focused before the reload, is open: {kept[0]}, focused: {kept[1]}")


def reload_keeps_open_rows_its_first_page_does_not_reach(driver, base, token, written):
    """a reload whose first page (3 rows around the row in sight) does not reach the row the
    reader opened and focused opens and focuses it again when a later page brings it back
    (probe 62: it came back closed, the focus on the body)"""
    driver.execute_script("location.hash = '#/lists/highscore?limit=3';")
    wait_for(driver, "the list live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    for _ in range(20):
        if len(driver.execute_script(ROW_IDS)) >= 24:
            break
        scroll_to_loading(driver)
        time.sleep(0.3)
    settled_rows(driver)
    ids = driver.execute_script(ROW_IDS)
    chosen = ids[9]
    # The reader scrolled (a reload reads around the row in sight), then opened a row below.
    driver.execute_script("""const s = document.getElementById('screen');
        const r = Array.from(s.querySelectorAll('.row')).find((x) => x.dataset.id === arguments[0]);
        s.scrollTop += r.getBoundingClientRect().top - s.getBoundingClientRect().top;""", ids[2])
    kept = """const r = Array.from(document.querySelectorAll('#screen .row')).find((x) => x.dataset.id === arguments[0]);
        if (r && arguments[1]) { r.querySelector('.toggle').click(); r.querySelector('.toggle').focus({ preventScroll: true }); }
        return r ? [r.classList.contains('open'), r.contains(document.activeElement)] : null;"""
    if driver.execute_script(kept, chosen, True) != [True, True]:
        raise CheckFailed(f"{chosen} did not open and take the focus")
    mark_rows(driver)
    # Any write changes the aggregate's rows: its stream says `reload`.
    written.append(transaction(base, token, "zz-reload", 1, "2020-01-02T00:00:00Z"))
    wait_for(driver, "the reload", rows_replaced)
    try:
        wait_for(driver, f"{chosen} open and focused again", lambda d: d.execute_script(kept, chosen, False) == [True, True],
                 timeout=20)
    except CheckFailed:
        state = driver.execute_script(kept, chosen, False)
        raise CheckFailed(f"{chosen}, open and focused before the reload, is (open, focused) {state} after it") from None


def head_put_while_the_page_above_is_read(driver, base, token, written):
    """a row put at the head of the first section held, after its first row went while the page above was on its way, shows"""
    day = "2019-03-07"
    top, anchor, after = (transaction(base, token, "head", 1, f"{day}T{hour}:00:00Z") for hour in ("12", "10", "09"))
    written.extend([top, anchor, after])
    # Every page read from a cursor is held on its way (3 s), from the first: the page
    # above the three rows is read from the first row's place while that row goes and an
    # item becomes its section's new head, between its place and the next row.
    trap(driver, "cursor=", "delay", 3000)
    driver.execute_script(f"location.hash = '#/lists/transactions?limit=3&around={anchor}';")
    wait_for(driver, "the list live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    wait_for(driver, "the page above read by the server", lambda d: d.execute_script("return window.delayedRead") >= 1)
    shown = driver.execute_script(ROW_IDS)
    if shown[:2] != [top, anchor]:
        raise CheckFailed(f"opened around {anchor}, the rows are {shown}, not {top} first")
    api(base, "DELETE", "/lists/transactions/items/" + top, token=token)
    head = transaction(base, token, "head", 2, f"{day}T11:00:00Z")
    written.append(head)
    wait_for(driver, "the first row gone", lambda d: not row_with(d, top))
    time.sleep(7)
    untrap(driver)
    read_up_to(driver, head, f"{head}, the section's new head")


def a_moved_row_stays_open_and_focused(driver, base, token, written):
    """a row the reader opened and focused stays open, and keeps the focus, when a live
    `move` puts it elsewhere (review 87: it was made anew closed, the focus on the body)"""
    day = "2019-05-01"
    mover, anchor, below = (transaction(base, token, "zz-move", 1, f"{day}T{hour}:00:00Z") for hour in ("12", "10", "08"))
    written.extend([mover, anchor, below])
    driver.execute_script(f"location.hash = '#/lists/transactions?limit=5&around={anchor}';")
    wait_for(driver, "the list live", lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
    wait_for(driver, "the three rows", lambda d: all(row_with(d, item) for item in (mover, anchor, below)))
    state = """const r = Array.from(document.querySelectorAll('#screen section[data-kind="items"] .row'))
        .find((x) => x.dataset.id === arguments[0]);
        if (r && arguments[1]) { r.querySelector('.toggle').click(); r.querySelector('.toggle').focus({ preventScroll: true }); }
        return r ? [r.classList.contains('open'), r.contains(document.activeElement)] : null;"""
    if driver.execute_script(state, mover, True) != [True, True]:
        raise CheckFailed(f"{mover} did not open and take the focus")
    api(base, "PATCH", "/lists/transactions/items/" + mover, token=token, body={"data": {"created_at": f"{day}T09:00:00Z"}})

    def moved(d):
        ids = d.execute_script(ROW_IDS)
        return mover in ids and anchor in ids and ids.index(anchor) < ids.index(mover)
    wait_for(driver, f"{mover} moved below {anchor}", moved)
    if driver.execute_script(state, mover, False) != [True, True]:
        raise CheckFailed(f"{mover}, open and focused before its move, is (open, focused) "
                          f"{driver.execute_script(state, mover, False)} after it")


STEPS = [change_while_a_page_is_on_its_way, changes_come_with_the_next_page,
         reload_keeps_the_next_row_when_the_row_in_sight_went, reload_keeps_open_rows_its_first_page_does_not_reach,
         head_put_while_the_page_above_is_read, a_moved_row_stays_open_and_focused]
