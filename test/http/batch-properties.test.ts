// Property: random batches of creates, updates and deletes (unique clashes, missing keys, stale
// and absent etags included) against a model in memory. After every batch, committed or refused,
// the table equals the model, and a refused batch fails with the first failing operation's status
// and index.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE kv (id serial PRIMARY KEY, k text NOT NULL UNIQUE, v integer NOT NULL, version integer NOT NULL DEFAULT 1)')
const app = await buildApp({
  databaseUrl,
  resources: { kv: { version: 'version', fields: { id: { type: 'integer', readOnly: true }, k: { type: 'string' }, v: { type: 'integer' } } } },
})
await createUser(app, 'admin@example.com')
const call = caller(app, await bearer(app, 'admin@example.com'))

interface Stored { k: string, v: number, etag: string, stale: string[] }
type Model = Map<number, Stored>

type Step =
  | { kind: 'create', k: string, v: number }
  | { kind: 'update', target: number, etag: 'current' | 'stale' | 'star' | 'none', v: number }
  | { kind: 'delete', target: number, etag: 'current' | 'stale' | 'none' }

const KEYS = ['a', 'b', 'c', 'd', 'e']
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), k: fc.constantFrom(...KEYS), v: fc.integer({ min: -5, max: 5 }) }),
  fc.record({ kind: fc.constant('update' as const), target: fc.nat(7), etag: fc.constantFrom('current' as const, 'current' as const, 'stale' as const, 'star' as const, 'none' as const), v: fc.integer({ min: -5, max: 5 }) }),
  fc.record({ kind: fc.constant('delete' as const), target: fc.nat(7), etag: fc.constantFrom('current' as const, 'stale' as const, 'none' as const) }),
)

/** A target is the n-th record of the model (by id), or, past the end, a key that does not exist. */
function targetOf (model: Model, n: number): number {
  return [...model.keys()].sort((a, b) => a - b)[n] ?? 1_000_000 + n
}

function etagFor (record: Stored | undefined, wanted: 'current' | 'stale' | 'star' | 'none'): string | undefined {
  if (wanted === 'none') return undefined
  if (wanted === 'star') return '*'
  if (record === undefined) return '"0.0000000000000000"'
  return wanted === 'current' ? record.etag : record.stale.at(-1) ?? '"0.0000000000000000"'
}

/** What the batch should do to the model: the new model, or the first failure (status and operation). */
function expected (model: Model, ops: Array<{ op: string, key?: number, data?: { k?: string, v: number }, etag?: string }>): { model: Model } | { status: number, operation: number } {
  const next: Model = new Map([...model].map(([id, r]) => [id, { ...r, stale: [...r.stale] }]))
  for (const [i, op] of ops.entries()) {
    if (op.op === 'create') {
      if ([...next.values()].some((r) => r.k === op.data!.k)) return { status: 409, operation: i }
      next.set(-1 - i, { k: op.data!.k!, v: op.data!.v, etag: '', stale: [] })
      continue
    }
    const record = next.get(op.key!)
    if (record === undefined) return { status: 404, operation: i }
    if (op.op === 'update' && op.etag === undefined) return { status: 428, operation: i }
    if (op.etag !== undefined && op.etag !== '*' && op.etag !== record.etag) return { status: 412, operation: i }
    if (op.op === 'delete') next.delete(op.key!)
    else next.set(op.key!, { ...record, v: op.data!.v, etag: '', stale: [...record.stale, record.etag] })
  }
  return { model: next }
}

async function table (): Promise<Array<{ id: number, k: string, v: number }>> {
  return await withClient(databaseUrl, async (c) => (await c.query<{ id: number, k: string, v: number }>('SELECT id, k, v FROM kv ORDER BY id')).rows)
}

test('after every random batch the table equals the model in memory', async () => {
  await fc.assert(fc.asyncProperty(fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }), async (batches) => {
    await runSql(databaseUrl, 'TRUNCATE kv RESTART IDENTITY')
    let model: Model = new Map()
    for (const steps of batches) {
      const ops: Array<{ op: string, resource: string, key?: number, data?: { k?: string, v: number }, etag?: string }> = steps.map((s) => {
        if (s.kind === 'create') return { op: 'create', resource: 'kv', data: { k: s.k, v: s.v } }
        const key = targetOf(model, s.target)
        const etag = etagFor(model.get(key), s.etag)
        return s.kind === 'update'
          ? { op: 'update', resource: 'kv', key, ...(etag === undefined ? {} : { etag }), data: { v: s.v } }
          : { op: 'delete', resource: 'kv', key, ...(etag === undefined ? {} : { etag }) }
      })
      const want = expected(model, ops)
      const answer = await call('POST', '/api/v1:batchWrite', { payload: { ops } })
      if ('status' in want) {
        assert.equal(answer.status, want.status, JSON.stringify({ ops, body: answer.body }))
        assert.equal(answer.body.operation, want.operation)
      } else {
        assert.equal(answer.status, 200, JSON.stringify({ ops, body: answer.body }))
        // The model takes the ids and etags the answer gives.
        const applied: Model = new Map([...want.model].filter(([id]) => id > 0))
        ops.forEach((op, i) => {
          const result = answer.body.results[i]
          if (op.op === 'create') applied.set(result.record.id, { k: result.record.k, v: result.record.v, etag: result.etag, stale: [] })
          // An update the same batch later deletes leaves nothing to take an etag.
          const updated = op.op === 'update' ? applied.get(op.key!) : undefined
          if (updated !== undefined) applied.set(op.key!, { ...updated, etag: result.etag })
        })
        model = applied
      }
      assert.deepEqual(await table(), [...model].sort(([a], [b]) => a - b).map(([id, r]) => ({ id, k: r.k, v: r.v })))
    }
  }), { numRuns: 150 })
})
