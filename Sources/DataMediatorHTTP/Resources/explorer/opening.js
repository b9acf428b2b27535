// What the explorer shows when the index or a list could not be opened, and when it asks
// again by itself: never sooner than the server's `Retry-After`.

import { $, showProblem } from '/explorer/dom.js';
import { route } from '/explorer/explorer.js';

/**
 * Whether asking again may get another answer: none came (the server is down), or the
 * server timed out, was busy or failed (`408`, `429`, `5xx`).
 */
export function mayPassLater(error) {
  return Boolean(error.unreachable) || [408, 429].includes(error.status) || error.status >= 500;
}

/**
 * Shows why the index or a list could not be opened, with what the reader can do. When
 * asking again may help, `again` (opening it again) runs by itself after the server's
 * `Retry-After`, else 5 s, while the reader stays where they are; a button asks at once
 * only when the server asked for no wait.
 */
export function failedToOpen(error, again = route) {
  cancelRetry();
  const at = location.hash;
  if (!mayPassLater(error)) {
    showProblem(error, wayOn(error, at));
    return;
  }
  const seconds = Math.max(5, error.retryAfter || 0);
  const now = () => {
    cancelRetry();
    again();
  };
  const button = error.retryAfter ? null : { label: 'Try again', run: now };
  showProblem(error, button, 'Trying again in ' + seconds + ' s.');
  retry = setTimeout(() => {
    retry = null;
    if (location.hash === at && !$('problem').hidden) again();
  }, seconds * 1000);
}

// The one asking again that waits: a failure, or anything opened meanwhile, replaces it
// (each *Try again* that failed again started another chain that asked for ever).
let retry = null;

/** Cancels the asking again that waits, if any. */
export function cancelRetry() {
  if (retry !== null) clearTimeout(retry);
  retry = null;
}

/**
 * What the reader can do about a refusal of what the address asks for: asking the same
 * again helps only where the server may answer otherwise (a token); a list or item that is
 * not there, or a cursor or limit it refuses, is left for the list from its top, or the
 * lists.
 */
function wayOn(error, at) {
  if (!error.status || [401, 403].includes(error.status)) return { label: 'Try again', run: route };
  const list = at.split('?')[0];
  if (error.status === 400 && at.includes('?') && list.startsWith('#/lists/')) {
    return { label: 'Open the list from its top', run: () => { location.hash = list; } };
  }
  return { label: 'Back to the lists', run: () => { location.hash = '#/'; } };
}
