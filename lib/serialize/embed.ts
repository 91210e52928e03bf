// Embedded to-one records, read out of their parent's row (lib/sql/read.ts flattens each under its
// numbered columns): the target's record as a read of it gives it, with its own ETag computed as a get of it
// computes it, or null where the row is not there for the caller (a null reference and a row
// outside their access read the same).
import { BoundedCache } from '../cache.js'
import type { EmbedPlan } from '../plan/types.js'
import type { Etags, Row } from './etag.js'

/** The embedded records of one row, in the order of the plan's embeds. */
export type EmbedsReader = (row: Row) => unknown[]

/**
 * Per embed (by its number in `numbered`), the records a page has read, by their key: a target
 * row met again in the same statement's rows is the same row (one snapshot), so its record, ETag
 * and its own embeds are made once a page. Never kept beyond the page, so nothing is shared
 * between callers or requests.
 */
type Memos = Array<Map<unknown, Row>>
type ReadEmbeds = (row: Row, memos: Memos, etags: ReadonlyArray<(record: Row) => string>) => unknown[]

/** Every embed of a plan, depth first: an embed's memo and ETag are found by its place here. */
function numbered (embeds: readonly EmbedPlan[], into: EmbedPlan[] = []): EmbedPlan[] {
  for (const embed of embeds) {
    into.push(embed)
    numbered(embed.embeds, into)
  }
  return into
}

const literal = (text: string): string => JSON.stringify(text)

/**
 * One embed's reader, generated: each column is read by a constant name and each record is one
 * object literal, which V8 serves from its inline caches, where copying through arrays of names
 * was a lookup by a varying key and an object growing property by property (as
 * ./json.ts compileBuilder). Names enter the code only as JSON string literals. The record's
 * properties are the builder's: the selected fields (a missing value null), its embeds, `etag`.
 */
function embedCode (embed: EmbedPlan, at: number, all: readonly EmbedPlan[]): string {
  const fetched = embed.fetch.fields
  const column = (i: number): string => `row[${literal(`${embed.column}_${i}`)}]`
  const keys = embed.model.key.map((field) => column(fetched.indexOf(field)))
  const key = keys.length === 1 ? keys[0]! : keys.map((k) => `String(${k})`).join(' + "\\u0000" + ')
  const children = embed.embeds.map((child) => `${literal(child.relation.name)}: read${all.indexOf(child)}(row, memos, etags)`)
  // The ETag covers the fetched fields (key, version or every readable one); where the record
  // carries them all, it is hashed from the record itself, else from the fetched values apart.
  const fields = embed.select.fields.map((field) => `${literal(field.name)}: ${column(fetched.indexOf(field))} ?? null`)
  const build = embed.select.fields.length === fetched.length
    ? `record = { ${[...fields, ...children, '"etag": ""'].join(', ')} }
      record.etag = etags[${at}](record)`
    : `const values = { ${fetched.map((field, i) => `${literal(field.name)}: ${column(i)}`).join(', ')} }
      record = { ${[...fields, ...children, `"etag": etags[${at}](values)`].join(', ')} }`
  // No presenter to apply: a resource whose rows a plugin presents cannot be a relation's
  // target (lib/model/relations.ts), as a filter over its stored columns would probe them.
  return `function read${at} (row, memos, etags) {
    if (row[${literal(embed.column)}] !== true) return null
    const key = ${key}
    let record = memos[${at}].get(key)
    if (record === undefined) {
      ${build}
      memos[${at}].set(key, record)
    }
    return record
  }`
}

/** Generated readers by their code: callers with the same masks (on fresh plans) share one. */
const compiled = new BoundedCache<(...args: unknown[]) => ReadEmbeds>(500)

function compileReader (embeds: readonly EmbedPlan[], all: readonly EmbedPlan[]): ReadEmbeds {
  const code = `${all.map((embed, i) => embedCode(embed, i, all)).join('\n')}
  return function readEmbeds (row, memos, etags) {
    return [${embeds.map((embed) => `read${all.indexOf(embed)}(row, memos, etags)`).join(', ')}]
  }`
  return compiled.getOrCreate(code, () => new Function(code) as (...args: unknown[]) => ReadEmbeds)()
}

interface Reader { readonly etags: Etags, readonly read: ReadEmbeds, readonly hashes: ReadonlyArray<(record: Row) => string>, readonly count: number }

/** A caller's embeds are the same array request after request (lib/plan/embed.ts keeps their masks). */
const readers = new WeakMap<readonly EmbedPlan[], Reader>()

/** The reader of a plan's embeds, made once a request (a page): its records are made once a page by key. */
export function embedsReader (embeds: readonly EmbedPlan[], etags: Etags): EmbedsReader {
  let reader = readers.get(embeds)
  if (reader === undefined || reader.etags !== etags) {
    const all = numbered(embeds)
    reader = { etags, read: compileReader(embeds, all), hashes: all.map((embed) => etags.of(embed.model, embed.readable)), count: all.length }
    readers.set(embeds, reader)
  }
  const { read, hashes } = reader
  const memos: Memos = Array.from({ length: reader.count }, () => new Map())
  return (row) => read(row, memos, hashes)
}
