// Embedded to-many relations, read out of the JSON array their subquery gives (lib/sql/embed-many.ts):
// `{ items, next_page_token }`, each item the child's record as a read of it gives it (the values
// JSON carries as text parsed as the record connections parse them, lib/db/types.ts), its own
// embeds, and its ETag as a get of it computes it (none in an export's). The subquery reads one
// child more than the page: when it is there, the token reads on from the page's last child, as a
// page token of the child's own list that carries the parent (lib/plan/list.ts opens it).
import type { ToManyEmbed } from '../plan/types.js'
import type { FieldModel, ResourceModel } from '../model/types.js'
import type { PageTokens } from '../query/page-token.js'
import { relationTokenBinding } from '../plan/read.js'
import { embedOutputs } from '../sql/read.js'
import { carriedAsText, childLayout, chunked, embedValueFields } from '../sql/embed-many.js'
import { isoTimestamp } from '../db/types.js'
import type { Etags, Row } from './etag.js'
import { recordBuilder } from './json.js'

/** A to-many embed's value. */
export interface ToManyPage {
  readonly items: Row[]
  readonly next_page_token: string
}

/** An embedded record's ETag; undefined (left out of its JSON) where the records carry none. */
export type EmbedEtag = (record: Row) => string | undefined

const noEtag: EmbedEtag = () => undefined

/** How an embedded record of `model` gets its ETag: as a get of it computes it, or, without `etags` (an export), not at all. */
export function embedEtag (etags: Etags | undefined, model: ResourceModel, readable: readonly FieldModel[]): EmbedEtag {
  return etags === undefined ? noEtag : etags.of(model, readable)
}

type Parse = (value: unknown) => unknown

const asIs: Parse = (value) => value
const timestamp: Parse = (value) => typeof value === 'string' ? isoTimestamp(value) : value
// As pg parses float4 and float8: NaN and the infinities too (JSON.stringify writes them null).
const float: Parse = (value) => typeof value === 'string' ? parseFloat(value) : value

/** How a value that came as JSON becomes the value a read of the field gives. */
function parserOf (field: FieldModel | undefined): Parse {
  if (field === undefined || !carriedAsText(field)) return asIs
  return field.type === 'timestamp' ? timestamp : field.type === 'number' ? float : asIs
}

type Reader = (row: Row, parent: Row) => unknown
type ReadersOf = (embeds: ToManyEmbed['embeds'], etags: Etags | undefined, tokens: PageTokens) => (row: Row, parent: Row) => unknown[]

/**
 * The reader of one to-many embed; `readersOf` reads the children's own embeds (./embed.ts
 * embedsReader). Without `etags` the children carry none (an export's).
 */
export function manyReader (embed: ToManyEmbed, etags: Etags | undefined, tokens: PageTokens, readersOf: ReadersOf): Reader {
  const names = embed.fetch.fields.map((f) => f.name)
  const parse = embed.fetch.fields.map(parserOf)
  const valueFields = embedValueFields(embed.embeds)
  const outputs = embed.embeds.flatMap(embedOutputs)
  const parseOutput = outputs.map((name) => parserOf(valueFields.get(name)))
  const layout = childLayout(embed, outputs.length)
  const at = layout.fields
  const flat = !chunked(layout.length)
  const etag = embedEtag(etags, embed.model, embed.readable)
  const children = embed.embeds.length === 0 ? undefined : readersOf(embed.embeds, etags, tokens)
  const build = recordBuilder(embed.select, embed.embeds.map((child) => child.relation.name))
  const { pageSize } = embed
  const keyName = embed.parent.key[0]!.name
  return (row, parent) => {
    const found = row[embed.column] as unknown[][][] | null | undefined
    if (found === null || found === undefined) return { items: [], next_page_token: '' } satisfies ToManyPage
    const items: Row[] = []
    let last: unknown[] = []
    for (let c = 0; c < found.length && c < pageSize; c++) {
      const values = flat ? found[c]! : found[c]!.flat()
      const record: Row = {}
      // A value left out of the array is `by`, the parent's key (byFromParent).
      for (let i = 0; i < names.length; i++) record[names[i]!] = at[i] === undefined ? parent[keyName] : parse[i]!(values[at[i]!])
      let embedded: unknown[] | undefined
      if (children !== undefined) {
        const nested: Row = {}
        for (let i = 0; i < outputs.length; i++) nested[outputs[i]!] = parseOutput[i]!(values[layout.outputsAt + i])
        embedded = children(nested, record)
      }
      items.push(build(record, etag(record), undefined, embedded))
      last = values
    }
    if (found.length <= pageSize) return { items, next_page_token: '' } satisfies ToManyPage
    const parentPage = { resource: embed.parent.name, relation: embed.relation.name, key: String(parent[keyName]) }
    // A value that JSON carries as a number (an int2/int4 field's) is read back as its text.
    const cursor = { direction: 'forward' as const, values: layout.order.map((i) => last[i] === null ? null : String(last[i])) }
    return { items, next_page_token: tokens.encode(relationTokenBinding(embed.model.name, parentPage, embed.order), cursor, parentPage, embed.tokenScope) } satisfies ToManyPage
  }
}
