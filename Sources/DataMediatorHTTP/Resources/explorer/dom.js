// The explorer's helpers: the requests it makes (with the token it is given), the
// problems (RFC 9457) it shows, and the rows and sections it builds. The rows in the DOM
// are the screen's model: each section is a <section data-section-id> and each cell a row
// with data-id and data-type, so a change is applied where its row is, by the cell's
// stable id.

export const $ = (id) => document.getElementById(id);
export const screen = $('screen');
const problemBox = $('problem');
export const tokenStore = 'data-mediator-token';

// ---- requests --------------------------------------------------------------------

export function token() {
  return sessionStorage.getItem(tokenStore) || '';
}

/**
 * Why `value` cannot be sent as a bearer token, or '' when it can: a header carries
 * visible ASCII only (a token pasted with a typographic quote or a space would make every
 * request fail before it is sent).
 */
export function tokenProblem(value) {
  const bad = /[^\x21-\x7e]/.exec(value);
  if (!bad) return '';
  const shown = bad[0] === ' ' ? 'a space' : JSON.stringify(bad[0]);
  return 'The token holds ' + shown + ' at position ' + (bad.index + 1) + '; a token is visible ASCII only (no spaces).';
}

export function headers(extra) {
  const all = Object.assign({ Accept: 'application/json' }, extra || {});
  // A token the browser cannot send is left out: the server says whether it needs one.
  if (token() && !tokenProblem(token())) all.Authorization = 'Bearer ' + token();
  return all;
}

/** An answer that is not 2xx: its problem (RFC 9457) when it sent one. */
export class ProblemError extends Error {
  constructor(status, problem, url, retryAfter) {
    super((problem && (problem.detail || problem.title)) || 'HTTP ' + status);
    this.status = status;
    this.problem = problem;
    this.url = url;
    /** Seconds the server asked to wait (`Retry-After`), or 0. */
    this.retryAfter = retryAfter || 0;
  }

  /** The problem's kind: the last segment of its `type` (`bad-cursor`), or ''. */
  get kind() {
    const type = (this.problem && this.problem.type) || '';
    return type.split('/').pop();
  }
}

/** A request that got no answer: the server is down or cannot be reached. */
export class UnreachableError extends Error {
  constructor(cause) {
    super('The server cannot be reached (' + cause + ').');
    this.unreachable = true;
  }
}

/** `Retry-After` in seconds (a number of seconds or an HTTP date), or 0. */
export function retryAfter(response) {
  const value = response.headers.get('Retry-After') || '';
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

export async function getJSON(url, signal) {
  let response;
  try {
    // What a token was needed for is not written to the browser's disk cache.
    const sent = headers();
    response = await fetch(url, { headers: sent, signal, cache: sent.Authorization ? 'no-store' : 'default' });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new UnreachableError(error.message);
  }
  const text = await response.text();
  let body = null;
  let json = true;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (_) {
    json = false;
    // A refusal that is no problem document (a proxy's HTML page) is not shown as markup.
    body = { title: 'Not an answer of the API', detail: 'HTTP ' + response.status + ' with a body that is not JSON.' };
  }
  if (!response.ok) throw new ProblemError(response.status, body, url, retryAfter(response));
  // Not the JSON object every answer of the API is (a proxy's login page, say): a problem.
  if (!json || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ProblemError(response.status, { title: 'Not an answer of the API', detail: text.slice(0, 200) }, url, 0);
  }
  return body;
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, value);
  }
  const text = search.toString();
  return text ? '?' + text : '';
}

export function itemsURL(list) {
  return '/lists/' + encodeURIComponent(list);
}

// ---- problems ----------------------------------------------------------------------

/**
 * Shows what went wrong; with `action` ({label, run}), a button that tries again, and
 * with `note`, a line that says what the page does next.
 */
export function showProblem(error, action, note) {
  if (!error || error.name === 'AbortError') return;
  problemBox.replaceChildren();
  const problem = error.problem || {};
  const title = error.unreachable ? 'The server cannot be reached' : problem.title || 'Error';
  const head = el('strong', null, title + (error.status ? ' (' + error.status + ')' : ''));
  problemBox.append(head);
  if (error.unreachable) {
    problemBox.append(el('p', null, 'No answer from ' + location.origin + ': is data-mediator running there?'));
  } else if (problem.detail || !error.problem) {
    problemBox.append(el('p', null, problem.detail || String(error.message)));
  }
  if (note) problemBox.append(el('p', 'muted', note));
  if (Array.isArray(problem.errors)) {
    const list = el('ul');
    for (const item of problem.errors) list.append(el('li', null, (item.field || '') + ': ' + (item.detail || '')));
    problemBox.append(list);
  }
  if (problem.type) {
    const link = el('a', null, problem.type);
    link.href = problem.type;
    const type = el('p', 'muted', 'type: ');
    type.append(link);
    problemBox.append(type);
  }
  if (action) {
    const button = el('button', 'retry', action.label);
    button.type = 'button';
    button.addEventListener('click', () => {
      clearProblem();
      action.run();
    });
    problemBox.append(button);
  }
  if (error.status === 401 || error.tokenProblem) {
    $('controls').hidden = false;
    $('token-field').hidden = false;
  }
  problemBox.hidden = false;
  // A 401 asks for a token: the keyboard goes to its field, unless the reader is in a control.
  const idle = !document.activeElement || document.activeElement === document.body || document.activeElement === screen;
  if (error.status === 401 && idle) $('token').focus({ preventScroll: true });
}

export function clearProblem() {
  problemBox.hidden = true;
  problemBox.replaceChildren();
}

// ---- DOM helpers -------------------------------------------------------------------

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/**
 * A cell's data on one line, `key: value` pairs, each value isolated (<bdi>): one value's
 * text direction (a right-to-left override in a name) must not reorder the others.
 */
function summary(data) {
  const line = el('span', 'summary');
  if (data === null || typeof data !== 'object') {
    line.append(el('bdi', null, data === undefined ? '' : JSON.stringify(data)));
    return line;
  }
  Object.entries(data).forEach(([key, value], index) => {
    if (index) line.append(' · ');
    line.append(key + ': ', el('bdi', null, typeof value === 'string' ? value : JSON.stringify(value)));
  });
  return line;
}

export function rowFor(cell) {
  const row = el('div', 'row');
  row.dataset.id = cell.id;
  row.dataset.type = cell.type;
  fillRow(row, cell);
  return row;
}

export function fillRow(row, cell) {
  row.dataset.type = cell.type;
  row.dataset.rev = cell.rev;
  row.classList.toggle('synthetic', cell.type === 'loading');
  const type = el('span', 'type', cell.type);
  if (cell.type === 'loading') {
    const what = cell.id === 'loading-before' ? 'Loading earlier items…' : 'Loading more…';
    row.replaceChildren(type, el('span', 'summary', what));
    return;
  }
  const id = el('bdi', 'id', cell.id);
  id.title = cell.id;
  const text = summary(cell.data);
  text.title = JSON.stringify(cell.data, null, 2);
  // The row's whole data, shown under it while it is open (a tooltip shows on no phone
  // and to no keyboard); a live change to an open row shows its new data.
  const open = row.classList.contains('open');
  const toggle = el('button', 'toggle', open ? '▾' : '▸');
  toggle.type = 'button';
  toggle.setAttribute('aria-expanded', String(open));
  toggle.setAttribute('aria-label', 'All of ' + cell.id);
  // The focus stays on the row's button as it is made anew.
  const focused = document.activeElement && document.activeElement.classList.contains('toggle')
    && row.contains(document.activeElement);
  row.cell = cell;
  row.replaceChildren(type, id, text, el('span', 'rev', 'rev ' + cell.rev), toggle);
  if (open) row.append(details(cell.data));
  if (focused) toggle.focus({ preventScroll: true });
}

/** Opens or closes a row's whole data. */
export function toggleRow(row) {
  if (!row.cell || row.classList.contains('synthetic')) return;
  row.classList.toggle('open');
  fillRow(row, row.cell);
}

/** Each field of `data` and its whole value, each isolated (<bdi>). */
function details(data) {
  const list = el('dl', 'data');
  const entries = data !== null && typeof data === 'object' && !Array.isArray(data) ? Object.entries(data) : [['', data]];
  for (const [key, value] of entries) {
    const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    const term = el('dt');
    term.append(el('bdi', null, key));
    const description = el('dd');
    description.append(el('bdi', null, text === undefined ? '' : text));
    list.append(term, description);
  }
  return list;
}

export function flash(row) {
  row.classList.remove('flash');
  void row.offsetWidth; // restarts the animation
  row.classList.add('flash');
}

export function sectionFor(id, title) {
  const section = el('section', 'section');
  section.dataset.sectionId = id;
  section.dataset.kind = 'items';
  // A section of items whose section field is empty or null has the id '' (no title).
  const header = el('h2', 'section-header', title || id || '(no section)');
  if (!title) header.classList.add('untitled');
  section.append(header, el('div', 'rows'));
  return section;
}

export function loadingSection(cell) {
  const section = el('section', 'section loading');
  section.dataset.sectionId = cell.id;
  section.dataset.kind = 'loading';
  const rows = el('div', 'rows');
  rows.append(rowFor(cell));
  section.append(rows);
  return section;
}

/** The synthetic loading section at the bottom (`loading`) or top (`loading-before`). */
export function loadingSectionNamed(id) {
  return screen.querySelector('section[data-kind="loading"][data-section-id="' + id + '"]');
}

export function dataSections() {
  return Array.from(screen.querySelectorAll('section[data-kind="items"]'));
}

export function findSection(id) {
  return dataSections().find((section) => section.dataset.sectionId === id) || null;
}

export function findRow(id) {
  return screen.querySelector('section[data-kind="items"] .row[data-id="' + CSS.escape(id) + '"]');
}

/**
 * The first row whose top is in sight (other than the row of `exceptID`), and how far
 * below the screen's top it is; null when none is.
 */
export function rowInSight(exceptID) {
  return rowsInSight(1, exceptID)[0] || null;
}

/** The first `count` rows whose tops are in sight, in order, as `rowInSight` answers one. */
export function rowsInSight(count, exceptID) {
  const top = screen.getBoundingClientRect().top;
  const rows = screen.querySelectorAll('section[data-kind="items"] .row');
  const offset = (row) => row.getBoundingClientRect().top - top;
  // Rows stand in document order, so the first in sight is found by halving (measuring
  // every row above it made each live change at depth take a long task).
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (offset(rows[middle]) >= 0) high = middle;
    else low = middle + 1;
  }
  const found = [];
  for (let index = low; index < rows.length && found.length < count; index += 1) {
    if (rows[index].dataset.id !== exceptID) found.push({ row: rows[index], offset: offset(rows[index]) });
  }
  return found;
}

export function removeRow(id) {
  const row = findRow(id);
  if (row) dropRow(row);
}

/** Takes a row off the screen, and its section when that holds no other row. */
export function dropRow(row) {
  const section = row.closest('section');
  row.remove();
  if (section && !section.querySelector('.row')) section.remove();
}
