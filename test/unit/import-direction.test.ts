// The import direction of the design: lib never reaches into plugins (but for its entry points),
// query and plan never build SQL, only the server entry imports Fastify, and no plugin reaches into
// another plugin's files (but for the root plugin, which registers the built-in ones).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))

function sources (dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Value imports (not `import type`) of a file, resolved to repository paths where relative. */
function imports (file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  return [...text.matchAll(/^import (?!type )[^'"]*['"]([^'"]+)['"]/gm)].map((m) => {
    const spec = m[1]!
    return spec.startsWith('.') ? relative(root, join(root, file, '..', spec)) : spec
  })
}

test('the scanner sees imports (so the rules below are not passing vacuously)', () => {
  assert.ok(imports('lib/server.ts').includes('plugins/tablegate/index.js'))
  assert.ok(imports('lib/server.ts').includes('fastify'))
})

test('lib does not import plugins, except its entry points', () => {
  const offenders = sources('lib').filter((f) => !['lib/index.ts', 'lib/server.ts'].includes(f))
    .flatMap((f) => imports(f).filter((i) => i.startsWith('plugins/')).map((i) => `${f} → ${i}`))
  assert.deepEqual(offenders, [])
})

test('query and plan do not build SQL', () => {
  const offenders = [...sources('lib/query'), ...sources('lib/plan')]
    .flatMap((f) => imports(f).filter((i) => i.startsWith('lib/sql/')).map((i) => `${f} → ${i}`))
  assert.deepEqual(offenders, [])
})

test('only the server entry imports Fastify in lib', () => {
  const offenders = sources('lib').filter((f) => f !== 'lib/server.ts' && imports(f).includes('fastify'))
  assert.deepEqual(offenders, [])
})

test('no plugin imports another plugin, except the root plugin registering the built-in ones', () => {
  const offenders = sources('plugins').filter((f) => !f.startsWith('plugins/tablegate/')).flatMap((f) => {
    const own = f.split('/')[1]
    return imports(f).filter((i) => i.startsWith('plugins/') && i.split('/')[1] !== own).map((i) => `${f} → ${i}`)
  })
  assert.deepEqual(offenders, [])
})
