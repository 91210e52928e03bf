// PostgreSQL's regular expressions (AREs) are close to JavaScript's but not the same: this finds
// the patterns PostgreSQL would refuse, so regex() answers 400 invalid-filter with a span instead
// of a database error. It errs strict: a few patterns PostgreSQL accepts are refused here.
const POSIX_CLASSES = new Set(['alnum', 'alpha', 'ascii', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'word', 'xdigit'])
const ENTRY_ESCAPES: Record<string, number> = { a: 7, b: 8, B: 92, e: 27, f: 12, n: 10, r: 13, t: 9, v: 11, '0': 0 }

/**
 * The character a character-entry escape at `p[i]` stands for and its length; undefined when it is
 * not one; `length: 0` when PostgreSQL refuses it (`\q`, `\u12`, a trailing `\`).
 */
function entryEscape (p: string, i: number): { code: number, length: number } | undefined {
  const e = p[i + 1]
  if (e === undefined) return { code: 0, length: 0 }
  if (!/[0-9A-Za-z]/.test(e)) return { code: e.codePointAt(0)!, length: 2 }
  if (ENTRY_ESCAPES[e] !== undefined) return { code: ENTRY_ESCAPES[e], length: 2 }
  if (e === 'c') return p[i + 2] === undefined ? { code: 0, length: 0 } : { code: p.charCodeAt(i + 2) & 31, length: 3 }
  const digits = e === 'u' ? /^[0-9a-fA-F]{4}/ : e === 'U' ? /^[0-9a-fA-F]{8}/ : e === 'x' ? /^[0-9a-fA-F]{1,6}(?![0-9a-fA-F])/ : undefined
  if (digits === undefined) return undefined
  const hex = digits.exec(p.slice(i + 2))?.[0]
  const code = hex === undefined ? NaN : parseInt(hex, 16)
  return code <= 0x10ffff ? { code, length: 2 + hex!.length } : { code: 0, length: 0 }
}

/** The index of the `]` closing the bracket expression at `p[start]`, or -1 when PostgreSQL refuses it. */
function bracketEnd (p: string, start: number): number {
  let i = start + 1
  if (p[i] === '^') i++
  // A ] first is a literal; it can start a range.
  let previous: number | undefined = p[i] === ']' ? 93 : undefined
  if (previous !== undefined) i++
  let rangeFrom: number | undefined
  let afterSet = false
  while (i < p.length) {
    const c = p[i]!
    if (c === ']' && rangeFrom === undefined) return i
    if (c === '-' && rangeFrom === undefined && p[i + 1] !== ']' && i + 1 < p.length) {
      if (previous === undefined) {
        if (afterSet) return -1
        previous = 45
        i++
        continue
      }
      rangeFrom = previous
      i++
      continue
    }
    let code: number | undefined
    let length: number
    if (c === '[' && (p[i + 1] === ':' || p[i + 1] === '.' || p[i + 1] === '=')) {
      const kind = p[i + 1]!
      const close = p.indexOf(kind + ']', i + 2)
      if (close < 0) return -1
      const name = p.slice(i + 2, close)
      if (kind === ':' ? !POSIX_CLASSES.has(name) : [...name].length !== 1) return -1
      if (kind === '.') code = name.codePointAt(0)
      length = close + 2 - i
    } else if (c === '\\') {
      const entry = entryEscape(p, i)
      if (entry === undefined) {
        if (!'dDsSwW'.includes(p[i + 1]!)) return -1
        length = 2
      } else {
        if (entry.length === 0) return -1
        code = entry.code
        length = entry.length
      }
    } else {
      code = p.codePointAt(i)!
      length = code > 0xffff ? 2 : 1
    }
    if (rangeFrom !== undefined) {
      if (code === undefined || code < rangeFrom) return -1
      previous = undefined
      afterSet = true
      rangeFrom = undefined
    } else {
      previous = code
      afterSet = code === undefined
    }
    i += length
  }
  return -1
}

/**
 * Patterns JavaScript compiles but PostgreSQL's regular expressions (AREs) refuse: escapes of
 * letters they do not define, back references to groups not closed before them, (?<name>) groups,
 * bounds over 255 or left open, quantified constraints, and bracket expressions read PostgreSQL's
 * way (a leading ] is literal; [:class:] names; no set or reversed range ends).
 */
export function pgRegexValid (p: string): boolean {
  const open: Array<'capture' | 'group' | 'look'> = []
  let closed = 0
  let capturedInLook = false
  let quantifiable = false
  let quantified = false
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!
    let next = { quantifiable: true, quantified: false }
    if (c === '\\') {
      const entry = entryEscape(p, i)
      const e = p[i + 1]!
      if (entry !== undefined) {
        if (entry.length === 0) return false
        i += entry.length - 1
      } else if ('AmMyYZ'.includes(e)) {
        next = { quantifiable: false, quantified: false }
        i++
      } else if (e >= '1' && e <= '9') {
        if (Number(e) > closed || capturedInLook || open.includes('look')) return false
        i++
      } else if ('dDsSwW'.includes(e)) {
        i++
      } else {
        return false
      }
    } else if (c === '[') {
      const end = bracketEnd(p, i)
      if (end < 0) return false
      i = end
    } else if (c === '(') {
      if (p[i + 1] === '?') {
        const kind = /^\(\?(?::|[=!]|<[=!])/.exec(p.slice(i, i + 4))?.[0]
        if (kind === undefined) return false
        open.push(kind === '(?:' ? 'group' : 'look')
        i += kind.length - 1
      } else {
        open.push('capture')
      }
      next = { quantifiable: false, quantified: false }
    } else if (c === ')') {
      const kind = open.pop()
      if (kind === undefined) return false
      if (kind === 'capture') {
        closed++
        if (open.includes('look')) capturedInLook = true
      }
      next = { quantifiable: kind !== 'look', quantified: false }
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const bound = c === '{' ? /^\{([0-9]+)(?:,([0-9]*))?\}/.exec(p.slice(i, i + 12)) : undefined
      if (c === '{' && bound === null) {
        // PostgreSQL reads { before a digit as a bound, which must then be complete.
        if (/[0-9]/.test(p[i + 1] ?? '')) return false
      } else {
        const lazy = c === '?' && quantified
        if (!lazy && !quantifiable) return false
        if (bound != null && (Number(bound[1]) > 255 || Number(bound[2] || 255) > 255 || Number(bound[2] || 255) < Number(bound[1]))) return false
        if (bound != null) i += bound[0].length - 1
        next = { quantifiable: false, quantified: !lazy }
      }
    } else if (c === '|' || c === '^' || c === '$') {
      next = { quantifiable: false, quantified: false }
    }
    quantifiable = next.quantifiable
    quantified = next.quantified
  }
  // Balance is checked here too: JavaScript reads [] as an empty set, PostgreSQL [] as the start of one.
  return open.length === 0
}
