// The explorer's pages: a page read forward or backward put on the screen, the loading
// rows that ask for them, and the boundaries live changes must respect (live.js reads
// them from the state). explorer.js opens the list and routes.

import {
  screen,
  getJSON,
  query,
  itemsURL,
  showProblem,
  clearProblem,
  rowFor,
  sectionFor,
  loadingSection,
  loadingSectionNamed,
  dataSections,
  findSection,
  findRow,
  removeRow,
  dropRow,
  toggleRow,
} from '/explorer/dom.js';
import { state, openList, pageQuery, viewQuery, route } from '/explorer/explorer.js';
import { receive, apply, reload } from '/explorer/live.js';
import { mayPassLater } from '/explorer/opening.js';

/**
 * Puts the row a reload kept back where it was on the screen. A page around it may be too
 * short below it for that: the next pages forward (which its loading row, in sight, asks
 * for) make room, so this is done again after each, up to three.
 */
export function holdRow(current) {
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

/**
 * Lets go of the rows from the first one a page read forward shows: changes put rows after a
 * moved or deleted bottom boundary, the page reads on from that boundary's place and shows a
 * run of the view, so the rows it does not show lie past it (later pages bring them).
 */
function letGoPast(sections) {
  const shown = new Set(sections.flatMap((section) => section.items.map((cell) => cell.id)));
  const rows = Array.from(screen.querySelectorAll('section[data-kind="items"] .row'));
  const first = rows.findIndex((row) => shown.has(row.dataset.id));
  if (first < 0) return;
  for (const row of rows.slice(first)) dropRow(row);
}

/**
 * Opens the rows a reload kept open (`reopen`) and focuses the one that had the focus
 * (`refocus`, unless the reader has put it elsewhere since) once a page brings them back.
 */
function restoreKept(current) {
  for (const id of current.reopen || []) {
    const row = findRow(id);
    if (!row) continue;
    if (!row.classList.contains('open')) toggleRow(row);
    current.reopen.delete(id);
  }
  const row = current.refocus && findRow(current.refocus);
  if (!row) return;
  current.refocus = null;
  const idle = !document.activeElement || document.activeElement === document.body || document.activeElement === screen;
  if (idle && row.querySelector('.toggle')) row.querySelector('.toggle').focus({ preventScroll: true });
}

/**
 * Puts the loading row above the rows held, which reads `page.prev` when it comes in
 * sight: the page's own (`cell`, a page read around an item) or one made up for a page
 * read from a `next` cursor, which has a `prev` but no loading row (its reader came from
 * the items before it; one who opened its link holds none of them).
 */
export function addLoadingBefore(page, cell) {
  const items = page.sections.filter((section) => section.kind === 'items').flatMap((section) => section.items);
  state.prev = page.prev;
  holdTop(items.length ? items[0].id : null);
  const top = loadingSection(cell || { id: 'loading-before', type: 'loading', rev: '0', data: { prev: page.prev } });
  screen.prepend(top);
  state.observer.observe(top.querySelector('.row'));
}

/** Puts a page's cells on the screen: appended below (forward) or above (backward). */
export function addPage(page, direction) {
  const sections = page.sections.filter((section) => section.kind === 'items');
  if (direction === 'forward') letGoPast(sections);
  // The rows the page shows again go, in one pass over the rows held (a lookup for each of
  // a page of 1,000 made adding a page at depth take seconds).
  const shown = new Set(sections.flatMap((section) => section.items.map((cell) => cell.id)));
  for (const row of screen.querySelectorAll('section[data-kind="items"] .row')) {
    if (shown.has(row.dataset.id)) dropRow(row);
  }
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
      } else if (section.title) {
        // A section a change made, untitled yet: the page says its title.
        const header = target.querySelector('.section-header');
        header.textContent = section.title;
        header.classList.remove('untitled');
      }
      const rows = target.querySelector('.rows');
      for (const cell of section.items) rows.append(rowFor(cell));
    }
    const items = sections.flatMap((section) => section.items);
    state.next = page.next;
    state.boundary = page.next ? (items.length ? items[items.length - 1].id : state.boundary) : null;
    state.boundaryChanged = false;
    if (loadingBefore && !loadingSectionNamed('loading-before')) addLoadingBefore(page, loadingBefore.items[0]);
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
        const header = target.querySelector('.section-header');
        header.textContent = section.title;
        header.classList.remove('untitled');
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
  restoreKept(state);
}

export function onLoadingRowSeen(entries) {
  for (const entry of entries) {
    if (!entry.isIntersecting || !state) continue;
    if (entry.target.dataset.id === 'loading-before') loadMore(state, 'backward');
    else loadMore(state, 'forward');
  }
}

async function loadMore(current, direction) {
  const cursor = direction === 'forward' ? current.next : current.prev;
  // Not before the wait a failure set (a loading row scrolled into sight again asks nothing).
  const notBefore = (current.notBefore && current.notBefore[direction]) || 0;
  if (!cursor || current.busy.has(direction) || Date.now() + 50 < notBefore) return;
  // The top boundary moved or went: `prev` would read from its old place and miss what a
  // change put between it and the first row held now, so the page around that row is read
  // instead (its rows already held stay where it shows them, and its `prev` goes on).
  // Only a page read backward starts from that place: one read forward goes on from the
  // bottom boundary, and one read around the top row would skip the rows between.
  const firstRow =
    direction === 'backward' && current.topChanged ? dataSections()[0]?.querySelector('.row') : null;
  const extra = firstRow ? { around: firstRow.dataset.id } : { cursor };
  current.busy.add(direction);
  // Assistive technology is told the list is being loaded, and when it is done.
  screen.setAttribute('aria-busy', 'true');
  let wait = 0;
  try {
    // One page at a time is merged with the changes since the screen's version.
    await oneAtATime(current, async () => {
      const page = await readPage(current, extra);
      if (state !== current) return;
      clearProblem();
      if (current.notice) showProblem(current.notice);
      await mergePage(current, page, () => {
        if (direction === 'forward') {
          addPage(page, 'forward');
          holdRow(current);
        } else {
          // The top boundary moved or went while this page was read from its old place (a
          // change of the stream, or of the backlog just applied): what changes put between
          // that place and the first row held now lies between this page and the screen, so
          // the page is left out and the next one is read around that row (`topChanged`).
          if (!extra.around && current.topChanged && dataSections().length) return;
          // Read around the first row held: when a change moved or took that row meanwhile,
          // the page shows its new place, not the rows above the screen; read again.
          if (extra.around && dataSections()[0]?.querySelector('.row')?.dataset.id !== extra.around) return;
          // Keep what the reader looks at in place while rows are put above it.
          const before = screen.scrollHeight;
          const top = screen.scrollTop;
          addPage(page, 'backward');
          screen.scrollTop = top + (screen.scrollHeight - before);
        }
      });
    });
    current.failures = 0;
  } catch (error) {
    if (state !== current || error.name === 'AbortError') return;
    if (extra.around && error.status === 404) {
      // That row went meanwhile: once its change is here the page is read around the row
      // first then (`topChanged` stays: `prev` would skip what lies between). A little
      // later, and twice as late each time in a row (the change may be slow to come).
      current.failures += 1;
      wait = Math.min(250 * 2 ** (current.failures - 1), 8000);
    } else if (error.kind === 'bad-cursor' || error.kind === 'cursor-mismatch') {
      // The server will not take this cursor again (its secret changed, say): the view is
      // read again around the row in sight, which needs no cursor. Refused again after
      // that, the reader starts again from the top (the address says so too).
      if (!current.refused) {
        reload(current, { refused: true });
        return;
      }
      const top = '#/lists/' + encodeURIComponent(current.list) + query(pageQuery());
      const fromTheTop = () => {
        if (location.hash === top) openList(current.list, new URLSearchParams(pageQuery()));
        else location.hash = top;
      };
      showProblem(error, { label: 'Reload from the top', run: fromTheTop });
      return;
    } else if (error.status >= 400 && !mayPassLater(error)) {
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
  current.notBefore = Object.assign(current.notBefore || {}, { [direction]: wait ? Date.now() + wait : 0 });
  if (wait) setTimeout(again, wait);
  else again();
}

/** Runs `work` once the page loads begun before it are done, failed or not. */
function oneAtATime(current, work) {
  const run = (current.merging || Promise.resolve()).then(work);
  current.merging = run.catch(() => {});
  return run;
}

/**
 * Reads a page, and again while it is older than what the screen shows (the stream's
 * changes ran ahead of a page read before them, or a replica lags the one read before):
 * up to 5 times after pauses of 50 ms doubling, as the client kit does.
 */
async function readPage(current, extra) {
  const url = itemsURL(current.list) + '/items' + query(pageQuery(extra));
  for (let attempt = 0; ; attempt += 1) {
    const page = await getJSON(url, current.abort.signal);
    if (Number(page.version) >= current.version || state !== current) return page;
    if (attempt === 5) {
      throw new Error('The page read (version ' + page.version + ') is older than the screen (' + current.version + ').');
    }
    await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
  }
}

/**
 * Puts a page on the screen (`add`) at its version, as the client kit merges one: the
 * changes between the screen's version and the page's first (a change read on the stream
 * after the page would be applied to rows newer than it), then the page, then those after
 * it. The stream's changes wait meanwhile (`holding`, live.js). A backlog of more than one
 * answer, history gone or an aggregate's `reload` reads the view again instead.
 */
async function mergePage(current, page, add) {
  const at = Number(page.version);
  if (at <= current.version) {
    add();
    return;
  }
  current.holding = [];
  let backlog;
  try {
    // Changes of the screen's version may still come when it holds only some of them.
    backlog = await readBacklog(current, current.complete ? current.version : current.version - 1);
  } catch (error) {
    const held = current.holding;
    current.holding = null;
    for (const change of held) receive(current, change);
    throw error;
  }
  const held = current.holding;
  current.holding = null;
  if (state !== current) return;
  if (backlog === null) {
    // The view is read anew, with what the held changes did.
    reload(current);
    return;
  }
  for (const change of backlog.changes) if (Number(change.version) <= at) apply(change);
  add();
  for (const change of backlog.changes) if (Number(change.version) > at) apply(change);
  current.version = Math.max(at, backlog.version);
  current.complete = true;
  for (const change of held) receive(current, change);
}

/**
 * The view's changes after version `since` (`/changes`): {changes, version}, or null when
 * reading the view again is the way (history gone, more than one answer of changes, or a
 * list over a query, whose changes are a `reload`).
 */
async function readBacklog(current, since) {
  let answer;
  try {
    answer = await getJSON(
      itemsURL(current.list) + '/changes' + query(Object.assign(viewQuery(), { since, limit: 1000 })),
      current.abort.signal,
    );
  } catch (error) {
    if (error.status === 410) return null;
    throw error;
  }
  if (answer.next || answer.changes.some((change) => change.op === 'reload')) return null;
  return { changes: answer.changes, version: Number(answer.version) };
}
