// The related records a write's answer embeds (docs/relations.md, "Embedding"): read by the
// record's key after the write and its hooks, on the write's own transaction, so they are what a
// get with the same `fields` gives right after it, the write's own effects included (a relation
// of a resource to itself, a hook that changed the related row). A write without a path reads
// nothing more.
import { rows, type Queryable } from '../db/query.js'
import { keyParts } from '../model/keys.js'
import { compileEmbedsOf } from '../sql/read.js'
import { embedsReader } from '../serialize/embed.js'
import type { Etags } from '../serialize/etag.js'
import type { PageTokens } from '../query/page-token.js'
import { recordBuilder, recordJson } from '../serialize/json.js'
import type { Row } from '../serialize/record.js'
import type { WritePlan } from '../plan/types.js'
import type { WriteOutcome } from './pipeline.js'

/** The outcome with its embeds read, on the transaction that wrote it. */
export async function withEmbeds (plan: WritePlan, outcome: WriteOutcome, tx: Queryable): Promise<WriteOutcome> {
  const [found] = await rows<Row>(tx, compileEmbedsOf(plan.model, keyParts(plan.model, outcome.row), plan.tenant, plan.everyTenant, plan.embeds))
  // A hook may have deleted the row it wrote: then nothing is embedded, each relation a null.
  return { ...outcome, embedded: found ?? {} }
}

/**
 * The record a write answers with: its fields, then its embeds, then its `etag` (the record's
 * own). A to-many's `next_page_token` continues on the child's list as a get's does.
 */
export function writtenJson (plan: WritePlan, outcome: WriteOutcome, etags: Etags, tokens: PageTokens): string {
  if (outcome.embedded === undefined || plan.embeds.length === 0) return recordJson(outcome.select, outcome.row, outcome.etag)
  const build = recordBuilder(outcome.select, plan.embeds.map((embed) => embed.relation.name))
  return JSON.stringify(build(outcome.row, outcome.etag, undefined, embedsReader(plan.embeds, etags, tokens)(outcome.embedded, outcome.row)))
}
