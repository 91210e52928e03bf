// docs/configuration.md is generated from the config schema: it must be the generator's output,
// every key it lists must say what it means, and every example and default it shows must be valid.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { configReference, exampleOf, isSourceExample, REGENERATE, sectionsOf, type Annotated } from '../../scripts/config-reference.js'
import { ConfigSchema, type Config } from '../../lib/config/schema.js'
import { resolveConfig, type ResolvedConfig } from '../../lib/config/resolve.js'
import { buildModels } from '../../lib/model/build.js'

const sections = sectionsOf()

test('docs/configuration.md is what the generator makes of the schema', () => {
  const committed = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8')
  assert.ok(committed === configReference(), `docs/configuration.md is stale: run \`${REGENERATE}\` and commit the result`)
})

test('every key of the reference says what it means', () => {
  const undescribed = sections.filter((s) => s.kind === 'object').flatMap((s) =>
    Object.entries(s.schema.properties ?? {}).filter(([, p]) => (p as Annotated).description === undefined).map(([key]) => `config.${s.path === '' ? '' : `${s.path}.`}${key}`))
  assert.deepEqual(undescribed, [], 'add a `description` to these keys in lib/config/schema.ts')
})

test('every example and every default of the reference is a valid value of its key', () => {
  const invalid: string[] = []
  for (const section of sections.filter((s) => s.kind === 'object')) {
    const schemas: Array<[string, Annotated]> = [[section.path, section.schema], ...Object.entries(section.schema.properties ?? {}).map(([k, p]): [string, Annotated] => [`${section.path}.${k}`, p as Annotated])]
    for (const [path, schema] of schemas) {
      const example = exampleOf(schema)
      if (example !== undefined && !isSourceExample(schema, example) && !Value.Check(schema, example)) invalid.push(`example of ${path}`)
      if ('default' in schema && !Value.Check(schema, schema.default)) invalid.push(`default of ${path}`)
    }
  }
  assert.deepEqual(invalid, [])
})

test('the example config starts: its models build and their names check', () => {
  const example = exampleOf(ConfigSchema as Annotated) as Config
  const resolved = resolveConfig(example, {})
  assert.deepEqual([...buildModels(resolved.resources).keys()], ['projects', 'tasks'])
})

test('the documented defaults are what an empty config resolves to', () => {
  const resolved = resolveConfig({}, {})
  // Where the resolved setting is not the key's value as written.
  const readers: Partial<Record<keyof Config, (r: ResolvedConfig) => unknown>> = {
    dataDir: (r) => r.dataDir === resolve('.tablegate') ? '.tablegate' : r.dataDir,
    roles: (r) => r.roles.list,
    signUp: (r) => r.accounts.signUp,
    poolSize: (r) => r.poolSizes.read,
    // The public URL's origin and quick tunnels are always trusted besides the configured ones.
    trustedOrigins: (r) => r.trustedOrigins.filter((o) => o !== new URL(r.publicUrl).origin && !o.includes('trycloudflare')),
  }
  // `true` stands for every resource, and an empty config has none.
  const notComparable = new Set(['rowPermissions'])
  const root = ConfigSchema.properties as Record<string, Annotated>
  let compared = 0
  for (const [key, schema] of Object.entries(root)) {
    if (!('default' in schema) || notComparable.has(key)) continue
    const read = readers[key as keyof Config] ?? ((r: ResolvedConfig) => (r as unknown as Record<string, unknown>)[key])
    assert.deepEqual(read(resolved), schema.default, `config.${key}`)
    compared++
  }
  for (const [key, schema] of Object.entries(ConfigSchema.properties.scanGuard.properties as Record<string, Annotated>)) {
    assert.deepEqual((resolved.scanGuard as Record<string, unknown>)[key], schema.default, `config.scanGuard.${key}`)
    compared++
  }
  assert.ok(compared >= 19, `only ${compared} defaults compared`)
})
