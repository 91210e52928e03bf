// Embedded to-one records, read out of their parent's row (lib/sql/read.ts flattens each under its
// numbered columns): the target's record as a read of it gives it, with its own ETag computed as a get of it
// computes it, or null where the row is not there for the caller (a null reference and a row
// outside their access read the same). To-many embeds are read by ./embed-many.ts. An export reads
// them with the same readers, without ETags: its records carry none (./export.ts).
import type { EmbedPlan, ToOneEmbed } from '../plan/types.js'
import type { PageTokens } from '../query/page-token.js'
import type { Etags, Row } from './etag.js'
import { recordBuilder } from './json.js'
import { embedEtag, manyReader } from './embed-many.js'
import { compiledFunction, ShapeFunction } from './shape-function.js'
import { presenceColumn } from '../sql/read.js'

/** The embedded records of one row, in the order of the plan's embeds; `parent` is the record they belong to. */
export type EmbedsReader = (row: Row, parent: Row) => unknown[]

/** The target's record out of its parent's row: each field from its numbered column. */
type RecordReader = (row: Row) => Row

const kRecordReaders = Symbol('embeddedRecordReaders')

/** The reader of an embed's record: a loop for its first asks, then code that reads and writes each by its name (./shape-function.ts). */
function recordReader (embed: ToOneEmbed): RecordReader {
  // Kept on the fetched selection, one per column prefix: an embed's place in its statement.
  const readers = embed.fetch.derive(kRecordReaders, () => new Map<string, ShapeFunction<RecordReader>>())
  let reader = readers.get(embed.column)
  if (reader === undefined) {
    const names = embed.fetch.fields.map((f) => f.name)
    const columns = names.map((_, i) => `${embed.column}_${i}`)
    const loop: RecordReader = (row) => {
      const record: Row = {}
      for (let i = 0; i < columns.length; i++) record[names[i]!] = row[columns[i]!]
      return record
    }
    reader = new ShapeFunction(loop, () => compiledFunction<RecordReader>('readEmbedded', ['row'], `return { ${names.map((name, i) => `${JSON.stringify(name)}: row[${JSON.stringify(columns[i])}]`).join(', ')} }`))
    readers.set(embed.column, reader)
  }
  return reader.get()
}

function embedReader (embed: ToOneEmbed, etags: Etags | undefined, tokens: PageTokens): (row: Row) => Row | null {
  const read = recordReader(embed)
  const present = presenceColumn(embed)
  const etag = embedEtag(etags, embed.model, embed.readable)
  const children = embed.embeds.length === 0 ? undefined : embedsReader(embed.embeds, etags, tokens)
  const build = recordBuilder(embed.select, embed.embeds.map((child) => child.relation.name))
  return (row) => {
    if (row[present] === null || row[present] === undefined) return null
    // No presenter to apply: a resource whose rows a plugin presents cannot be a relation's
    // target (lib/model/relations.ts), as a filter over its stored columns would probe them.
    const record = read(row)
    return build(record, etag(record), undefined, children?.(row, record))
  }
}

/**
 * The reader of a plan's embeds, made once a request. Without `etags` the embedded records carry
 * no `etag`, at any depth: an export's (lib/serialize/export.ts).
 */
export function embedsReader (embeds: readonly EmbedPlan[], etags: Etags | undefined, tokens: PageTokens): EmbedsReader {
  const readers = embeds.map((embed) => embed.kind === 'many' ? manyReader(embed, etags, tokens, embedsReader) : embedReader(embed, etags, tokens))
  return (row, parent) => readers.map((read) => read(row, parent))
}
