// What estimates leave for after their page runs bounded: one list's work at a time, two lists' at
// most, none of it before the turn of the event loop that answers the page, and a failure leaves
// nothing behind.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setImmediate as turn } from 'node:timers/promises'
import { EstimateSettling } from '../../lib/read/estimate/settling.js'

/** Work that runs until its `finish` is called, and says whether it started. */
function work (): { run: () => Promise<void>, started: () => boolean, finish: (failed?: boolean) => void } {
  let started = false
  let finish: (failed?: boolean) => void = () => {}
  const run = async (): Promise<void> => {
    started = true
    await new Promise<void>((resolve, reject) => { finish = (failed) => { if (failed === true) reject(new Error('failed')); else resolve() } })
  }
  return { run, started: () => started, finish: (failed) => { finish(failed) } }
}

test('work runs after the turn that asked, one per list and two lists at most; a list asks again once its work is done', async () => {
  const settling = new EstimateSettling()
  const [a, b, c, again] = [work(), work(), work(), work()]
  settling.settle('a', a.run)
  assert.equal(a.started(), false, 'not in the turn that asked')
  settling.settle('a', again.run)
  settling.settle('b', b.run)
  settling.settle('c', c.run)
  await turn()
  assert.deepEqual([a.started(), again.started(), b.started(), c.started()], [true, false, true, false])
  a.finish(true)
  b.finish()
  await turn()
  await turn()
  settling.settle('a', again.run)
  settling.settle('c', c.run)
  await turn()
  assert.deepEqual([again.started(), c.started()], [true, true], 'a failed work leaves its list free to ask again')
  again.finish()
  c.finish()
})
