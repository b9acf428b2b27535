// The data-mediator explorer: the lists, and one view of a list shown the way a list
// screen shows it (sticky section headers, one row per cell, infinite scroll both ways,
// live changes applied in place). Plain ES2020, no libraries; served by the binary.
//
// The rows in the DOM are the screen's model: each section is a <section
// data-section-id> and each cell a row with data-id and data-type, so a change is applied
// where its row is, by the cell's stable id.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const screen = $('screen');
  const problemBox = $('problem');
  const liveBadge = $('live');
  const controls = $('controls');
  const tokenStore = 'data-mediator-token';

  /** The open list screen; null on the index. */
  let state = null;

  // ---- requests --------------------------------------------------------------------

  function token() {
    return sessionStorage.getItem(tokenStore) || '';
  }

  function headers(extra) {
    const all = Object.assign({ Accept: 'application/json' }, extra || {});
    if (token()) all.Authorization = 'Bearer ' + token();
    return all;
  }

  /** An answer that is not 2xx: its problem (RFC 9457) when it sent one. */
  class ProblemError extends Error {
    constructor(status, problem, url) {
      super((problem && (problem.detail || problem.title)) || 'HTTP ' + status);
      this.status = status;
      this.problem = problem;
      this.url = url;
    }
  }

  async function getJSON(url, signal) {
    const response = await fetch(url, { headers: headers(), signal });
    const text = await response.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch (_) {
      body = { title: 'Not JSON', detail: text.slice(0, 200) };
    }
    if (!response.ok) throw new ProblemError(response.status, body, url);
    return body;
  }

  function query(params) {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null && value !== '') search.set(name, value);
    }
    const text = search.toString();
    return text ? '?' + text : '';
  }

  function itemsURL(list) {
    return '/lists/' + encodeURIComponent(list);
  }

  // ---- problems ----------------------------------------------------------------------

  function showProblem(error) {
    if (!error || error.name === 'AbortError') return;
    problemBox.replaceChildren();
    const problem = error.problem || {};
    const head = el('strong', null, (problem.title || 'Error') + (error.status ? ' (' + error.status + ')' : ''));
    problemBox.append(head);
    if (problem.detail || !error.problem) problemBox.append(el('p', null, problem.detail || String(error.message)));
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
    if (error.status === 401) $('token-field').hidden = false;
    problemBox.hidden = false;
  }

  function clearProblem() {
    problemBox.hidden = true;
    problemBox.replaceChildren();
  }

  // ---- DOM helpers -------------------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function summary(data) {
    if (data === null || typeof data !== 'object') return data === undefined ? '' : JSON.stringify(data);
    return Object.entries(data)
      .map(([key, value]) => key + ': ' + (typeof value === 'string' ? value : JSON.stringify(value)))
      .join(' · ');
  }

  function rowFor(cell) {
    const row = el('div', 'row');
    row.dataset.id = cell.id;
    row.dataset.type = cell.type;
    fillRow(row, cell);
    return row;
  }

  function fillRow(row, cell) {
    row.dataset.type = cell.type;
    row.dataset.rev = cell.rev;
    row.classList.toggle('synthetic', cell.type === 'loading');
    const type = el('span', 'type', cell.type);
    if (cell.type === 'loading') {
      const what = cell.id === 'loading-before' ? 'Loading earlier items…' : 'Loading more…';
      row.replaceChildren(type, el('span', 'summary', what));
      return;
    }
    const id = el('span', 'id', cell.id);
    const text = el('span', 'summary', summary(cell.data));
    text.title = JSON.stringify(cell.data, null, 2);
    row.replaceChildren(type, id, text, el('span', 'rev', 'rev ' + cell.rev));
  }

  function flash(row) {
    row.classList.remove('flash');
    void row.offsetWidth; // restarts the animation
    row.classList.add('flash');
  }

  function sectionFor(id, title) {
    const section = el('section', 'section');
    section.dataset.sectionId = id;
    section.dataset.kind = 'items';
    const header = el('h2', 'section-header', title || id);
    if (!title) header.classList.add('untitled');
    section.append(header, el('div', 'rows'));
    return section;
  }

  function loadingSection(cell) {
    const section = el('section', 'section loading');
    section.dataset.sectionId = cell.id;
    section.dataset.kind = 'loading';
    const rows = el('div', 'rows');
    rows.append(rowFor(cell));
    section.append(rows);
    return section;
  }

  function dataSections() {
    return Array.from(screen.querySelectorAll('section[data-kind="items"]'));
  }

  function findSection(id) {
    return dataSections().find((section) => section.dataset.sectionId === id) || null;
  }

  function findRow(id) {
    for (const row of screen.querySelectorAll('section[data-kind="items"] .row')) {
      if (row.dataset.id === id) return row;
    }
    return null;
  }

  function removeRow(id) {
    const row = findRow(id);
    if (!row) return;
    const section = row.closest('section');
    row.remove();
    if (section && !section.querySelector('.row')) section.remove();
  }

  // ---- the index ---------------------------------------------------------------------

  async function showIndex() {
    closeScreen();
    controls.hidden = true;
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
      showProblem(error);
    }
  }

  // ---- a list screen -----------------------------------------------------------------

  function closeScreen() {
    if (state) {
      state.abort.abort();
      if (state.observer) state.observer.disconnect();
    }
    state = null;
    setLive('off', 'offline');
  }

  /** The query that selects the view: its name and parameters (not limit or cursor). */
  function viewQuery() {
    return Object.assign({ view: state.view }, state.params);
  }

  async function openList(name, search) {
    closeScreen();
    const abort = new AbortController();
    state = { list: name, abort, observer: null, busy: new Set(), next: null, prev: null };
    const current = state;
    screen.className = 'screen list';
    screen.replaceChildren(el('p', 'note', 'Loading…'));
    $('crumb').textContent = name;
    controls.hidden = false;
    let description;
    try {
      description = await getJSON(itemsURL(name), abort.signal);
    } catch (error) {
      screen.replaceChildren();
      showProblem(error);
      return;
    }
    if (state !== current) return;
    const views = description.views || [];
    const chosen = views.find((view) => view.name === search.get('view')) || views.find((view) => view.default) || views[0];
    current.description = description;
    current.view = chosen ? chosen.name : undefined;
    current.params = {};
    for (const parameter of (chosen && chosen.parameters) || []) {
      if (search.get(parameter.name)) current.params[parameter.name] = search.get(parameter.name);
    }
    current.around = search.get('around') || '';
    document.title = (description.title || name) + ' · data-mediator explorer';
    $('crumb').textContent = (description.title || name) + (current.view ? ' · ' + current.view : '');
    fillControls(description, chosen);
    const missing = ((chosen && chosen.parameters) || []).filter((p) => p.required && !current.params[p.name]);
    if (missing.length) {
      screen.replaceChildren(el('p', 'note', 'This view needs ' + missing.map((p) => p.name).join(', ') + '.'));
      return;
    }
    await loadFirst(current);
  }

  function fillControls(description, chosen) {
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
      input.value = state.params[parameter.name] || '';
      input.placeholder = parameter.type + ' (' + parameter.field + ')';
      input.required = parameter.required;
      input.inputMode = parameter.type === 'integer' || parameter.type === 'number' ? 'numeric' : 'text';
      label.append(' ', input);
      params.append(label);
    }
    $('around').value = state.around;
    $('token').value = token();
    $('token-field').hidden = !description.scope && !token() && $('token-field').hidden;
    if (description.scope) {
      $('token').placeholder = 'JWT with claim ' + description.scope.claim;
    }
  }

  function submitControls(event) {
    event.preventDefault();
    if (!state) return;
    sessionStorage.setItem(tokenStore, $('token').value.trim());
    const params = { view: $('view').value };
    for (const input of $('params').querySelectorAll('input')) {
      if (input.value.trim()) params[input.name.slice('param:'.length)] = input.value.trim();
    }
    params.around = $('around').value.trim();
    const hash = '#/lists/' + encodeURIComponent(state.list) + query(params);
    if (location.hash === hash) route();
    else location.hash = hash;
  }

  function viewChanged() {
    if (!state) return;
    location.hash = '#/lists/' + encodeURIComponent(state.list) + query({ view: $('view').value });
  }

  async function loadFirst(current) {
    let page;
    try {
      page = await getJSON(itemsURL(current.list) + '/items' + query(Object.assign(viewQuery(), { around: current.around })), current.abort.signal);
    } catch (error) {
      screen.replaceChildren();
      showProblem(error);
      return;
    }
    if (state !== current) return;
    clearProblem();
    screen.replaceChildren();
    current.observer = new IntersectionObserver(onLoadingRowSeen, { root: screen, rootMargin: '150px 0px' });
    current.version = page.version;
    addPage(page, 'forward');
    if (current.around) {
      const row = findRow(current.around);
      if (row) {
        row.classList.add('anchor');
        row.scrollIntoView({ block: 'center' });
      }
    }
    if (!page.sections.length) screen.append(el('p', 'note empty', 'No items.'));
    follow(current, page.version);
  }

  /** Puts a page's cells on the screen: appended below (forward) or above (backward). */
  function addPage(page, direction) {
    const sections = page.sections.filter((section) => section.kind === 'items');
    for (const section of sections) for (const cell of section.items) removeRow(cell.id);
    const loadingBefore = page.sections.find((section) => section.kind === 'loading' && section.id === 'loading-before');
    const loadingAfter = page.sections.find((section) => section.kind === 'loading' && section.id !== 'loading-before');
    if (direction === 'forward') {
      const bottom = screen.querySelector('section[data-section-id="loading"][data-kind="loading"]');
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
      if (loadingBefore && !screen.querySelector('section[data-section-id="loading-before"]')) {
        state.prev = page.prev;
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
      const top = screen.querySelector('section[data-section-id="loading-before"]');
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
    current.busy.add(direction);
    try {
      const page = await getJSON(itemsURL(current.list) + '/items' + query(Object.assign(viewQuery(), { cursor })), current.abort.signal);
      if (state !== current) return;
      clearProblem();
      if (direction === 'forward') {
        addPage(page, 'forward');
      } else {
        // Keep what the reader looks at in place while rows are put above it.
        const before = screen.scrollHeight;
        const top = screen.scrollTop;
        addPage(page, 'backward');
        screen.scrollTop = top + (screen.scrollHeight - before);
      }
    } catch (error) {
      if (state === current) showProblem(error);
    } finally {
      current.busy.delete(direction);
    }
    // A loading row still in sight after the page came in asks for the next one.
    const row = screen.querySelector(direction === 'forward' ? '[data-id="loading"]' : '[data-id="loading-before"]');
    if (row && state === current) {
      current.observer.unobserve(row);
      current.observer.observe(row);
    }
  }

  // ---- live changes ------------------------------------------------------------------

  function setLive(status, text) {
    liveBadge.dataset.state = status;
    liveBadge.textContent = text;
  }

  /** Follows `/events` of the view from `version` on, reconnecting after a drop. */
  async function follow(current, version) {
    let lastEventID = version;
    let attempt = 0;
    while (state === current) {
      setLive('connecting', attempt ? 'reconnecting…' : 'connecting…');
      try {
        const response = await fetch(itemsURL(current.list) + '/events' + query(viewQuery()), {
          headers: headers({ Accept: 'text/event-stream', 'Last-Event-ID': String(lastEventID) }),
          signal: current.abort.signal,
          cache: 'no-store',
        });
        if (response.status === 410) {
          reload(current);
          return;
        }
        if (response.status >= 400 && response.status < 500 && response.status !== 429) {
          // Asking again would get the same answer.
          setLive('off', 'not live (' + response.status + ')');
          return;
        }
        if (!response.ok || !response.body) throw new Error('HTTP ' + response.status);
        attempt = 0;
        setLive('live', 'live · v' + lastEventID);
        await readEvents(response.body, (event) => {
          if (state !== current) return;
          if (event.id) lastEventID = event.id;
          if (event.type === 'reload') {
            reload(current);
            return;
          }
          if (!event.data) return;
          applyChange(JSON.parse(event.data));
          setLive('live', 'live · v' + lastEventID);
        });
      } catch (error) {
        if (error.name === 'AbortError' || state !== current) return;
      }
      if (state !== current) return;
      attempt += 1;
      setLive('reconnecting', 'reconnecting…');
      await new Promise((resolve) => setTimeout(resolve, Math.min(2000 * attempt, 10000)));
    }
  }

  /** Reads a Server-Sent Events body, calling `onEvent` with {id, type, data} per event. */
  async function readEvents(body, onEvent) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let event = { id: '', type: 'message', data: [] };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (event.data.length || event.type === 'reload') {
            onEvent({ id: event.id, type: event.type, data: event.data.join('\n') });
          }
          event = { id: '', type: 'message', data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) text = text.slice(1);
        if (field === 'id') event.id = text;
        else if (field === 'event') event.type = text;
        else if (field === 'data') event.data.push(text);
      }
    }
  }

  function reload(current) {
    if (state !== current) return;
    const search = new URLSearchParams(viewQuery());
    openList(current.list, search);
  }

  /** Applies one change of `/events` in place, by the cell's stable id (see ListReplica). */
  function applyChange(change) {
    const id = change.item ? change.item.id : change.id;
    if (state.boundary && id === state.boundary && change.op !== 'update') state.boundaryChanged = true;
    switch (change.op) {
      case 'reload':
        reload(state);
        break;
      case 'delete':
        removeRow(id);
        break;
      case 'update': {
        const row = findRow(id);
        if (row) {
          fillRow(row, change.item);
          flash(row);
        }
        break;
      }
      case 'insert':
      case 'move':
        removeRow(id);
        place(change.item, change);
        break;
      default:
        break;
    }
    const empty = screen.querySelector('.empty');
    if (empty && findRow(id)) empty.remove();
  }

  /** Puts a cell where a change places it, unless that lies outside the loaded pages. */
  function place(cell, placement) {
    const walking = Boolean(state.next);
    const before = Boolean(state.prev);
    const held = dataSections();
    const section = findSection(placement.section);
    if (section) {
      const rows = section.querySelector('.rows');
      if (placement.after === null || placement.after === undefined) {
        // The head of the first held section may lie in the pages above, not loaded yet.
        if (before && section === held[0]) return;
        const row = rowFor(cell);
        rows.prepend(row);
        flash(row);
        return;
      }
      const neighbour = Array.from(rows.children).find((row) => row.dataset.id === placement.after);
      if (!neighbour) return;
      const isLastHeld = section === held[held.length - 1] && neighbour === rows.lastElementChild;
      if (walking && isLastHeld && !state.boundaryChanged) return;
      const row = rowFor(cell);
      neighbour.after(row);
      flash(row);
      return;
    }
    let newSection;
    if (placement.section_after === null || placement.section_after === undefined) {
      if (before) return;
      newSection = sectionFor(placement.section, null);
      if (held.length) held[0].before(newSection);
      else {
        const bottom = screen.querySelector('section[data-section-id="loading"][data-kind="loading"]');
        if (bottom) bottom.before(newSection);
        else screen.append(newSection);
      }
    } else {
      const previous = findSection(placement.section_after);
      if (!previous) return;
      if (walking && previous === held[held.length - 1] && !state.boundaryChanged) return;
      newSection = sectionFor(placement.section, null);
      previous.after(newSection);
    }
    const row = rowFor(cell);
    newSection.querySelector('.rows').append(row);
    flash(row);
    nameSection(state, newSection, cell.id);
  }

  /** A section a change made is titled by its id until `/items/{id}` tells its title. */
  async function nameSection(current, section, itemID) {
    try {
      const answer = await getJSON(itemsURL(current.list) + '/items/' + encodeURIComponent(itemID) + query(viewQuery()), current.abort.signal);
      if (answer.section && answer.section.title) {
        const header = section.querySelector('.section-header');
        header.textContent = answer.section.title;
        header.classList.remove('untitled');
      }
    } catch (_) {
      // The id stays as the title; the item may be gone already.
    }
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
      showIndex();
    }
  }

  controls.addEventListener('submit', submitControls);
  $('view').addEventListener('change', viewChanged);
  window.addEventListener('hashchange', route);
  route();
})();
