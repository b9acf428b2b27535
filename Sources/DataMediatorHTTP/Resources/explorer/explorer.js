// The data-mediator explorer: the lists, and one view of a list shown the way a list
// screen shows it (sticky section headers, one row per cell, infinite scroll both ways,
// live changes applied in place). Plain ES2020 modules, no libraries; served by the binary.
// This one routes and shows the index and the list screen; live.js applies the live
// changes, dom.js has the requests and the DOM helpers.
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
  rowFor,
  sectionFor,
  loadingSection,
  loadingSectionNamed,
  dataSections,
  findSection,
  findRow,
  removeRow,
  toggleRow,
} from '/explorer/dom.js';
import { setLive, follow } from '/explorer/live.js';

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

/**
 * Shows why the index or a list could not be opened, with a button to try again; when no
 * answer came at all (the server is down), tries again by itself every 5 s while the
 * reader stays where they are.
 */
function failedToOpen(error) {
  const at = location.hash;
  if (!error.unreachable) {
    showProblem(error, wayOn(error, at));
    return;
  }
  showProblem(error, { label: 'Try again', run: route }, 'Trying again every 5 s.');
  setTimeout(() => {
    if (location.hash === at && !$('problem').hidden) route();
  }, 5000);
}

/**
 * What the reader can do about a refusal of what the address asks for: asking the same
 * again helps only where the server may answer otherwise (a token, a busy server); a list
 * or item that is not there, or a cursor or limit it refuses, is left for the list from its
 * top, or the lists.
 */
function wayOn(error, at) {
  const again = { label: 'Try again', run: route };
  if (!error.status || error.status >= 500 || [401, 403, 408, 429].includes(error.status)) return again;
  const list = at.split('?')[0];
  if (error.status === 400 && at.includes('?') && list.startsWith('#/lists/')) {
    return { label: 'Open the list from its top', run: () => { location.hash = list; } };
  }
  return { label: 'Back to the lists', run: () => { location.hash = '#/'; } };
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
  state = { list: name, abort, observer: null, busy: new Set(), next: null, prev: null, failures: 0 };
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
  const missing = ((chosen && chosen.parameters) || []).filter((p) => p.required && !current.params[p.name]);
  if (missing.length) {
    screen.replaceChildren(el('p', 'note', 'This view needs ' + missing.map((p) => p.name).join(', ') + '.'));
    return;
  }
  if (asked && chosen && asked !== chosen.name) {
    const detail = "This list has no view '" + asked + "'; it shows its view '" + chosen.name + "'.";
    addNotice(current, 'Unknown view', detail);
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
  params.limit = $('limit').value.trim();
  const hash = '#/lists/' + encodeURIComponent(state.list) + query(params);
  if (location.hash === hash) route();
  else location.hash = hash;
}

function viewChanged() {
  if (!state) return;
  location.hash = '#/lists/' + encodeURIComponent(state.list) + query({ view: $('view').value, limit: state.limit });
}

async function loadFirst(current, keep) {
  const url = (around) => itemsURL(current.list) + '/items' + query(pageQuery({ around, cursor: current.cursor }));
  let page;
  try {
    try {
      page = await getJSON(url(keep ? keep.id : current.around), current.abort.signal);
    } catch (error) {
      // The row kept through a reload, or the item asked for, is not in the view (any
      // more): read from the top, saying so for the item asked for.
      if ((!keep && !current.around) || error.status !== 404 || error.kind !== 'unknown-item') throw error;
      if (!keep) {
        const detail = "The item '" + current.around + "' is not in this view; it is shown from the top.";
        addNotice(current, 'Unknown item', detail);
        current.around = '';
      }
      keep = null;
      page = await getJSON(url(current.around), current.abort.signal);
    }
  } catch (error) {
    screen.replaceChildren();
    failedToOpen(error);
    return;
  }
  if (state !== current) return;
  clearProblem();
  screen.replaceChildren();
  current.observer = new IntersectionObserver(onLoadingRowSeen, { root: screen, rootMargin: '150px 0px' });
  current.version = page.version;
  addPage(page, 'forward');
  // A page read backward (a `prev` in the address) ends with no loading row: its `next`
  // leads to items a reader holds, and this one holds none of them yet.
  if (page.next && !loadingSectionNamed('loading')) {
    const bottom = loadingSection({ id: 'loading', type: 'loading', rev: '0', data: { next: page.next } });
    screen.append(bottom);
    current.observer.observe(bottom.querySelector('.row'));
  }
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

/**
 * Puts the row a reload kept back where it was on the screen. A page around it may be too
 * short below it for that: the next pages forward (which its loading row, in sight, asks
 * for) make room, so this is done again after each, up to three.
 */
function holdRow(current) {
  const keep = current.keep;
  const row = keep && findRow(keep.id);
  if (!row) return;
  const off = () => row.getBoundingClientRect().top - screen.getBoundingClientRect().top - keep.offset;
  screen.scrollTop += off();
  keep.pages += 1;
  if (Math.abs(off()) < 2 || keep.pages > 3) current.keep = null;
}

/**
 * Notes the first loaded item while items precede it (the top boundary, as `boundary` is the
 * bottom one): `prev` reads from its place, so when a change moves or deletes it, what is
 * put right after its old place would lie between the pages (see `loadMore`).
 */
function holdTop(id) {
  state.top = id;
  state.topChanged = false;
}

/** Puts a page's cells on the screen: appended below (forward) or above (backward). */
function addPage(page, direction) {
  const sections = page.sections.filter((section) => section.kind === 'items');
  for (const section of sections) for (const cell of section.items) removeRow(cell.id);
  const loadingBefore = page.sections.find((section) => section.kind === 'loading' && section.id === 'loading-before');
  const loadingAfter = page.sections.find((section) => section.kind === 'loading' && section.id !== 'loading-before');
  if (direction === 'forward') {
    const bottom = loadingSectionNamed('loading');
    if (bottom) bottom.remove();
    // Sections that changes put past the old boundary: their items come on this page or later.
    const first = sections.length ? findSection(sections[0].id) : null;
    if (first) {
      let node = first.nextElementSibling;
      while (node) {
        const nextNode = node.nextElementSibling;
        if (node.dataset.kind === 'items') node.remove();
        node = nextNode;
      }
    }
    for (const section of sections) {
      const held = dataSections();
      let target = held.length ? held[held.length - 1] : null;
      if (!target || target.dataset.sectionId !== section.id) {
        target = sectionFor(section.id, section.title);
        screen.append(target);
      }
      const rows = target.querySelector('.rows');
      for (const cell of section.items) rows.append(rowFor(cell));
    }
    const items = sections.flatMap((section) => section.items);
    state.next = page.next;
    state.boundary = page.next ? (items.length ? items[items.length - 1].id : state.boundary) : null;
    state.boundaryChanged = false;
    if (loadingBefore && !loadingSectionNamed('loading-before')) {
      state.prev = page.prev;
      holdTop(items.length ? items[0].id : null);
      const top = loadingSection(loadingBefore.items[0]);
      screen.prepend(top);
      state.observer.observe(top.querySelector('.row'));
    }
    if (loadingAfter) {
      const bottomSection = loadingSection(loadingAfter.items[0]);
      screen.append(bottomSection);
      state.observer.observe(bottomSection.querySelector('.row'));
    }
  } else {
    const top = loadingSectionNamed('loading-before');
    const anchor = top ? top.nextElementSibling : screen.firstElementChild;
    for (let index = sections.length - 1; index >= 0; index -= 1) {
      const section = sections[index];
      const held = dataSections();
      let target = held.length ? held[0] : null;
      if (!target || target.dataset.sectionId !== section.id) {
        target = sectionFor(section.id, section.title);
        screen.insertBefore(target, held.length ? held[0] : anchor);
      } else if (section.title) {
        target.querySelector('.section-header').textContent = section.title;
      }
      const rows = target.querySelector('.rows');
      for (let row = section.items.length - 1; row >= 0; row -= 1) rows.prepend(rowFor(section.items[row]));
    }
    if (top) top.remove();
    state.prev = page.prev;
    const first = sections.length && sections[0].items.length ? sections[0].items[0].id : state.top;
    holdTop(page.prev ? first : null);
    if (loadingBefore) {
      const newTop = loadingSection(loadingBefore.items[0]);
      screen.prepend(newTop);
      state.observer.observe(newTop.querySelector('.row'));
    }
  }
}

function onLoadingRowSeen(entries) {
  for (const entry of entries) {
    if (!entry.isIntersecting || !state) continue;
    if (entry.target.dataset.id === 'loading-before') loadMore(state, 'backward');
    else loadMore(state, 'forward');
  }
}

async function loadMore(current, direction) {
  const cursor = direction === 'forward' ? current.next : current.prev;
  if (!cursor || current.busy.has(direction)) return;
  // The top boundary moved or went: `prev` would read from its old place and miss what a
  // change put between it and the first row held now, so the page around that row is read
  // instead (its rows already held stay where it shows them, and its `prev` goes on).
  const firstRow = current.topChanged ? dataSections()[0]?.querySelector('.row') : null;
  const extra = firstRow ? { around: firstRow.dataset.id } : { cursor };
  current.busy.add(direction);
  // Assistive technology is told the list is being loaded, and when it is done.
  screen.setAttribute('aria-busy', 'true');
  let wait = 0;
  try {
    const page = await getJSON(itemsURL(current.list) + '/items' + query(pageQuery(extra)), current.abort.signal);
    if (state !== current) return;
    clearProblem();
    if (current.notice) showProblem(current.notice);
    if (direction === 'forward') {
      addPage(page, 'forward');
      holdRow(current);
    } else {
      // Keep what the reader looks at in place while rows are put above it.
      const before = screen.scrollHeight;
      const top = screen.scrollTop;
      addPage(page, 'backward');
      screen.scrollTop = top + (screen.scrollHeight - before);
    }
    current.failures = 0;
  } catch (error) {
    if (state !== current || error.name === 'AbortError') return;
    if (extra.around && error.status === 404) {
      // That row went meanwhile: its change re-anchors again; `prev` is asked next time.
      current.topChanged = false;
    } else if (error.kind === 'bad-cursor' || error.kind === 'cursor-mismatch') {
      // The server will not take this cursor again (its secret changed, say): asking
      // again is pointless; the reader starts again from the top.
      const search = new URLSearchParams(pageQuery());
      showProblem(error, { label: 'Reload from the top', run: () => openList(current.list, search) });
      return;
    } else if (error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429) {
      // Refused (a token that expired, a list gone): the same request gets the same answer.
      // The reader gives a token (the prompt shows for a 401) or opens the list again.
      showProblem(error, { label: 'Open again', run: route });
      return;
    } else {
      // Down, busy or failing: ask again later, twice as late each time in a row (up to
      // 30 s), and never sooner than the server's Retry-After.
      current.failures += 1;
      wait = Math.max(Math.min(1000 * 2 ** (current.failures - 1), 30000), error.retryAfter * 1000 || 0);
      showProblem(error, null, 'Trying again in ' + Math.ceil(wait / 1000) + ' s.');
    }
  } finally {
    current.busy.delete(direction);
    if (!current.busy.size) screen.removeAttribute('aria-busy');
  }
  // A loading row still in sight after the page came in asks for the next one.
  const again = () => {
    const section = loadingSectionNamed(direction === 'forward' ? 'loading' : 'loading-before');
    const row = section && section.querySelector('.row');
    if (row && state === current) {
      current.observer.unobserve(row);
      current.observer.observe(row);
    }
  };
  if (wait) setTimeout(again, wait);
  else again();
}

// ---- routing -----------------------------------------------------------------------

function route() {
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
