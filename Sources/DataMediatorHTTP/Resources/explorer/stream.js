// The explorer's reading of an event stream (Server-Sent Events, as the HTML standard
// defines them): lines end at CR LF, CR or LF, also when a CR LF pair comes split across
// two chunks; `retry:` is handed to the caller; a stream that sends nothing for longer than
// its heartbeats allow is ended, as a half-open connection would otherwise seem live for ever.

/** How long a stream may stay silent: the service sends a heartbeat at least every 15 s. */
export const silenceLimit = 45000;

/**
 * Reads an event stream body, calling `onEvent` with {id, type, data} per event (`id` ''
 * when the event named none) and `onRetry` with the reconnection time in milliseconds a
 * `retry:` field gives. Ends when the body does; throws when it fails or stays silent
 * for `silence` milliseconds.
 */
export async function readEvents(body, onEvent, { onRetry = () => {}, silence = silenceLimit } = {}) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { id: '', type: 'message', data: [] };
  try {
    for (;;) {
      const { value, done } = await readWithin(reader, silence);
      if (!done) buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A CR that ends what came so far may be the first half of a CR LF pair (unless
        // nothing more comes).
        if (!done && buffer[end] === '\r' && end === buffer.length - 1) break;
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
        if (field === 'id' && !text.includes('\0')) event.id = text;
        else if (field === 'event') event.type = text;
        else if (field === 'data') event.data.push(text);
        else if (field === 'retry' && /^\d+$/.test(text)) onRetry(Number(text));
      }
      // An event not ended by a blank line when the body ends is not dispatched.
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** The reader's next chunk; a failure when none comes within `silence` milliseconds. */
async function readWithin(reader, silence) {
  let timer;
  const silent = new Promise((_, reject) => {
    const seconds = Math.round(silence / 1000);
    timer = setTimeout(
      () => reject(new Error('nothing came for ' + seconds + ' s, though the server sends a heartbeat every 15 s')),
      silence,
    );
  });
  try {
    return await Promise.race([reader.read(), silent]);
  } finally {
    clearTimeout(timer);
  }
}
