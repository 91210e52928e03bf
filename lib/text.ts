// Small text helpers shared by config errors and, later, filter hints.

/** Levenshtein distance, bounded: returns `max + 1` as soon as the distance exceeds `max`. */
export function editDistance (a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost)
      row.push(value)
      if (value < best) best = value
    }
    if (best > max) return max + 1
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
