"""The explorer's edges, checked by scripts/check-explorer: tokens a request cannot carry,
a server that asks for a token on the index, data whose ids or sections are spelt like
the synthetic loading rows, a notice that must stay, and the keyboard."""

import time
import urllib.parse

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from explorer_browser import (CheckFailed, api, problem_text, scroll_to_loading, start_browser, trap, untrap,
                              wait_for)

ROWS = 'section[data-kind="items"] .row'


def rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, ROWS)


def row_with(driver, item):
    """The row of `item`, found in one script: rows read one by one may go stale while live changes come."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#screen section[data-kind=\"items\"] .row'))"
        ".find((r) => r.dataset.id === arguments[0]) || null;", item)


def shown(driver, element_id):
    return driver.find_element(By.ID, element_id).is_displayed()


def transaction(base, token, player, points, created_at):
    body = {"data": {"player": player, "points": points, "reason": "explorer edge check", "created_at": created_at}}
    return api(base, "POST", "/lists/transactions/items", token=token, body=body)[1]["id"]


def unusable_token(driver, base, token, written):
    """a token a header cannot carry is refused, saying why"""
    driver.get(base + "/#/lists/mine")
    wait_for(driver, "the token field of a scoped list", lambda d: shown(d, "token-field"))
    field = driver.find_element(By.ID, "token")
    field.send_keys("abc\u2019def")
    field.send_keys(Keys.ENTER)
    wait_for(driver, "a problem naming the token", lambda d: "Unusable token" in problem_text(d))
    if "cannot be reached" in problem_text(driver):
        raise CheckFailed(f"the page says {problem_text(driver)!r}")
    if driver.execute_script("return sessionStorage.getItem('data-mediator-token');"):
        raise CheckFailed("the unusable token was kept")
    driver.execute_script("sessionStorage.setItem('data-mediator-token', 'tok\u2019');"
                          "location.hash = '#/lists/transactions';")
    wait_for(driver, "rows read without the stored unusable token", lambda d: rows(d))
    if "cannot be reached" in problem_text(driver):
        raise CheckFailed(f"the page says {problem_text(driver)!r}")
    driver.execute_script("sessionStorage.clear();")


def token_on_the_index(driver, base, token, written):
    """an index the server refuses without a token asks for one"""
    trap(driver, "/lists", "answer", 401, {"type": "/problems/unauthorized", "title": "Unauthorized",
                                           "status": 401, "detail": "Reads need a token."})
    driver.execute_script("location.hash = '#/index';")
    wait_for(driver, "the token field on the index", lambda d: "Unauthorized" in problem_text(d)
             and shown(d, "token-field"))
    if shown(driver, "view") or shown(driver, "around"):
        raise CheckFailed("the index shows a list's controls")
    untrap(driver)
    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys("index-token")
    field.send_keys(Keys.ENTER)
    wait_for(driver, "the lists once a token is given", lambda d: d.find_elements(By.CSS_SELECTOR, "a.list-link"))
    driver.execute_script("sessionStorage.clear();")


def item_named_loading(driver, base, token, written):
    """an item whose id is 'loading' does not stop the paging"""
    written.append(transaction(base, token, "loading", 10 ** 9, "2020-01-02T00:00:00Z"))
    trap(driver, "cursor=", "down")
    driver.execute_script("location.hash = '#/lists/highscore';")
    wait_for(driver, "the item 'loading' first", lambda d: rows(d) and rows(d)[0].get_attribute("data-id") == "loading")
    count = len(rows(driver))
    scroll_to_loading(driver)
    wait_for(driver, "a failed next page", lambda d: "Trying again in" in problem_text(d))
    untrap(driver)
    wait_for(driver, "the next page asked again", lambda d: len(rows(d)) > count)


def section_named_loading_before(driver, base, token, written):
    """a section spelt 'loading-before' keeps the earlier items reachable"""
    written.append(transaction(base, token, "a-check", 1, "2020-01-02T00:00:00Z"))
    anchor = transaction(base, token, "loading-before", 1, "2020-01-02T00:00:00Z")
    written.append(anchor)
    driver.execute_script(f"location.hash = '#/lists/transactions?view=by_player&around={anchor}';")
    wait_for(driver, "the anchored item", lambda d: d.find_elements(By.CSS_SELECTOR, ".row.anchor"))
    if not driver.find_elements(By.CSS_SELECTOR, 'section[data-kind="loading"][data-section-id="loading-before"]'):
        raise CheckFailed("no loading row for the earlier items")


def unknown_view_notice(driver, base, token, written):
    """an unknown view stays named while pages load"""
    driver.execute_script("location.hash = '#/lists/transactions?view=nope';")
    wait_for(driver, "the notice", lambda d: "no view 'nope'" in problem_text(d))
    count = len(rows(driver))
    scroll_to_loading(driver)
    wait_for(driver, "the next page", lambda d: len(rows(d)) > count)
    time.sleep(0.5)
    if "no view 'nope'" not in problem_text(driver):
        raise CheckFailed(f"after the next page the problem box says {problem_text(driver)!r}")


def keyboard(driver, base, token, written):
    """the keyboard scrolls a list just opened"""
    driver.execute_script("location.hash = '#/';")
    wait_for(driver, "the index", lambda d: d.find_elements(By.CSS_SELECTOR, "a.list-link"))
    driver.find_element(By.CSS_SELECTOR, 'a.list-link[data-list="transactions"]').click()
    wait_for(driver, "the list", lambda d: rows(d))
    focused = driver.execute_script("return document.activeElement && document.activeElement.id;")
    if focused != "screen":
        raise CheckFailed(f"the focus is on {focused!r}, not the list")
    driver.switch_to.active_element.send_keys(Keys.PAGE_DOWN)
    wait_for(driver, "PageDown to scroll the list",
             lambda d: d.execute_script("return document.getElementById('screen').scrollTop;") > 0)


STEPS = [unusable_token, token_on_the_index, item_named_loading, section_named_loading_before,
         unknown_view_notice, keyboard]


def check_edges(base, token, steps=STEPS, done="check-explorer: edges: unusable token, token on the index, ids and"
                " sections named like loading rows, the unknown-view notice and the keyboard"):
    """Runs each step in one browser on the demo at `base`; what a step writes is deleted."""
    driver = start_browser(1000, 450)
    written = []
    try:
        for step in steps:
            try:
                driver.get(base + "/#/")
                wait_for(driver, "the index", lambda d: d.find_elements(By.CSS_SELECTOR, "a.list-link"))
                step(driver, base, token, written)
            except CheckFailed as failure:
                raise CheckFailed(f"{step.__doc__}: {failure}") from None
            except WebDriverException as error:
                raise CheckFailed(f"{step.__doc__}: the browser: {error.msg or error}") from None
        print(done)
    finally:
        driver.quit()
        for item in written:
            delete_item(base, item, token)


def delete_item(base, item, token):
    """DELETEs the transaction `item`; one gone already (a step deleted it) is fine."""
    try:
        api(base, "DELETE", "/lists/transactions/items/" + urllib.parse.quote(item, safe=""), token=token)
    except CheckFailed as failure:
        if " answered 404" not in str(failure):
            raise
