"""The browser and API helpers of scripts/check-explorer and its checks: a headless Debian
Chromium through selenium, the page's fetches made to fail on purpose, and waits that say
what they waited for."""

import datetime
import json
import os
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = os.environ.get("CHECK_EXPLORER_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHECK_EXPLORER_CHROMEDRIVER", "/usr/bin/chromedriver")
WAIT = float(os.environ.get("CHECK_EXPLORER_WAIT", "15"))


class CheckFailed(Exception):
    pass


def api(base, method, path, body=None, token=None):
    """Calls the API; answers (status, parsed JSON body or None)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        text = error.read()
        raise CheckFailed(f"{method} {path} answered {error.code}: {text[:300]!r}") from None


def wait_for(driver, what, condition, timeout=WAIT):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))
    except TimeoutException:
        problem = driver.execute_script(
            "const p = document.getElementById('problem'); return p && !p.hidden ? p.innerText : '';"
        )
        extra = f" (the page shows the problem: {problem!r})" if problem else ""
        raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}{extra}") from None


def transaction_rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, 'section[data-kind="items"] .row[data-type="transaction"]')


def browser_errors(driver):
    """The browser's logged errors since the last call (script errors, blocked requests)."""
    try:
        entries = driver.get_log("browser")
    except WebDriverException:
        return []
    return [entry["message"] for entry in entries if entry.get("level") == "SEVERE"]


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


def start_browser(width, height, phone=False):
    options = webdriver.ChromeOptions()
    if phone:
        # A window cannot be made this narrow; the page is laid out as on a phone of this size.
        options.add_experimental_option(
            "mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2, "touch": True}}
        )
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--hide-scrollbars", f"--window-size={width},{height}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


# Makes the page's requests whose URL holds `pattern` fail: 'down' as a network error,
# 'hang' never answered, 'answer' with `status` and the problem `problem` (and
# `Retry-After` when given); or 'delay' them: the server answers at once (it reads the
# page then), the page gets the answer `status` ms later, as on a slow link
# (`window.delayedRead` counts the answers the server gave).
FETCH_TRAP = """
const [pattern, mode, status, problem, retry] = arguments;
if (!window.checkRealFetch) window.checkRealFetch = window.fetch;
window.checkCalls = 0;
window.delayedRead = 0;
window.fetch = async (url, options) => {
  if (!String(url).includes(pattern)) return window.checkRealFetch(url, options);
  window.checkCalls += 1;
  if (mode === 'delay') {
    const answer = await window.checkRealFetch(url, options);
    const text = await answer.text();
    window.delayedRead += 1;
    await new Promise((done) => setTimeout(done, status));
    return new Response(text, {status: answer.status, headers: answer.headers});
  }
  if (mode === 'down') return Promise.reject(new TypeError('blocked by the check'));
  if (mode === 'hang') return new Promise(() => {});
  const headers = {'Content-Type': 'application/problem+json'};
  if (retry) headers['Retry-After'] = retry;
  return Promise.resolve(new Response(JSON.stringify(problem), {status, headers}));
};
"""


def trap(driver, pattern, mode, status=0, problem=None, retry=None):
    driver.execute_script(FETCH_TRAP, pattern, mode, status, problem, retry)


def untrap(driver):
    driver.execute_script("if (window.checkRealFetch) window.fetch = window.checkRealFetch;")


def mark_rows(driver):
    """Marks the rows on the screen, so that `rows_replaced` tells when a reload made them anew."""
    driver.execute_script("for (const r of document.querySelectorAll('#screen .row')) r.old = true;")


def rows_replaced(driver):
    """Whether the first row on the screen is one made after `mark_rows`."""
    return driver.execute_script(
        "const r = document.querySelector('#screen section[data-kind=items] .row'); return r && !r.old;")


def problem_text(driver):
    return driver.execute_script("const p = document.getElementById('problem'); return p.hidden ? '' : p.innerText;")


def scroll_to_loading(driver):
    driver.execute_script(
        "const r = document.querySelector('section[data-kind=\"loading\"][data-section-id=\"loading\"] .row');"
        " if (r) r.scrollIntoView();"
    )
