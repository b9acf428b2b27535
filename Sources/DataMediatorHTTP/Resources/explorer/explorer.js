// The data-mediator explorer: the lists, and one view of a list shown the way a list
// screen shows it (sticky section headers, one row per cell, infinite scroll both ways,
// live changes applied in place). Plain ES2020 modules, no libraries; served by the binary.
// This one routes and shows the index and the list screen; live.js applies the live
// changes, pages.js puts the pages on the screen, dom.js has the requests and the DOM
// helpers.
//
// The rows in the DOM are the screen's model: each section is a <section
// data-section-id> and each cell a row with data-id and data-type, so a change is applied
// where its row is, by the cell's stable id.

import {
  $,
  screen,
  tokenStore,
  token,
  tokenProblem,
  getJSON,
  query,
  itemsURL,
  showProblem,
  clearProblem,
  el,
  loadingSection,
  loadingSectionNamed,
  findRow,
  toggleRow,
} from '/explorer/dom.js';
import { setLive, follow } from '/explorer/live.js';
import { addPage, addLoadingBefore, holdRow, onLoadingRowSeen } from '/explorer/pages.js';
import { failedToOpen, mayPassLater, cancelRetry } from '/explorer/opening.js';

const controls = $('controls');

/** The open list screen; null on the index. */
export let state = null;

// ---- the index ---------------------------------------------------------------------

async function showIndex() {
  closeScreen();
  // Shown on the index only for a token the server asks for (showProblem).
  controls.hidden = true;
  controls.classList.add('index');
  $('crumb').textContent = '';
  document.title = 'data-mediator explorer';
  screen.className = 'screen index';
  screen.replaceChildren(el('p', 'note', 'Loading the lists…'));
  try {
    const answer = await getJSON('/lists');
    clearProblem();
    const cards = el('ul', 'cards');
    for (const list of answer.lists) {
      const card = el('li', 'card');
      const link = el('a', 'list-link', list.title || list.name);
      link.href = '#/lists/' + encodeURIComponent(list.name);
      link.dataset.list = list.name;
      const views = el('p', 'views');
      for (const view of list.views) {
        const viewLink = el('a', 'view-link', view.name + (view.default ? ' (default)' : ''));
        viewLink.href = link.href + '?view=' + encodeURIComponent(view.name);
        views.append(viewLink, ' ');
      }
      card.append(link, el('span', 'muted', ' ' + list.name), views);
      cards.append(card);
    }
    screen.replaceChildren(el('h1', null, 'Lists'), cards);
    if (!answer.lists.length) screen.append(el('p', 'note', 'This server serves no lists.'));
  } catch (error) {
    screen.replaceChildren();
    failedToOpen(error);
  }
}

/** Adds a notice to the list's, shown over its rows: several are said together. */
function addNotice(current, title, detail) {
  if (!current.notice) {
    current.notice = { problem: { title, detail } };
    return;
  }
  const problem = current.notice.problem;
  current.notice = { problem: { title: problem.title + '; ' + title, detail: problem.detail + ' ' + detail } };
}

// ---- a list screen -----------------------------------------------------------------

function closeScreen() {
  if (state) {
    state.abort.abort();
    if (state.observer) state.observer.disconnect();
  }
  state = null;
  screen.removeAttribute('aria-busy');
  setLive('off', 'offline');
}

/** The query that selects the view: its name and parameters (not limit or cursor). */
export function viewQuery() {
  return Object.assign({ view: state.view }, state.params);
}

/** The view's query with the page size the reader chose: every page is read with it. */
export function pageQuery(extra) {
  return Object.assign(viewQuery(), state.limit ? { limit: state.limit } : {}, extra);
}

/**
 * Opens a view of a list. With `keep` (a live reload: {id, offset}), the controls are left
 * as the reader has them and the page is read around the row `id`, put back `offset`
 * pixels below the top, so a reload neither clears what is typed nor jumps to the top.
 */
export async function openList(name, search, keep) {
  closeScreen();
  const abort = new AbortController();
  // `refused`: opened again because the server refused a cursor (pages.js).
  const refused = Boolean(keep && keep.refused);
  state = { list: name, abort, observer: null, busy: new Set(), next: null, prev: null, failures: 0, refused };
  const current = state;
  screen.className = 'screen list';
  if (!keep) screen.replaceChildren(el('p', 'note', 'Loading…'));
  $('crumb').textContent = name;
  controls.hidden = false;
  controls.classList.remove('index');
  let description;
  try {
    description = await getJSON(itemsURL(name), abort.signal);
  } catch (error) {
    // A live reload the server put off: the rows stay until it is read again.
    if (keep && mayPassLater(error)) return reloadLater(current, error, () => openList(name, search, keep));
    // Nothing of the list before is left in the controls (the token prompt reads them).
    screen.replaceChildren();
    fillControls({ views: [] }, null, search.get('around') || '', search.get('limit') || '');
    document.title = name + ' · data-mediator explorer';
    $('title').textContent = name;
    failedToOpen(error);
    return;
  }
  if (state !== current) return;
  const views = description.views || [];
  const asked = search.get('view');
  const chosen = views.find((view) => view.name === asked) || views.find((view) => view.default) || views[0];
  current.description = description;
  current.view = chosen ? chosen.name : undefined;
  current.params = {};
  for (const parameter of (chosen && chosen.parameters) || []) {
    if (search.get(parameter.name)) current.params[parameter.name] = search.get(parameter.name);
  }
  current.around = search.get('around') || '';
  current.limit = search.get('limit') || '';
  // A page's cursor in the address (a link to one page): the first page read is that one.
  current.cursor = keep ? '' : search.get('cursor') || '';
  document.title = (description.title || name) + ' · data-mediator explorer';
  $('crumb').textContent = (description.title || name) + (current.view ? ' · ' + current.view : '');
  $('title').textContent = $('crumb').textContent;
  $('title').hidden = false;
  if (!keep) fillControls(description, chosen);
  if (asked && chosen && asked !== chosen.name) {
    const detail = "This list has no view '" + asked + "'; it shows its view '" + chosen.name + "'.";
    addNotice(current, 'Unknown view', detail);
  }
  // A parameter of the address the view does not take (a typo, another view's) is left out
  // of every request, where the API would refuse it: the reader is told, as for a view.
  const known = new Set(['view', 'around', 'limit', 'cursor']);
  for (const parameter of (chosen && chosen.parameters) || []) known.add(parameter.name);
  const unknown = [...new Set(search.keys())].filter((name) => !known.has(name) && !name.startsWith('_'));
  if (unknown.length) {
    const names = unknown.map((name) => "'" + name + "'").join(', ');
    const one = unknown.length === 1;
    const who = current.view ? "The view '" + current.view + "'" : 'This list';
    const detail = who + ' takes no parameter' + (one ? ' ' : 's ') + names + (one ? '; it is' : '; they are') + ' left out.';
    addNotice(current, 'Unknown parameter', detail);
  }
  const missing = ((chosen && chosen.parameters) || []).filter((p) => p.required && !current.params[p.name]);
  if (missing.length) {
    screen.replaceChildren(el('p', 'note', 'This view needs ' + missing.map((p) => p.name).join(', ') + '.'));
    // A misspelt parameter is often why: it is named too.
    if (current.notice) showProblem(current.notice);
    return;
  }
  await loadFirst(current, keep);
  if (current.notice && state === current) showProblem(current.notice);
}

function fillControls(description, chosen, around = state.around, limit = state.limit) {
  const select = $('view');
  select.replaceChildren();
  for (const view of description.views || []) {
    const option = el('option', null, view.name);
    option.value = view.name;
    option.selected = chosen && view.name === chosen.name;
    select.append(option);
  }
  const params = $('params');
  params.replaceChildren();
  for (const parameter of (chosen && chosen.parameters) || []) {
    const label = el('label', 'field', parameter.name + (parameter.required ? ' *' : ''));
    const input = el('input');
    input.name = 'param:' + parameter.name;
    input.value = (state && state.params[parameter.name]) || '';
    input.placeholder = parameter.type + ' (' + parameter.field + ')';
    input.required = parameter.required;
    input.inputMode = parameter.type === 'integer' || parameter.type === 'number' ? 'numeric' : 'text';
    label.append(' ', input);
    params.append(label);
  }
  $('around').value = around;
  $('limit').value = limit || '';
  $('token').value = token();
  $('token-field').hidden = !description.scope && !token() && $('token-field').hidden;
  if (description.scope) {
    $('token').placeholder = 'JWT with claim ' + description.scope.claim;
  }
}

function submitControls(event) {
  event.preventDefault();
  const typed = $('token').value.trim();
  const problem = tokenProblem(typed);
  if (problem) {
    showProblem({ tokenProblem: true, problem: { title: 'Unusable token', detail: problem } });
    $('token').focus();
    return;
  }
  sessionStorage.setItem(tokenStore, typed);
  // A list that did not open (a 401 for want of this token) is opened as its address says.
  if (!state || !state.description) {
    route();
    return;
  }
  const params = { view: $('view').value };
  // Ids and parameter values are taken as typed: either may begin or end with a space, as
  // the address may say it (an empty field asks for none).
  for (const input of $('params').querySelectorAll('input')) {
    if (input.value !== '') params[input.name.slice('param:'.length)] = input.value;
  }
  params.around = $('around').value;
  // A number input takes `1e3` and `20.0`, which the server (reading digits) refuses: a
  // whole number goes in digits, anything else as typed (the server says what is wrong).
  const size = $('limit').valueAsNumber;
  params.limit = Number.isInteger(size) && size > 0 ? String(size) : $('limit').value.trim();
  const hash = '#/lists/' + encodeURIComponent(state.list) + query(params);
  if (location.hash === hash) route();
  else location.hash = hash;
}

function viewChanged() {
  if (!state) return;
  location.hash = '#/lists/' + encodeURIComponent(state.list) + query({ view: $('view').value, limit: state.limit });
}

async function loadFirst(current, keep) {
  // A reload keeps the rows the reader opened, and the focus, also those a reload before
  // this one has not brought back yet (`reopen`, `refocus`).
  const reloading = Boolean(keep);
  const carried = keep || {};
  const url = (around) => itemsURL(current.list) + '/items' + query(pageQuery({ around, cursor: current.cursor }));
  let page;
  // Assistive technology is told the list is being read (the rows a reload replaces are
  // still on the screen meanwhile), and when it is done.
  screen.setAttribute('aria-busy', 'true');
  try {
    // The row kept through a reload, else the rows in sight below it in turn (it may have
    // left the view: the very change that made the reload), or the item asked for.
    for (const at of keep ? [keep, ...(keep.others || [])] : [null]) {
      try {
        page = await getJSON(url(at ? at.id : current.around), current.abort.signal);
        if (at) keep = at;
        break;
      } catch (error) {
        if ((!keep && !current.around) || error.status !== 404 || error.kind !== 'unknown-item') throw error;
      }
    }
    // None is in the view (any more): read from the top, saying so for the item asked for.
    if (!page) {
      if (!keep) {
        const detail = "The item '" + current.around + "' is not in this view; it is shown from the top.";
        addNotice(current, 'Unknown item', detail);
        current.around = '';
      }
      keep = null;
      page = await getJSON(url(current.around), current.abort.signal);
    }
  } catch (error) {
    if (state !== current) return;
    screen.removeAttribute('aria-busy');
    if (reloading && mayPassLater(error)) {
      return reloadLater(current, error, () => openList(current.list, new URLSearchParams(pageQuery()), carried));
    }
    screen.replaceChildren();
    failedToOpen(error);
    return;
  }
  if (state !== current) return;
  screen.removeAttribute('aria-busy');
  clearProblem();
  // The rows the reader opened, and the row whose button has the focus, stay so through a
  // reload, which makes every row anew.
  const opened = reloading ? Array.from(screen.querySelectorAll('.row.open'), (row) => row.dataset.id) : [];
  const focused = reloading && document.activeElement ? document.activeElement.closest('.row') : null;
  screen.replaceChildren();
  current.observer = new IntersectionObserver(onLoadingRowSeen, { root: screen, rootMargin: '150px 0px' });
  // The version the screen holds; `complete` while it holds all of it (see live.js).
  current.version = Number(page.version);
  current.complete = true;
  // Opened again, and focused, as the pages that hold them come (a small page around the
  // row in sight may not reach them): addPage looks for them after each.
  current.reopen = new Set([...opened, ...(carried.reopen || [])]);
  current.refocus = focused ? focused.dataset.id : carried.refocus || null;
  addPage(page, 'forward');
  // A page read backward (a `prev` in the address) ends with no loading row: its `next`
  // leads to items a reader holds, and this one holds none of them yet.
  if (page.next && !loadingSectionNamed('loading')) {
    const bottom = loadingSection({ id: 'loading', type: 'loading', rev: '0', data: { next: page.next } });
    screen.append(bottom);
    current.observer.observe(bottom.querySelector('.row'));
  }
  // A page read from a `next` cursor (in the address) has a `prev` but no loading row above
  // it: the list goes on from it both ways.
  if (page.prev && !loadingSectionNamed('loading-before')) addLoadingBefore(page);
  // The page size used: a larger one than the list allows is clamped (API.md).
  if (current.limit && String(page.limit) !== current.limit) {
    current.limit = String(page.limit);
    if (!keep) $('limit').value = current.limit;
  }
  if (!current.limit) $('limit').placeholder = 'default ' + page.limit;
  current.keep = keep && findRow(keep.id) ? { id: keep.id, offset: keep.offset, pages: 0 } : null;
  if (current.keep) {
    holdRow(current);
  } else if (current.around) {
    const row = findRow(current.around);
    if (row) {
      row.classList.add('anchor');
      row.scrollIntoView({ block: 'center' });
    }
  }
  if (!page.sections.length) screen.append(el('p', 'note empty', 'No items.'));
  // The keyboard scrolls the list (PageDown loads more) unless the reader is in a control.
  if (!keep && (!document.activeElement || document.activeElement === document.body)) {
    screen.focus({ preventScroll: true });
  }
  follow(current, page.version);
}

/** A live reload that failed for now: the rows read before stay, and it is asked again. */
function reloadLater(current, error, again) {
  setLive('reconnecting', 'reloading later…', 'The rows shown are as they were before the reload was put off.');
  failedToOpen(error, () => state === current && again());
}

// ---- routing -----------------------------------------------------------------------

export function route() {
  cancelRetry();
  clearProblem();
  const hash = location.hash.replace(/^#/, '');
  const match = /^\/lists\/([^?]+)(?:\?(.*))?$/.exec(hash);
  if (match) {
    let name;
    try {
      name = decodeURIComponent(match[1]);
    } catch (_) {
      name = match[1];
    }
    openList(name, new URLSearchParams(match[2] || ''));
  } else {
    $('title').hidden = true;
    showIndex();
  }
}

controls.addEventListener('submit', submitControls);
// A row opens or closes by its button, or by a click on it that selected no text.
screen.addEventListener('click', (event) => {
  const row = event.target.closest('.row');
  if (!row) return;
  if (event.target.closest('.toggle') || !String(window.getSelection() || '')) toggleRow(row);
});
$('view').addEventListener('change', viewChanged);
window.addEventListener('hashchange', route);
route();
