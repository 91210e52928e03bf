// The plugins of docs/plugins.md, compiled against the exported types (never run): a write-hook
// plugin, a list-guard plugin, an API describer and a context augmentation must type-check as
// users write them.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { OrganizationStoreError, problem, query, sql, type HookRegistrationCode, type ListGuard, type OperationsDescriber, type Queryable, type WriteEvent } from 'tablegate'

declare module 'tablegate' {
  interface TablegateContext { region?: string }
}

async function stockKeeper (app: FastifyInstance): Promise<void> {
  app.tablegate.addWriteHook(async function takeStock (event: WriteEvent, tx: Queryable) {
    const quantity = Number(event.after?.quantity ?? 0) - Number(event.before?.quantity ?? 0)
    const { rowCount } = await query(tx, sql`UPDATE stock SET level = level - ${quantity}
      WHERE product_id = ${event.after?.product_id ?? event.before?.product_id} AND level >= ${quantity}`)
    if (rowCount === 0) throw problem('conflict', 'Not enough stock for this order line.')
    const region: string | undefined = event.ctx.region
    void region
  }, { resources: ['order_lines'], operations: ['create', 'update'] })
  // @ts-expect-error an operation that does not exist
  app.tablegate.addWriteHook(async () => {}, { operations: ['upsert'] })
  // @ts-expect-error no secret on the decorator
  void app.tablegate.config.authSecret
  // @ts-expect-error only the listed settings: where the embedded database and its secret live is not one
  void app.tablegate.config.dataDir
}

export const stockKeeperPlugin = fp(stockKeeper, { name: 'stock-keeper', fastify: '5.x', dependencies: ['tablegate'] })

async function noWideExports (app: FastifyInstance, options: { maxPage: number }): Promise<void> {
  const guard: ListGuard = async (view) => {
    if (view.filter === undefined && view.pageSize > options.maxPage) {
      throw problem('invalid-parameter', `Unfiltered lists return at most ${options.maxPage} records a page.`, {
        errors: [{ parameter: 'page_size', message: `at most ${options.maxPage} without a filter` }],
      })
    }
    return view.count ? 'count=exact reads every matching row.' : undefined
  }
  app.tablegate.addListGuard(guard)
  app.tablegate.addListGuard(async (view, db) => {
    // @ts-expect-error a guard sees the list's view, not the plan behind it
    void view.estimateKey
    // @ts-expect-error nor the model: the view names the resource, its table and the fields it uses
    void view.model
    // @ts-expect-error the database runs statements; it is not a pool to take connections from
    void db.connect
    const [first] = await view.explain({ preferIndexes: true })
    return first?.plan['Node Type'] === 'Seq Scan' ? `${view.resource} is read row by row` : undefined
  })
  // @ts-expect-error a guard answers a warning or nothing
  app.tablegate.addListGuard(async () => 42)
}

export const noWideExportsPlugin = fp(noWideExports, { name: 'no-wide-exports', fastify: '5.x', dependencies: ['tablegate'] })

/** A plugin's route in each caller's OpenAPI document, for callers who see the resource. */
const describeStats: OperationsDescriber = (api) => Object.fromEntries(api.resources.map((resource) => [
  `${resource.collectionPath}:stats`,
  { get: { operationId: `${resource.name}_stats`, responses: { 200: { description: 'The statistics.', ...api.json({ type: 'object' }) }, ...api.problems(401, 404) } } },
]))

async function stats (app: FastifyInstance): Promise<void> {
  app.tablegate.addApiDescriber(describeStats)
  // @ts-expect-error a describer answers path items, not text
  app.tablegate.addApiDescriber(() => 'GET /stats')
  // @ts-expect-error problem responses are those of the statuses tablegate answers
  app.tablegate.addApiDescriber((api) => ({ '/stats': { get: { responses: api.problems(418) } } }))
}

export const statsPlugin = fp(stats, { name: 'stats', fastify: '5.x', dependencies: ['tablegate'] })

// The host-side organization operations, present only with `organizations` configured.
async function seedOrganizations (app: FastifyInstance): Promise<void> {
  const organizations = app.tablegate.organizations
  if (organizations === undefined) return
  const acme = await organizations.create({ name: 'Acme', slug: 'acme', owner: 'ann@example.com', metadata: { plan: 'pro' } })
  await organizations.addMember({ id: acme.id }, 'bob@example.com', ['admin', 'member'])
  try {
    await organizations.removeMember('acme', { id: acme.id })
  } catch (err) {
    if (!(err instanceof OrganizationStoreError) || err.code !== 'last-owner') throw err
  }
  // @ts-expect-error a user is an email or { id }
  await organizations.removeMember('acme', 42)
}

export const seedOrganizationsPlugin = fp(seedOrganizations, { name: 'seed-organizations', fastify: '5.x', dependencies: ['tablegate'] })

/** Every extension point refuses with one of these codes. */
export const codes: HookRegistrationCode[] = ['TG_ERR_HOOK_NOT_FUNCTION', 'TG_ERR_HOOK_AFTER_READY', 'TG_ERR_HOOK_UNKNOWN_RESOURCE', 'TG_ERR_HOOK_UNKNOWN_OPERATION']
// @ts-expect-error the plan of a list is not public: guards get a ListGuardView
export type Gone = import('tablegate').ListPlan
