// A Server-Sent Events client for tests, on fetch: what a browser's fetch-based reader does
// (EventSource cannot send Authorization). It keeps every event, comment and id in order.
import assert from 'node:assert/strict'

export interface SseEvent {
  /** The event's name; `message` when it has none. */
  readonly event: string
  readonly data: string
  /** The last event id as of this event (the field, or the one before it). */
  readonly id: string | undefined
}

export interface SseStream {
  readonly status: number
  readonly headers: Headers
  /** Every event so far, in order. */
  readonly events: SseEvent[]
  /** Every comment line so far (`heartbeat`), each with the last event id as it stood after it. */
  readonly comments: Array<{ readonly text: string, readonly id: string | undefined }>
  /** Resolves when the server has ended the stream. */
  readonly ended: Promise<void>
  /** Waits until `count` events match `match`, at most `ms`; returns them. */
  next (match: (e: SseEvent) => boolean, count?: number, ms?: number): Promise<SseEvent[]>
  close (): void
}

export async function openStream (url: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController()
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal })
  const events: SseEvent[] = []
  const comments: Array<{ text: string, id: string | undefined }> = []
  let lastId: string | undefined
  const ended = (async () => {
    if (response.body === null) return
    const decoder = new TextDecoder()
    let buffer = ''
    let fields: { event?: string, data?: string[], sawId?: boolean } = {}
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true })
        let newline: number
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline)
          buffer = buffer.slice(newline + 1)
          if (line === '') {
            if (fields.data !== undefined) events.push({ event: fields.event ?? 'message', data: fields.data.join('\n'), id: lastId })
            fields = {}
          } else if (line.startsWith(':')) {
            comments.push({ text: line.slice(1).trim(), id: lastId })
          } else {
            const colon = line.indexOf(':')
            const name = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (name === 'event') fields.event = value
            else if (name === 'data') (fields.data ??= []).push(value)
            else if (name === 'id') lastId = value
          }
        }
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err
    }
  })()
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    ended,
    next: async (match, count = 1, ms = 10_000) => {
      const deadline = Date.now() + ms
      for (;;) {
        const found = events.filter(match)
        if (found.length >= count) return found.slice(0, count)
        if (Date.now() > deadline) assert.fail(`${found.length} of ${count} events within ${ms} ms; had: ${JSON.stringify(events)}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    close: () => { abort.abort() },
  }
}
