// `initConfig(db, options)`: a live schema → the text of a config that serves it, secured by
// default. `tablegate init` is this plus a file and a summary; tools may call it as it is.
import type { Queryable } from '../db/query.js'
import { readCatalog } from './catalog.js'
import { planInit, type InitOptions, type InitPlan } from './model.js'
import { renderConfig } from './render.js'

export { InitError, type InitOptions, type InitPlan } from './model.js'

/** What `init` makes of a schema: the plan (for a summary) and the config text. */
export async function initPlan (db: Queryable, options: InitOptions = {}): Promise<{ plan: InitPlan, text: string }> {
  const catalog = await readCatalog(db, options.schema ?? 'public')
  const plan = planInit(catalog, options)
  return { plan, text: renderConfig(plan) }
}

/** The text of a `tablegate.config.ts` serving the schema's tables (see docs/init.md). */
export async function initConfig (db: Queryable, options: InitOptions = {}): Promise<string> {
  return (await initPlan(db, options)).text
}

/** The lines `tablegate init` prints: what is served, what is left out (tables, then columns) and why, enums and relations found. */
export function summarize (plan: InitPlan): string[] {
  const lines = [`${plan.resources.length} ${plan.resources.length === 1 ? 'table' : 'tables'} served: ${plan.resources.map((r) => r.name).join(', ') || 'none'}`]
  for (const left of plan.leftOut) lines.push(`left out: ${left.table}: ${left.why}`)
  for (const r of plan.resources) for (const left of r.leftOut) lines.push(`left out: ${r.name}.${left.column}: ${left.why}`)
  const enums = plan.resources.flatMap((r) => r.fields.filter((f) => Array.isArray(f.options.enum)).map((f) => `${r.name}.${f.name} (${(f.options.enum as unknown[]).join(', ')})`))
  lines.push(`${enums.length} ${enums.length === 1 ? 'enum' : 'enums'} found${enums.length === 0 ? '' : `: ${enums.join(', ')}`}`)
  const relations = plan.resources.flatMap((r) => [...r.relations].map(([name, rel]) => `${r.name}.${name} → ${'field' in rel ? r.fields.find((f) => f.name === rel.field)!.options.references as string : rel.resource}`))
  lines.push(`${relations.length} ${relations.length === 1 ? 'relation' : 'relations'} found${relations.length === 0 ? '' : `: ${relations.join(', ')}`}`)
  return lines
}
