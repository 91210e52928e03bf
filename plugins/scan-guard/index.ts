// The scan guard: before a list or seek shape first runs, EXPLAIN its queries; a sequential scan of a
// table above `seqScanRows` is refused (400 expensive-query with an index to create), or answered
// with an X-Service-Warning (`warn`). The verdict is cached per shape for the process lifetime.
// Written as any list-guard plugin would be: it uses `app.tablegate.addListGuard` only.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { BoundedCache, problem } from '../../lib/public.js'
import { judge, type Verdict } from './verdict.js'
import { TableSizes } from './explain.js'

async function scanGuard (app: FastifyInstance): Promise<void> {
  const { mode, seqScanRows } = app.tablegate.config.scanGuard
  if (mode === 'off') return
  // Holds the last 5,000 keys and at most 10,000 (lib/cache.ts). A list's shape is known from its
  // parameters without their values (filter structure, order, show_deleted, the row rule's
  // structure), so lists that differ only in filter values (`id > N`) share a verdict without
  // compiling their SQL.
  const verdicts = new BoundedCache<Promise<Verdict>>(5_000)
  const sizes = new TableSizes(seqScanRows)
  app.tablegate.addListGuard(async (view, db) => {
    let pending = false
    const { shape } = view
    const verdict = await verdicts.getOrCreate(shape, () => {
      pending = true
      return judge(view, db, sizes)
    }).catch((err: unknown) => {
      // A failed EXPLAIN (a timeout, say) must not stick as this shape's verdict.
      if (pending) verdicts.delete(shape)
      throw err
    })
    if (verdict.ok) return undefined
    // Neither the table's size nor which table a rule's subquery reads is the caller's to know:
    // both come from rows and rules the caller may not see. The threshold and the index are theirs.
    const { suggestion } = verdict
    if (suggestion === undefined) {
      // An order by a related record's field (docs/relations.md, "Ordering"): no index of the table holds it.
      const detail = `This list would read a table of more than ${seqScanRows} rows row by row: its order starts with a related record's field, which no index of its table serves. Filter it on an indexed field, or order by a field of its own first.`
      if (mode === 'reject') throw problem('expensive-query', detail)
      return 'expensive query: reads a large table row by row to order by a related record\'s field'
    }
    const detail = `This list would read a table of more than ${seqScanRows} rows row by row, because no index serves its filter or order. An index would: ${suggestion}`
    if (mode === 'reject') throw problem('expensive-query', detail, { suggestion })
    return `expensive query: reads a large table row by row; suggested index: ${suggestion}`
  })
}

export default fp(scanGuard, { name: 'tablegate-scan-guard', fastify: '5.x', dependencies: ['tablegate'] })
