// A transaction whose connection is lost before its COMMIT committed nothing, and says so: the
// work must never be answered as done. (Behind every write's 201: the fault suite loses
// connections under load; this pins the moment between the last statement and the COMMIT.)
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { freshDatabase, releaseBeforeDrop, runSql, withClient } from '../helpers/db.js'
import { createPool } from '../../lib/db/pool.js'
import { beginTransaction, withTransaction } from '../../lib/db/transaction.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE ledger (n integer PRIMARY KEY)')
const pool = createPool(databaseUrl, { max: 2 })
after(releaseBeforeDrop(databaseUrl, async () => { await pool.end() }))

async function count (): Promise<number> {
  return await withClient(databaseUrl, async (c) => Number((await c.query('SELECT count(*) AS n FROM ledger')).rows[0].n))
}

/** Ends the backend of `pid` from another connection, and waits until its client has heard. */
async function loseConnection (pid: number, heard: () => boolean): Promise<void> {
  await withClient(databaseUrl, async (c) => { await c.query('SELECT pg_terminate_backend($1)', [pid]) })
  for (let i = 0; i < 100 && !heard(); i++) await sleep(10)
  assert.ok(heard(), 'the client heard its connection end')
}

test('commit() after the connection was lost rejects, and nothing is stored', async () => {
  const transaction = await beginTransaction(pool)
  await transaction.tx.query('INSERT INTO ledger (n) VALUES (1)')
  let heard = false
  transaction.tx.on('error', () => { heard = true })
  await loseConnection((transaction.tx as unknown as { processID: number }).processID, () => heard)
  await assert.rejects(transaction.commit(), /terminat/i)
  assert.equal(await count(), 0)
})

test('withTransaction whose connection is lost after its work rejects instead of answering', async () => {
  const done = withTransaction(pool, {}, async (tx) => {
    await tx.query('INSERT INTO ledger (n) VALUES (2)')
    let heard = false
    tx.on('error', () => { heard = true })
    await loseConnection((tx as unknown as { processID: number }).processID, () => heard)
    return 'written'
  })
  await assert.rejects(done, /terminat/i)
  assert.equal(await count(), 0)
  // The pool discarded the lost connection and serves the next unit of work.
  assert.equal(await withTransaction(pool, {}, async (tx) => (await tx.query('SELECT 1 AS one')).rows[0].one), 1)
})
