// Server-Sent Events read from text as it arrives, for a stream fetch() opens: EventSource cannot
// send the Authorization header the API needs. The parsing is the HTML standard's ("Parsing an
// event stream"): lines end in CRLF, LF or CR, a blank line dispatches, `:` starts a comment, and
// an event without data is never dispatched, though its `id` still moves the resume position.
// Text only: the caller decodes the bytes (a streaming TextDecoder), so this runs in Node's tests.

/** One dispatched event: its name (`message` when it has none), its data, and the resume id after it. */
export interface SseMessage {
  readonly event: string
  readonly data: string
  readonly lastEventId: string
}

export class SseParser {
  /** The id to resume from (`Last-Event-ID`): the last `id` field read, dispatched or not. */
  lastEventId = ''
  /** The reconnection time the server asked for (`retry`), in ms. */
  retryMs: number | undefined
  #line = ''
  #data: string[] = []
  #event = ''
  // A chunk that ends in CR has ended its line, but an LF opening the next chunk belongs to it.
  #afterCr = false
  #started = false

  /** The events that `text`, the stream's next piece, completes. */
  push (text: string): SseMessage[] {
    if (!this.#started && text !== '') {
      this.#started = true
      if (text.startsWith('\uFEFF')) text = text.slice(1)
    }
    const messages: SseMessage[] = []
    let from = 0
    if (this.#afterCr && text.startsWith('\n')) from = 1
    this.#afterCr = false
    for (let i = from; i < text.length; i++) {
      const c = text[i]
      if (c !== '\n' && c !== '\r') continue
      const message = this.#take(this.#line + text.slice(from, i))
      if (message !== undefined) messages.push(message)
      this.#line = ''
      if (c === '\r') {
        if (i + 1 === text.length) this.#afterCr = true
        else if (text[i + 1] === '\n') i++
      }
      from = i + 1
    }
    this.#line += text.slice(from)
    return messages
  }

  #take (line: string): SseMessage | undefined {
    if (line === '') return this.#dispatch()
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.#data.push(value)
    else if (field === 'event') this.#event = value
    else if (field === 'id' && !value.includes('\u0000')) this.lastEventId = value
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this.retryMs = Number(value)
    return undefined
  }

  #dispatch (): SseMessage | undefined {
    const data = this.#data
    const event = this.#event
    this.#data = []
    this.#event = ''
    if (data.length === 0) return undefined
    return { event: event === '' ? 'message' : event, data: data.join('\n'), lastEventId: this.lastEventId }
  }
}
