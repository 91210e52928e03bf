// Embedded to-many relations, read out of the array of records their subquery gives
// (lib/sql/embed-many.ts): `{ items, next_page_token }`, each item the child's record as a read of
// it gives it (each value's text parsed as the record connections parse its type, lib/db/types.ts),
// its own embeds, and its ETag as a get of it computes it (none in an export's). The subquery reads
// one child more than the page: when it is there, the token reads on from the page's last child, as
// a page token of the child's own list that carries the parent (lib/plan/list.ts opens it).
import type { EmbedPlan, ToManyEmbed } from '../plan/types.js'
import type { FieldModel, ResourceModel } from '../model/types.js'
import type { PageTokens } from '../query/page-token.js'
import { relationTokenBinding } from '../plan/read.js'
import { embedOutputs } from '../sql/read.js'
import { childLayout } from '../sql/embed-many.js'
import { textParserOf } from '../db/types.js'
import type { Etags, Row } from './etag.js'
import { recordBuilder } from './json.js'
import { recordArray } from './record-array.js'

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

type Parse = (text: string) => unknown

const asText: Parse = (text) => text

/**
 * How each of the embeds' columns in a child's record is read: a to-one's fields as they are read,
 * a to-many's array of records as its text, which its own reader takes apart.
 */
function outputParsers (embeds: readonly EmbedPlan[]): Parse[] {
  return embeds.flatMap((embed) => embed.kind === 'many'
    ? [asText]
    : [...embed.fetch.fields.map((field) => textParserOf(field.type)), ...outputParsers(embed.embeds)])
}

type Reader = (row: Row, parent: Row) => unknown
type ReadersOf = (embeds: ToManyEmbed['embeds'], etags: Etags | undefined, tokens: PageTokens) => (row: Row, parent: Row) => unknown[]

/**
 * The reader of one to-many embed; `readersOf` reads the children's own embeds (./embed.ts
 * embedsReader). Without `etags` the children carry none (an export's).
 */
export function manyReader (embed: ToManyEmbed, etags: Etags | undefined, tokens: PageTokens, readersOf: ReadersOf): Reader {
  const names = embed.fetch.fields.map((f) => f.name)
  const parse = embed.fetch.fields.map((field) => textParserOf(field.type))
  const outputs = embed.embeds.flatMap(embedOutputs)
  const parseOutput = outputParsers(embed.embeds)
  const layout = childLayout(embed, outputs.length)
  const at = layout.fields
  const etag = embedEtag(etags, embed.model, embed.readable)
  const children = embed.embeds.length === 0 ? undefined : readersOf(embed.embeds, etags, tokens)
  const build = recordBuilder(embed.select, embed.embeds.map((child) => child.relation.name))
  const { pageSize } = embed
  const keyName = embed.parent.key[0]!.name
  return (row, parent) => {
    const text = row[embed.column] as string | null | undefined
    if (text === null || text === undefined) return { items: [], next_page_token: '' } satisfies ToManyPage
    const found = recordArray(text)
    const items: Row[] = []
    let last: Array<string | null> = []
    for (let c = 0; c < found.length && c < pageSize; c++) {
      const values = found[c]!
      const record: Row = {}
      // A value left out of the record is `by`, the parent's key (lib/sql/embed-many.ts byFromParent).
      for (let i = 0; i < names.length; i++) {
        const place = at[i]
        if (place === undefined) {
          record[names[i]!] = parent[keyName]
        } else {
          const value = values[place]
          record[names[i]!] = value === null || value === undefined ? null : parse[i]!(value)
        }
      }
      let embedded: unknown[] | undefined
      if (children !== undefined) {
        const nested: Row = {}
        for (let i = 0; i < outputs.length; i++) {
          const value = values[layout.outputsAt + i]
          nested[outputs[i]!] = value === null || value === undefined ? null : parseOutput[i]!(value)
        }
        embedded = children(nested, record)
      }
      items.push(build(record, etag(record), undefined, embedded))
      last = values
    }
    if (found.length <= pageSize) return { items, next_page_token: '' } satisfies ToManyPage
    const parentPage = { resource: embed.parent.name, relation: embed.relation.name, key: String(parent[keyName]) }
    // Each order value as the column's own text: what the token's condition binds.
    const cursor = { direction: 'forward' as const, values: layout.order.map((i) => last[i] ?? null) }
    return { items, next_page_token: tokens.encode(relationTokenBinding(embed.model.name, parentPage, embed.order), cursor, parentPage, embed.tokenScope) } satisfies ToManyPage
  }
}
