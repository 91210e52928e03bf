// The console modules the unit tests import are compiled by the root tsconfig (the tests' own
// build, lib es2023 without the DOM), which follows the tests' imports into console/src. There
// they must import nothing but each other: a package would be loaded in Node, and Preact's types
// carry `/// <reference lib="dom" />`, which would put the DOM's globals in scope for lib/ and
// every test without a word from tsc. (A module that uses the DOM itself, as api.ts does, already
// fails the type check there.)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { importsOf, sources } from '../helpers/imports.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))

test('the console modules the tests reach import only console modules without views', () => {
  const reached = new Set<string>()
  const offenders: string[] = []
  const visit = (file: string): void => {
    for (const { to } of importsOf(file)) {
      if (!to.startsWith('console/')) continue
      if (!existsSync(join(root, to))) offenders.push(`${file} → ${to} (a view, or no module)`)
      else if (!reached.has(to)) { reached.add(to); visit(to) }
    }
  }
  for (const file of sources('test')) visit(file)
  for (const file of reached) {
    for (const { to } of importsOf(file)) if (!to.startsWith('console/src/')) offenders.push(`${file} → ${to}`)
  }
  assert.deepEqual(offenders, [])
  // Not vacuous: the tests do reach the console's modules.
  assert.ok(reached.has('console/src/route.ts') && reached.has('console/src/meta.ts'), [...reached].join(', '))
})
