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
import { readEvents } from '/explorer/stream.js';
import { mayPassLater } from '/explorer/opening.js';

const liveBadge = $('live');
// Changes that could not be read lately (any list's): each more within a minute waits
// longer before the view is read again.
const unreadable = { count: 0, at: 0 };
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

/**
 * Follows `/events` of the view from `version` on, reconnecting after a drop: from the
 * version before the last one received while changes of it came (a composite's write is
 * several changes of one version, and a drop may fall between them), skipping those it
 * received already; after the server's `retry:` (else 2 s) times the attempt, up to 10 s
 * and never sooner than a `Retry-After`, with a random part so that readers cut off
 * together do not all come back at once.
 */
export async function follow(current, version) {
  let lastEventID = String(version);
  // The changes received of version `lastEventID` (their data as sent).
  let received = new Set();
  let retry = 2000;
  let attempt = 0;
  while (state === current) {
    let wait = 0;
    let why = '';
    // When the stream was answered, and whether a change it sent could not be read.
    let opened = 0;
    let broken = false;
    setLive('connecting', attempt ? 'reconnecting…' : 'connecting…');
    try {
      const from = received.size && /^\d+$/.test(lastEventID) ? String(Number(lastEventID) - 1) : lastEventID;
      const response = await fetch(itemsURL(current.list) + '/events' + query(viewQuery()), {
        headers: headers({ Accept: 'text/event-stream', 'Last-Event-ID': from }),
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
        if (response.status >= 400 && !mayPassLater({ status: response.status })) {
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
      // The attempts are counted on until the stream brings something, or lasts: one cut
      // at once each time (a proxy's) is asked again later and later, not in a loop.
      opened = Date.now();
      setLive('live', 'live · v' + lastEventID);
      const onEvent = (event) => {
        if (state !== current || broken) return;
        if (event.type === 'reload') {
          // One the screen is past already (read at or after its version) asks nothing.
          if (!(current.complete && /^\d+$/.test(event.id) && Number(event.id) <= current.version)) reload(current);
          return;
        }
        if (!event.data) return;
        if (event.id === lastEventID && received.has(event.data)) return;
        let change;
        try {
          change = JSON.parse(event.data);
        } catch (_) {
          // A change that cannot be read is not skipped: the view is read again (the
          // stream is not resumed past it), later each time it comes again within a minute.
          broken = true;
          unreadable.count = Date.now() - unreadable.at < 60000 ? unreadable.count + 1 : 1;
          unreadable.at = Date.now();
          const wait = unreadable.count > 1 ? Math.min(1000 * 2 ** (unreadable.count - 1), 30000) : 0;
          if (wait) setLive('reconnecting', 'reloading in ' + Math.ceil(wait / 1000) + ' s…', 'A change could not be read.');
          setTimeout(() => reload(current), wait);
          return;
        }
        attempt = 0;
        if (event.id !== lastEventID) received = new Set();
        if (event.id) lastEventID = event.id;
        received.add(event.data);
        if (change.version === undefined) change.version = event.id;
        receive(current, change);
        setLive('live', 'live · v' + lastEventID);
      };
      // A `retry:` below a second (a proxy's `retry: 0`) would reconnect in a loop.
      await readEvents(response.body, onEvent, { onRetry: (milliseconds) => (retry = Math.max(milliseconds, 1000)) });
      why = 'The server ended the stream (it may be restarting or shutting down).';
    } catch (error) {
      if (error.name === 'AbortError' || state !== current) return;
      why = why || 'The stream failed: ' + error.message;
    }
    // A change that could not be read reloads the view, which follows anew.
    if (state !== current || broken) return;
    // A stream that lasted was no failure to back off from, however it ended.
    if (opened && Date.now() - opened > 60000) attempt = 0;
    attempt += 1;
    wait = Math.max(wait, Math.min(retry * attempt, Math.max(retry, 10000)) * (1 + Math.random() / 2));
    setLive('reconnecting', 'reconnecting in ' + Math.ceil(wait / 1000) + ' s…', why);
    await new Promise((resolve) => setTimeout(resolve, wait));
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

/**
 * A section a change made is titled by its id until `/items/{id}` tells its title (when
 * the item is still in that section: it may have moved meanwhile). A lookup the server did
 * not answer (busy, down) is made again after 5 s, or its `Retry-After` when longer, three
 * times at most; a page that shows the section titles it too (pages.js).
 */
async function nameSection(current, section, itemID, tries = 3) {
  const header = section.querySelector('.section-header');
  if (state !== current || !section.isConnected || !header.classList.contains('untitled')) return;
  try {
    const url = itemsURL(current.list) + '/items/' + encodeURIComponent(itemID) + query(viewQuery());
    const answer = await getJSON(url, current.abort.signal);
    if (answer.section && answer.section.title && answer.section.id === section.dataset.sectionId) {
      header.textContent = answer.section.title;
      header.classList.remove('untitled');
    }
  } catch (error) {
    // The item gone already, or refused for good: the id stays as the title.
    if (error.name === 'AbortError' || !mayPassLater(error) || tries <= 1) return;
    const wait = Math.max(5000, (error.retryAfter || 0) * 1000);
    setTimeout(() => nameSection(current, section, itemID, tries - 1), wait);
  }
}
