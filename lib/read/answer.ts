// The serialize phase of a read: what ./execute.ts read, as the answer's JSON. No statement runs
// here; record checks of `permissions` (the rule's functions) may be awaited.
import type { GetPlan, ListPlan } from '../plan/types.js'
import type { PageDirection } from '../query/page-token.js'
import { ownField } from '../query/order-by.js'
import type { Row } from '../serialize/record.js'
import { recordBuilder, recordJson } from '../serialize/json.js'
import { listJson, seekJson } from '../serialize/envelopes.js'
import { embedsReader } from '../serialize/embed.js'
import { rowPermissions } from './permissions.js'
import type { PageRead, ReadServices } from './execute.js'

export interface RecordAnswer {
  readonly json: string
  readonly etag: string
}

/** A get's record as read (./execute.ts readRecord), as its JSON and ETag. */
export async function recordAnswer (plan: GetPlan, found: Row, services: ReadServices): Promise<RecordAnswer> {
  const row = plan.scope.present === undefined ? found : plan.scope.present(found)
  const etag = services.etags.of(plan.model, plan.readable)(row)
  const permissions = plan.permissions === undefined ? undefined : await rowPermissions(plan.model, plan.permissions)(row)
  if (plan.embeds.length === 0) return { etag, json: recordJson(plan.select, row, etag, permissions?.json) }
  // Embeds are read from the row as read: a presenter of the record's own rows knows nothing of them.
  const embedded = embedsReader(plan.embeds, services.etags, services.pageTokens)(found, found)
  const build = recordBuilder(plan.select, plan.embeds.map((embed) => embed.relation.name))
  return { etag, json: JSON.stringify(build(row, etag, permissions?.object, embedded)) }
}

/** A page's records, as objects for JSON.stringify. */
export async function pageRecords (plan: ListPlan, page: readonly Row[], services: ReadServices): Promise<Row[]> {
  // Worked out once per page, so the loop does only per-row work; permissions decided by rows
  // come back as one of the plan's four forms, so a page of them costs no await per row.
  const build = recordBuilder(plan.select, plan.embeds.map((embed) => embed.relation.name))
  const embeds = plan.embeds.length === 0 ? undefined : embedsReader(plan.embeds, services.etags, services.pageTokens)
  const etag = services.etags.of(plan.model, plan.readable)
  const permissionsOf = plan.permissions === undefined ? undefined : rowPermissions(plan.model, plan.permissions)
  const present = plan.scope.present
  const records: Row[] = []
  for (const found of page) {
    const row = present === undefined ? found : present(found)
    const permissions = permissionsOf?.(row)
    records.push(build(row, etag(row), (permissions instanceof Promise ? await permissions : permissions)?.object, embeds?.(found, found)))
  }
  return records
}

/** A page as read (./execute.ts readPage), as the list's or the seek's answer. */
export async function pageJson (plan: ListPlan, read: PageRead, services: ReadServices): Promise<string> {
  const page = read.rows
  const records = await pageRecords(plan, page, services)
  // Tokens read on from the page's own rows: forward from its last, backward from its first. Rows
  // follow a backward page (the one its token came from), and precede a page that a forward token
  // or a seek position started; an empty page has no row to read on from.
  const backward = plan.cursor?.direction === 'backward'
  const rowsAfter = backward ? page.length > 0 : read.hasMore
  const rowsBefore = backward ? read.hasMore : (plan.cursor !== undefined || plan.position > 0) && page.length > 0
  const tokenFrom = (row: Row | undefined, direction: PageDirection): string =>
    row === undefined ? '' : services.pageTokens.encode(plan.tokenBinding, { direction, values: orderValues(plan, row) }, plan.parent, plan.tokenScope)
  const nextPageToken = rowsAfter ? tokenFrom(page.at(-1), 'forward') : ''
  if (plan.kind === 'seek') return seekJson(records, nextPageToken, rowsBefore ? tokenFrom(page[0], 'backward') : '')
  return listJson(records, nextPageToken, read.estimate, read.total)
}

/** A row's values of the order's fields, as text: read from the record, or from the extra columns compileList adds. */
function orderValues (plan: ListPlan, row: Row): Array<string | null> {
  const fetched = plan.fetch.fields
  return plan.order.map((term, i) => {
    const own = ownField(term)
    const value = own !== undefined && fetched.includes(own) ? row[own.name] : row[`__order_${i}`]
    return value === null || value === undefined ? null : String(value)
  })
}
