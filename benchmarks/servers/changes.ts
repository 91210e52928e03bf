// tablegate as the change-feed benchmark (../changes.ts) runs it: resources alike in all but the
// change log, `feed_plain` without and `feed_logged` with `changes: {}`, each kept per tenant, and
// `feed_hooked`, without a log but with a write hook that does nothing: its writes take the
// pipeline's transaction (a hook rules out the one-statement path; the log no longer does);
// callers are another issuer's (BENCH_VERIFIER_JWK) with a `tenant` claim, up to 10 streams each.
// GET /bench/changes-hub answers the process's hub counts (cohorts, following), read off the
// ChangeHub instance its `follow` is called on: the plugin keeps the hub to itself.
// GET /bench/update-statements answers the first text of each resource's update the process
// ran, as it ran it (the `tablegate:query` channel): ../changes-sql.ts runs them again without HTTP.
// SIGUSR2: prints its V8 heap (./heap-signal.ts).
import { createServer } from '../../lib/server.js'
import { queryChannel } from '../../lib/db/query.js'
import { ChangeHub } from '../../lib/changes/hub.js'
import type { FieldConfig } from '../../lib/config/schema.js'
import { BENCH_AUDIENCE, BENCH_ISSUER } from '../issuer.js'
import { answerHeapSignal } from './heap-signal.js'

const hubs = new Set<ChangeHub>()
const follow = ChangeHub.prototype.follow
ChangeHub.prototype.follow = async function (this: ChangeHub, ...args: Parameters<ChangeHub['follow']>): Promise<void> {
  hubs.add(this)
  await follow.apply(this, args)
}

const fields: Record<string, FieldConfig> = {
  id: { type: 'bigint', readOnly: true, dbDefault: true },
  title: { type: 'string', required: true },
  status: { type: 'string' },
  total: { type: 'decimal' },
  placed_at: { type: 'timestamp' },
}
const resource = { tenant: 'tenant_id', version: 'version', fields }

const app = await createServer({
  databaseUrl: process.env.BENCH_DATABASE_URL,
  authSecret: process.env.BENCH_AUTH_SECRET,
  verifier: { keys: [JSON.parse(process.env.BENCH_VERIFIER_JWK!)], issuer: BENCH_ISSUER, audience: BENCH_AUDIENCE, tenantClaim: 'tenant' },
  changes: { streamsPerCaller: 10 },
  resources: {
    feed_plain: { ...resource, table: 'feed_plain' },
    feed_logged: { ...resource, table: 'feed_logged', changes: {} },
    feed_hooked: { ...resource, table: 'feed_hooked' },
  },
})
app.tablegate.addWriteHook(() => {}, { resources: ['feed_hooked'] })
const updates: Record<string, string> = {}
const UPDATE = /^(?:WITH "__written" AS \()?UPDATE "(feed_plain|feed_logged)" /
// Heard until both are known, so the writes measured later publish nothing.
const hearUpdate = (message: unknown): void => {
  const table = UPDATE.exec((message as { text: string }).text)?.[1]
  if (table !== undefined) updates[table] ??= (message as { text: string }).text
  if (updates.feed_plain !== undefined && updates.feed_logged !== undefined) queryChannel.unsubscribe(hearUpdate)
}
queryChannel.subscribe(hearUpdate)
app.get('/bench/update-statements', { config: { public: true } }, async () => updates)
app.get('/bench/changes-hub', { config: { public: true } }, async () => {
  const counts = { hubs: hubs.size, cohorts: 0, following: 0 }
  for (const hub of hubs) {
    counts.cohorts += hub.cohorts
    counts.following += hub.following
  }
  return counts
})
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(`ready ${typeof address === 'object' && address !== null ? address.port : 0}\n`)
process.on('SIGTERM', () => { void app.close().then(() => process.exit(0)) })
answerHeapSignal()
