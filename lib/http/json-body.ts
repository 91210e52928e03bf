// What a JSON body must be before it is parsed, and what it must not say once it is.
//
// Bodies are UTF-8 (RFC 8259) and sent as they are: a charset or a content coding this server does
// not decode is a 415, and bytes that are not UTF-8 are refused rather than stored as U+FFFD.
//
// JSON bodies that name a member twice are refused: JSON.parse keeps the last, another parser
// (a proxy, a WAF, an audit tool) the first, and a body that means two things to two readers is
// an attack, not a request. Run on text JSON.parse has already accepted, so only strings need
// care; one pass, no allocation but the keys of each object.
import { isUtf8 } from 'node:buffer'
import type { IncomingHttpHeaders } from 'node:http'
import { problem, type Problem } from '../problems.js'

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i
const UTF8 = /^utf-?8$/i

/** Why these bytes cannot be read as a JSON body, if they cannot. */
export function unreadableJsonBody (headers: IncomingHttpHeaders, body: Buffer): Problem | undefined {
  const coding = headers['content-encoding']
  if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') {
    return problem('unsupported-media-type', 'The body has a Content-Encoding this server does not decode: send it uncompressed.')
  }
  const charset = CHARSET.exec(headers['content-type'] ?? '')?.[1]
  if (charset !== undefined && !UTF8.test(charset)) return problem('unsupported-media-type', 'JSON bodies are UTF-8: send charset=utf-8, or no charset.')
  if (!isUtf8(body)) return problem('malformed-json', 'The request body is not valid UTF-8.')
  return undefined
}

/** Why a body JSON.parse reads was refused by the parser: it names `__proto__`, or `constructor` with `prototype`. */
export function forbiddenMember (): Problem {
  return problem('malformed-json', 'The body names "__proto__" or "constructor.prototype", which no JSON body here may name: no field, operation or option has that name.')
}

/** Whether this text is JSON at all. */
export function isJson (text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Whether any object in this (valid) JSON text has two members of the same name. */
export function hasDuplicateKeys (text: string): boolean {
  const objects: Array<Set<string> | undefined> = []
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x7b) { // {
      objects.push(new Set())
      expectKey = true
    } else if (c === 0x5b) { // [
      objects.push(undefined)
      expectKey = false
    } else if (c === 0x7d || c === 0x5d) { // } ]
      objects.pop()
      expectKey = false
    } else if (c === 0x2c) { // ,
      expectKey = objects.at(-1) !== undefined
    } else if (c === 0x22) { // "
      const start = i
      let escaped = false
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) { // backslash: the next character is escaped
          escaped = true
          i++
        } else if (d === 0x22) {
          break
        }
      }
      if (expectKey) {
        // "a" and "\u0061" are the same name: escapes are decoded before names are compared.
        const key = escaped ? JSON.parse(text.slice(start, i + 1)) as string : text.slice(start + 1, i)
        const keys = objects.at(-1)!
        if (keys.has(key)) return true
        keys.add(key)
        expectKey = false
      }
    }
  }
  return false
}
