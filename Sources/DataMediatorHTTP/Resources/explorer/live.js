// The explorer's live changes: follows `/events` of the open view and applies each change
// in place, by the cell's stable id, where its row is.

import {
  $,
  screen,
  headers,
  loadingSectionNamed,
  getJSON,
  retryAfter,
  query,
  itemsURL,
  rowFor,
  fillRow,
  flash,
  sectionFor,
  dataSections,
  findSection,
  findRow,
  removeRow,
  rowInSight,
  rowsInSight,
  toggleRow,
  showProblem,
  ProblemError,
  el,
} from '/explorer/dom.js';
import { state, openList, viewQuery, pageQuery, route } from '/explorer/explorer.js';

const liveBadge = $('live');
const liveStatus = $('live-status');

/**
 * Shows the stream's state in the badge; a screen reader is told when the state changes
 * (live, reconnecting, off), not at every change's new version.
 */
export function setLive(status, text, why) {
  if (liveBadge.dataset.state !== status) liveStatus.textContent = text.replace(/ · v\d+$/, '');
  liveBadge.dataset.state = status;
  liveBadge.textContent = text;
  liveBadge.title = why || 'Live updates from /events';
}

/** Follows `/events` of the view from `version` on, reconnecting after a drop. */
export async function follow(current, version) {
  let lastEventID = version;
  let attempt = 0;
  while (state === current) {
    let wait = 0;
    let why = '';
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
      if (!response.ok) {
        // The problem says why (too many streams, a token that expired); Retry-After when.
        let problem = {};
        try {
          problem = await response.json();
        } catch (_) {
          // Not a problem document: the status says enough.
        }
        // Another list opened meanwhile: this stream's refusal is not its to show.
        if (state !== current) return;
        why = (problem.detail || problem.title || 'HTTP ' + response.status) + '';
        wait = retryAfter(response) * 1000;
        if (response.status >= 400 && response.status < 500 && response.status !== 429) {
          // Asking again would get the same answer.
          setLive('off', 'not live (' + response.status + ')', why);
          // A token that expired (the server ends the stream at its `exp`) or was refused:
          // the reader is told, and the token input shows, as for a page.
          if (response.status === 401 || response.status === 403) {
            const url = itemsURL(current.list) + '/events';
            showProblem(new ProblemError(response.status, problem, url, 0), { label: 'Open again', run: route });
          }
          return;
        }
        throw new Error(why);
      }
      if (!response.body) throw new Error('no body');
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
        const change = JSON.parse(event.data);
        if (change.version === undefined) change.version = event.id;
        receive(current, change);
        setLive('live', 'live · v' + lastEventID);
      });
      why = 'The server ended the stream (it may be restarting or shutting down).';
    } catch (error) {
      if (error.name === 'AbortError' || state !== current) return;
      why = why || 'The stream failed: ' + error.message;
    }
    if (state !== current) return;
    attempt += 1;
    wait = Math.max(wait, Math.min(2000 * attempt, 10000));
    setLive('reconnecting', 'reconnecting in ' + Math.ceil(wait / 1000) + ' s…', why);
    await new Promise((resolve) => setTimeout(resolve, wait));
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

/**
 * Reads the view again (a `reload` event, history gone, a cursor the server no longer
 * takes: `refused`, which the new screen remembers), around the first row in sight when the reader has scrolled or rows precede it,
 * keeping that row where it is on the screen; when that row left the view (often the very
 * change that made the reload), around the next rows in sight in turn. Reloads asked for
 * within 300 ms are one.
 */
export function reload(current, { refused = false } = {}) {
  if (state !== current || current.reloading) return;
  current.reloading = true;
  setTimeout(() => {
    if (state !== current) return;
    const search = new URLSearchParams(pageQuery());
    const inSight = (screen.scrollTop > 0 || current.prev ? rowsInSight(4) : []).map((found) => ({
      id: found.row.dataset.id,
      offset: found.offset,
    }));
    const keep = inSight.length ? Object.assign(inSight[0], { others: inSight.slice(1) }) : { id: '', offset: 0 };
    keep.refused = refused;
    // The rows the last reload has not brought back yet stay to be opened and focused.
    keep.reopen = current.reopen;
    keep.refocus = current.refocus;
    openList(current.list, search, keep);
  }, 300);
}

/**
 * Applies a change of the stream unless the screen holds it already: one of an earlier
 * version than the screen's, or of its version when the screen holds the whole of it (a
 * page or `/changes` read at it). While a page is merged with the changes before it
 * (pages.js), the stream's changes wait in `holding` and come after.
 */
export function receive(current, change) {
  if (current.holding) {
    current.holding.push(change);
    return;
  }
  const version = Number(change.version);
  if (version < current.version || (version === current.version && current.complete)) return;
  current.version = version;
  current.complete = false;
  apply(change);
}

/** Applies one change in place, keeping the first other row in sight where it is. */
export function apply(change) {
  keepingPlace(change.item ? change.item.id : change.id, () => applyChange(change));
}

/**
 * Runs `apply` (a change to the row of `id`) keeping the first other row in sight where it
 * is on the screen: rows put or taken above it would move what the reader looks at. At the
 * top, new rows above show instead.
 */
function keepingPlace(id, apply) {
  const inSight = screen.scrollTop > 0 ? rowInSight(id) : null;
  apply();
  if (!inSight || !inSight.row.isConnected) return;
  screen.scrollTop += inSight.row.getBoundingClientRect().top - screen.getBoundingClientRect().top - inSight.offset;
}

/** Applies one change of `/events` in place, by the cell's stable id (see ListReplica). */
function applyChange(change) {
  const id = change.item ? change.item.id : change.id;
  if (state.boundary && id === state.boundary && change.op !== 'update') state.boundaryChanged = true;
  if (state.top && id === state.top && change.op !== 'update') state.topChanged = true;
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
    case 'move': {
      // A moved row stays open, and keeps the focus, at its new place (its row is made anew
      // there); one placed past the pages held opens again when a page brings it.
      const old = findRow(id);
      const open = Boolean(old && old.classList.contains('open'));
      const focused = Boolean(old && document.activeElement && old.contains(document.activeElement));
      removeRow(id);
      place(change.item, change);
      const row = findRow(id);
      if (open && row) toggleRow(row);
      else if (open && state.reopen) state.reopen.add(id);
      if (focused && row && row.querySelector('.toggle')) row.querySelector('.toggle').focus({ preventScroll: true });
      else if (focused) state.refocus = id;
      break;
    }
    default:
      break;
  }
  const empty = screen.querySelector('.empty');
  if (empty && findRow(id)) empty.remove();
  // The last item gone: the view is empty, as when it opened so.
  if (!empty && !screen.querySelector('section')) screen.append(el('p', 'note empty', 'No items.'));
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
  // A cell after another of a section not on the screen lies past rows not loaded.
  if (placement.after !== null && placement.after !== undefined) return;
  let newSection;
  if (placement.section_after === null || placement.section_after === undefined) {
    if (before) return;
    newSection = sectionFor(placement.section, null);
    if (held.length) held[0].before(newSection);
    else {
      const bottom = loadingSectionNamed('loading');
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
