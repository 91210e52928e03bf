// docs/configuration.md, made from the config schema: every object the schema describes is a
// section with a table of its keys (type, default, environment, meaning) and an example of each;
// every enumeration whose values are described is a table of its values. A key added to the
// schema appears here with no change to this file. The hand-written parts are
// scripts/config-docs/intro.md and appendix.md. `npm run docs:config` writes the file and a test
// (test/unit/config-docs.test.ts) fails while the committed one differs.
import { readFileSync } from 'node:fs'
import { Kind, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ConfigSchema, FieldTypeSchema } from '../lib/config/schema.js'
import { boundsText, keySource, literalsOf, sourceText, typeText } from '../lib/config/schema-text.js'
import { COMPATIBLE_PG_TYPES } from '../lib/model/field-types.js'
import { VALUE_EXPECTED } from '../lib/model/values.js'
import type { FieldType } from '../lib/model/types.js'

export const REGENERATE = 'npm run docs:config'

/** What the annotations of lib/config/schema.ts may hold. */
export type Annotated = TSchema & {
  description?: string, default?: unknown, defaultText?: string, env?: string, examples?: unknown[], title?: string, keyName?: string,
  properties?: Record<string, TSchema>, required?: string[], anyOf?: TSchema[], items?: TSchema | TSchema[],
  patternProperties?: Record<string, TSchema>,
}

export interface Section {
  readonly schema: Annotated
  /** The config path of the object: `resources.<resource>.fields.<field>`, '' for the top level. */
  readonly path: string
  readonly title: string
  readonly anchor: string
  readonly kind: 'object' | 'values'
}

/** Extra columns of a values table, by enumeration: for field types, their JSON form and columns. */
const VALUE_COLUMNS = new Map<TSchema, (value: unknown) => Record<string, string>>([
  [FieldTypeSchema, (value) => ({
    'JSON value': VALUE_EXPECTED[value as FieldType],
    'PostgreSQL columns': COMPATIBLE_PG_TYPES[value as FieldType].map((t) => `\`${t}\``).join(', '),
  })],
])

function anchorOf (path: string): string {
  return path === '' ? 'top-level-keys' : path.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase()
}

/** `<resource>`: what stands for the key of one entry of a record (its `keyName`, else `name`). */
function placeholder (schema: Annotated): string {
  return `<${schema.keyName ?? 'name'}>`
}

function join (path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`
}

/** Every section under `root`, depth first, each schema once. */
export function sectionsOf (root: TSchema = ConfigSchema): Section[] {
  const sections: Section[] = []
  const seen = new Set<TSchema>()
  const visit = (schema: Annotated, path: string): void => {
    if (seen.has(schema)) return
    seen.add(schema)
    switch (schema[Kind]) {
      case 'Object':
        if (schema === root || schema.description !== undefined) {
          sections.push({ schema, path, title: schema.title ?? `\`${path}\``, anchor: anchorOf(path), kind: 'object' })
        }
        for (const [name, child] of Object.entries(schema.properties ?? {})) {
          visit(child as Annotated, join(path, name))
        }
        return
      case 'Union':
        if (literalsOf(schema) !== undefined && (schema.anyOf ?? []).some((m) => (m as Annotated).description !== undefined)) {
          sections.push({ schema, path, title: schema.title ?? `\`${path}\``, anchor: anchorOf(path), kind: 'values' })
        }
        for (const member of schema.anyOf ?? []) visit(member as Annotated, path)
        return
      case 'Array':
      case 'Tuple':
        for (const item of [schema.items ?? []].flat()) visit(item as Annotated, `${path}[]`)
        return
      case 'Record':
        for (const value of Object.values(schema.patternProperties ?? {})) visit(value as Annotated, join(path, placeholder(schema)))
    }
  }
  visit(root as Annotated, '')
  return sections
}

function cell (text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function table (head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n')
}

/** A schema's example: its own, else one built from its items' (a list of one). */
export function exampleOf (schema: Annotated): unknown {
  if (schema.examples !== undefined) return schema.examples[0]
  if (schema[Kind] === 'Array' && schema.items !== undefined && !Array.isArray(schema.items)) {
    const item = exampleOf(schema.items as Annotated)
    return item === undefined ? undefined : [item]
  }
  return undefined
}

/** A function's example is its source text; any other example is a value. */
export function isSourceExample (schema: TSchema, example: unknown): boolean {
  return typeof example === 'string' && !Value.Check(schema, example)
}

function exampleSource (schema: Annotated, example: unknown): string {
  return isSourceExample(schema, example) ? example as string : sourceText(example)
}

const LINE = 100

/** A value as TypeScript source over several lines where one would be longer than `LINE`. */
function sourceBlock (value: unknown, indent = ''): string {
  const flat = sourceText(value)
  if (indent.length + flat.length <= LINE || value === null || typeof value !== 'object') return flat
  const inner = `${indent}  `
  if (Array.isArray(value)) return `[\n${value.map((v) => `${inner}${sourceBlock(v, inner)},`).join('\n')}\n${indent}]`
  const members = Object.entries(value).map(([k, v]) => `${inner}${keySource(k)}: ${sourceBlock(v, inner)},`)
  return `{\n${members.join('\n')}\n${indent}}`
}

function defaultCell (schema: Annotated, required: boolean): string {
  if ('default' in schema) return `\`${sourceText(schema.default)}\``
  return schema.defaultText ?? (required ? 'required' : 'none')
}

/** `TRUSTED_ORIGINS (comma separated, added)`: the variable in code font, then how it is read. */
function envCell (env: string | undefined): string {
  if (env === undefined) return ''
  const [variable, ...note] = env.split(' ')
  return [`\`${variable}\``, ...note].join(' ')
}

const LINK = /(\[[^\]]+\]\(#[^)]+\))/

/** A type in code font, its links (`[Fields](#fields)`) left as links. */
function linkedType (text: string): string {
  return text.split(LINK).filter((part) => part !== '').map((part) => LINK.test(part) ? part : `\`${part}\``).join('')
}

function objectSection (section: Section, sectionOf: (schema: TSchema) => Section | undefined): string {
  const { schema } = section
  const name = (s: TSchema): string | undefined => {
    const found = sectionOf(s)
    return found === undefined ? undefined : `[${found.title}](#${found.anchor})`
  }
  const properties = Object.entries(schema.properties ?? {}) as Array<[string, Annotated]>
  const required = new Set(schema.required ?? [])
  const withEnv = properties.some(([, p]) => p.env !== undefined)
  const rows = properties.map(([key, property]) => {
    const bounds = boundsText(property)
    const example = exampleOf(property)
    const own = sectionOf(property)
    return [
      `\`${key}\``,
      linkedType(typeText(property, name)) + (bounds === '' ? '' : `, ${bounds}`),
      defaultCell(property, required.has(key)),
      ...(withEnv ? [envCell(property.env)] : []),
      property.description ?? '',
      own !== undefined ? `see [${own.title}](#${own.anchor})` : example === undefined ? '' : `\`${exampleSource(property, example)}\``,
    ]
  })
  const head = ['key', 'type', 'default', ...(withEnv ? ['environment'] : []), 'meaning', 'example']
  const example = exampleOf(schema)
  return [
    schema.description ?? '',
    `Path: \`${section.path === '' ? 'config' : `config.${section.path}`}\``,
    table(head, rows),
    ...(example === undefined ? [] : ['Example:', ['```ts', sourceBlock(example), '```'].join('\n')]),
  ].filter((part) => part !== '').join('\n\n')
}

function valuesSection (section: Section): string {
  const extra = VALUE_COLUMNS.get(section.schema)
  const values = ((section.schema.anyOf ?? []) as Array<Annotated & { const?: unknown }>).map((member) => ({ value: member.const, description: member.description ?? '' }))
  const rows = values.map(({ value, description }) => [`\`${sourceText(value)}\``, description, ...Object.values(extra?.(value) ?? {})])
  const head = ['value', 'meaning', ...Object.keys(extra?.(values[0]?.value) ?? {})]
  return [section.schema.description ?? '', `Path: \`config.${section.path}\``, table(head, rows)].filter((part) => part !== '').join('\n\n')
}

function readPart (name: string): string {
  return readFileSync(new URL(`../../scripts/config-docs/${name}`, import.meta.url), 'utf8').trim()
}

/** The whole of docs/configuration.md. */
export function configReference (): string {
  const sections = sectionsOf()
  const bySchema = new Map(sections.map((s) => [s.schema as TSchema, s]))
  const sectionOf = (schema: TSchema): Section | undefined => bySchema.get(schema)
  const contents = sections.map((s) => `- [${s.title}](#${s.anchor})`).join('\n')
  const bodies = sections.map((s) => [
    `<a id="${s.anchor}"></a>`,
    `## ${s.title}`,
    '',
    s.kind === 'object' ? objectSection(s, sectionOf) : valuesSection(s),
  ].join('\n'))
  return [
    `<!-- Generated by \`${REGENERATE}\` from lib/config/schema.ts, lib/config/metadata-schema.ts and scripts/config-docs/*.md: edit those and run it, not this file. -->`,
    readPart('intro.md'),
    '## Reference',
    contents,
    ...bodies,
    readPart('appendix.md'),
  ].join('\n\n') + '\n'
}
