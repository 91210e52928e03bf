// The change feed (docs/changes.md): where a resource has `changes`, its `:changes` route, the
// process's hub that reads the change log for every follower, the LISTEN that wakes it, and the
// pruning of what the retention no longer keeps. All of it hangs off the app.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { listenForChanges, type Listener } from '../../lib/changes/listen.js'
import { pruneLog } from '../../lib/changes/log.js'
import { changeTokens } from '../../lib/changes/position.js'
import { deriveKey } from '../../lib/crypto.js'
import { changesRoute } from './routes.js'
import { StreamSlots } from './slots.js'

/** Pruning runs at least once a minute, and twice per retention when that is shorter. */
const PRUNE_MS = { min: 1000, max: 60_000 }

async function changes (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  const { config, db } = runtime
  const hub = runtime.changes
  if (hub === undefined) return
  const settings = config.changes
  const listenUrl = settings.listenUrl ?? (config.databasePooler === 'none' ? db.embedded?.url : undefined)
  let listener: Listener | undefined
  const startListening = (): void => {
    if (listener !== undefined || listenUrl === undefined) return
    listener = listenForChanges(listenUrl, () => { void hub.wake() }, (err) => { app.log.warn({ err }, 'change feed: the LISTEN connection failed; polling until it is back') })
  }
  const route = changesRoute(runtime, {
    hub,
    tokens: changeTokens(deriveKey(db.authSecret, 'change-token')),
    slots: new StreamSlots(settings.streamsPerProcess, settings.streamsPerCaller),
    startListening,
  })
  runtime.routes.addResourceRoute(route)

  const pruneEvery = Math.min(PRUNE_MS.max, Math.max(PRUNE_MS.min, Math.floor(settings.retentionMs / 2)))
  const pruning = setInterval(() => {
    pruneLog(db.app, settings.retentionMs).catch((err: unknown) => { app.log.warn({ err }, 'change feed: pruning the change log failed') })
  }, pruneEvery)
  pruning.unref()
  // Streams end before the server waits for its connections to close: each client resumes elsewhere.
  app.addHook('preClose', async () => {
    clearInterval(pruning)
    hub.close()
    await listener?.close()
  })
}

export default fp(changes, { name: 'tablegate-changes', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
