// Small text helpers shared by config errors, unknown-parameter messages and filter hints.

/**
 * Edit distance with transpositions (optimal string alignment): `titel` → `title` is one edit, as
 * a typist would count it. Bounded: returns `max + 1` as soon as the distance exceeds `max`.
 */
export function editDistance (a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let before: number[] = []
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1)
      row.push(value)
      if (value < best) best = value
    }
    if (best > max) return max + 1
    before = prev
    prev = row
  }
  return prev[b.length]!
}

/** The candidate closest to `word`, if one is close enough to be a plausible typo. */
export function nearest (word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase()
  const max = Math.max(1, Math.floor(word.length / 3))
  let best: string | undefined
  let bestDistance = max + 1
  for (const candidate of candidates) {
    const d = editDistance(lower, candidate.toLowerCase(), max)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** ` (did you mean 'x'?)` when a candidate is close to `word`, else nothing: the tail of a refusal. */
export function didYouMean (word: string, candidates: Iterable<string>): string {
  const suggestion = nearest(word, candidates)
  return suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`
}

/**
 * Where the first `count` characters (code points) of `text` end, as a UTF-16 offset; the text's
 * length when it has no more. Limits count characters, as a caller does, not UTF-16 units.
 */
export function endOfCodePoints (text: string, count: number): number {
  let offset = 0
  for (let seen = 0; seen < count && offset < text.length; seen++) {
    const unit = text.charCodeAt(offset)
    const pair = unit >= 0xd800 && unit <= 0xdbff && offset + 1 < text.length && (text.charCodeAt(offset + 1) & 0xfc00) === 0xdc00
    offset += pair ? 2 : 1
  }
  return offset
}

/** Most of a header value a warning may take: proxies refuse headers of some kilobytes. */
const MAX_HEADER_TEXT = 2048

/**
 * Text as a header value may carry it: printable ASCII, anything else as a `\uXXXX` escape (Node
 * refuses control characters there, and a json path key in a warning may hold any), cut to 2 KB.
 */
export function headerText (text: string): string {
  const escaped = text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return escaped.length <= MAX_HEADER_TEXT ? escaped : `${escaped.slice(0, MAX_HEADER_TEXT - 3)}...`
}
