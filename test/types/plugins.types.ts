// The plugins of docs/plugins.md, compiled against the exported types (never run): a write-hook
// plugin, a list-guard plugin and a context augmentation must type-check as users write them.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { problem, query, sql, type ListGuard, type Queryable, type WriteEvent } from 'tablegate'

declare module 'tablegate' {
  interface TablegateContext { org?: string }
}

async function stockKeeper (app: FastifyInstance): Promise<void> {
  app.tablegate.addWriteHook(async function takeStock (event: WriteEvent, tx: Queryable) {
    const quantity = Number(event.after?.quantity ?? 0) - Number(event.before?.quantity ?? 0)
    const { rowCount } = await query(tx, sql`UPDATE stock SET level = level - ${quantity}
      WHERE product_id = ${event.after?.product_id ?? event.before?.product_id} AND level >= ${quantity}`)
    if (rowCount === 0) throw problem('conflict', 'Not enough stock for this order line.')
    const org: string | undefined = event.ctx.org
    void org
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
  const guard: ListGuard = async (plan) => {
    if (plan.filter === undefined && plan.pageSize > options.maxPage) {
      throw problem('invalid-parameter', `Unfiltered lists return at most ${options.maxPage} records a page.`, {
        errors: [{ parameter: 'page_size', message: `at most ${options.maxPage} without a filter` }],
      })
    }
    return plan.count ? 'count=exact reads every matching row.' : undefined
  }
  app.tablegate.addListGuard(guard)
}

export const noWideExportsPlugin = fp(noWideExports, { name: 'no-wide-exports', fastify: '5.x', dependencies: ['tablegate'] })
