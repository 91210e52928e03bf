// A node:test reporter beside TAP (test/run.ts adds it, writing to stderr): each test file's wall
// time, from the runner taking it to its process ending (its database, app and tests together),
// then the ten slowest and the sum, so where the suite's time goes is in every run's log.
import { relative } from 'node:path'

interface FileEvent { readonly type: string, readonly data: { readonly name?: string, readonly file?: string, readonly nesting?: number, readonly details?: { readonly duration_ms?: number } } }

/** Seconds with one decimal, right-aligned. */
function seconds (ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`.padStart(8)
}

export default async function * fileTimes (source: AsyncIterable<FileEvent>): AsyncGenerator<string> {
  const times = new Map<string, number>()
  for await (const { type, data } of source) {
    // A file's own event: named by its path as given, at the top level.
    if (type !== 'test:complete' || data.nesting !== 0 || data.name === undefined || data.file === undefined || !data.name.endsWith('.test.js') || !data.file.endsWith(data.name)) continue
    const file = relative('dist/test', data.name)
    const ms = data.details?.duration_ms ?? 0
    times.set(file, ms)
    yield `${seconds(ms)}  ${file}\n`
  }
  if (times.size === 0) return
  const slowest = [...times].sort(([, a], [, b]) => b - a).slice(0, 10)
  const total = [...times.values()].reduce((sum, ms) => sum + ms, 0)
  yield `\nthe ten slowest of ${times.size} files (${seconds(total).trim()} in all, two at a time):\n`
  for (const [file, ms] of slowest) yield `${seconds(ms)}  ${file}\n`
}
