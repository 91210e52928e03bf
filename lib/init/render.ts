// The plan → the text of tablegate.config.ts. A plain walk of a sorted plan, no clock and no
// environment, so running `init` twice on the same database writes the same bytes.
import type { InitPlan, RelationDraft, ResourceDraft } from './model.js'
import { INIT_BUDGETS } from '../config/rate-limits.js'

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A JavaScript string literal in single quotes. */
function str (text: string): string {
  return `'${text.replace(/[\\'\u0000-\u001f\u2028\u2029\u007f]/g, (c) => c === '\\' ? '\\\\' : c === '\'' ? '\\\'' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`
}

function key (name: string): string {
  return IDENTIFIER.test(name) ? name : str(name)
}

function value (v: unknown): string {
  if (typeof v === 'string') return str(v)
  if (Array.isArray(v)) return `[${v.map(value).join(', ')}]`
  return String(v)
}

function object (entries: ReadonlyArray<readonly [string, unknown]>): string {
  return `{ ${entries.map(([k, v]) => `${key(k)}: ${value(v)}`).join(', ')} }`
}

/** One line of comment: what a database holds may contain line breaks, which would end it. */
function comment (indent: string, text: string): string {
  return `${indent}// ${text.replace(/[\r\n\u2028\u2029]+/g, ' ')}`
}

function relation (r: RelationDraft): string {
  return 'field' in r ? object([['field', r.field]]) : object([['resource', r.resource], ['by', r.by]])
}

function resource (r: ResourceDraft): string[] {
  const lines: string[] = []
  const i2 = '      '
  const i3 = '        '
  lines.push(`    ${key(r.name)}: {`)
  lines.push(comment(i2, `TODO: decide who besides admin may ${r.view ? 'read' : 'read and write'} ${r.name}; defaultAccess 'deny' refuses everyone else.`))
  for (const note of r.notes) lines.push(comment(i2, note))
  if (r.table !== r.name) lines.push(`${i2}table: ${str(r.table)},`)
  lines.push(`${i2}key: ${r.key.length === 1 ? str(r.key[0]!) : value(r.key)},`)
  for (const s of r.suggestions) lines.push(comment(i2, `${s.option}: ${str(s.value)}, // suggested: ${s.why}. Confirm before switching it on.`))
  lines.push(`${i2}fields: {`)
  for (const field of r.fields) {
    for (const c of field.comments) lines.push(comment(i3, c))
    lines.push(`${i3}${key(field.name)}: ${object(Object.entries(field.options))},`)
  }
  for (const left of r.leftOut) lines.push(comment(i3, `left out: ${left.column}, ${left.why}`))
  lines.push(`${i2}},`)
  if (r.relations.size > 0) {
    lines.push(`${i2}relations: {`)
    for (const [name, rel] of r.relations) {
      // The start warns of it too; here it is where the relation is written.
      if ('by' in rel && rel.unindexed !== undefined) lines.push(comment(i3, `no index of ${rel.unindexed.table} starts with ${rel.by}: following ${name} scans the table. ${rel.unindexed.index}`))
      lines.push(`${i3}${key(name)}: ${relation(rel)},`)
    }
    lines.push(`${i2}},`)
  }
  lines.push(`${i2}access: ${r.view ? "{ read: ['admin'] }" : "{ read: ['admin'], create: ['admin'], update: ['admin'], delete: ['admin'] }"},`)
  lines.push('    },')
  return lines
}

export function renderConfig (plan: InitPlan): string {
  const lines = [
    comment('', `Written by \`tablegate init\` from schema ${plan.schema}: ${plan.resources.length} ${plan.resources.length === 1 ? 'resource' : 'resources'}, ${plan.leftOut.length} left out.`),
    '// Access is denied to all but admin until you write rules: see every TODO below (docs/access.md).',
    "import { defineConfig } from 'tablegate'",
    '',
    'export default defineConfig({',
    "  roles: ['admin', 'user'],",
    "  defaultAccess: 'deny',",
    '  // Requests per caller (and per client address without a token) and window, one budget across processes: see docs/rate-limits.md.',
    `  rateLimits: ${object(Object.entries(INIT_BUDGETS))},`,
    '  resources: {',
  ]
  for (const left of plan.leftOut) lines.push(comment('    ', `left out: ${left.table}, ${left.why}`))
  for (const r of plan.resources) lines.push(...resource(r))
  lines.push('  },', '})', '')
  return lines.join('\n')
}
