// A record's title: the view's `title` template (`{title} ({status})`) filled from the record, else
// the first readable text field, else its key. The template only names fields the caller reads
// (/api/meta drops a template that names a hidden one), so a title never shows a hidden value.
import type { Meta } from './meta.js'
import { textOf } from './field-values.js'

const TEXT_TYPES = new Set(['string', 'text'])

export function titleOf (meta: Meta, resource: string, record: Readonly<Record<string, unknown>>): string {
  const model = meta.resources[resource]
  const template = meta.views?.[resource]?.title
  if (template !== undefined) return template.replace(/\{([^{}]+)\}/g, (_, name: string) => textOf(model?.fields[name], record[name]))
  const named = Object.entries(model?.fields ?? {}).find(([name, field]) => TEXT_TYPES.has(field.type) && record[name] !== undefined && record[name] !== null)
  if (named !== undefined) return textOf(named[1], record[named[0]])
  return (model?.key ?? ['id']).map((field) => textOf(model?.fields[field], record[field])).join(', ')
}

/** The fields titleOf reads, for a `fields` mask that must carry them. */
export function titleFieldsOf (meta: Meta, resource: string): readonly string[] {
  const model = meta.resources[resource]
  if (model === undefined) return []
  const template = meta.views?.[resource]?.title
  if (template !== undefined) return [...template.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!).filter((name) => name in model.fields)
  const named = Object.entries(model.fields).filter(([, field]) => TEXT_TYPES.has(field.type)).map(([name]) => name)
  return [...new Set([...model.key, ...named.slice(0, 1)])]
}
