// The OWASP API Security ruleset for Spectral (@stoplight/spectral-owasp-ruleset 2, a linter
// written elsewhere) over the example shop's documents, the admin's and a user's, as served over
// HTTP with init's budgets: no finding but the written exceptions (docs/decisions.md, "OWASP API
// ruleset: the rules that do not apply"), and each exception still finds something.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core'
import spectralParsers from '@stoplight/spectral-parsers'
import owasp from '@stoplight/spectral-owasp-ruleset'
import shop from '../../examples/shop/tablegate.config.js'
import { INIT_BUDGETS } from '../../lib/config/rate-limits.js'
import { buildApp, createUser, bearer } from '../helpers/app.js'
import { freshDatabase } from '../helpers/db.js'
import { root } from '../helpers/cli.js'

const { Spectral, Document } = spectralCore
const { Json } = spectralParsers

interface Exception {
  readonly rule: string
  /** Where the finding is written, its JSON path joined by "/" ($refs followed to where they point). */
  readonly at: RegExp
  /** The value there, where the rule is about a value. */
  readonly value?: RegExp
}

// What a caller receives: an answer's schemas, headers and the shared problem responses.
const ANSWERS = /(^|\/)responses\/|^components\/(headers|responses)\/|^components\/schemas\/(Problem|[^/.]+|[^/]+\.list)\//

// Each is an item of docs/decisions.md, "OWASP API ruleset: the rules that do not apply" (the last test checks the two agree).
const EXCEPTIONS: readonly Exception[] = [
  { rule: 'api4:2023-string-restricted', at: /./ },
  { rule: 'api4:2023-string-limit', at: ANSWERS },
  { rule: 'api4:2023-array-limit', at: ANSWERS },
  { rule: 'api4:2023-rate-limit', at: /^components\/responses\/Unauthenticated\/headers$/ },
  { rule: 'api2:2023-no-credentials-in-url', at: /\/name$/, value: /^page_token$/ },
  { rule: 'api8:2023-no-server-http', at: /^servers\/0\/url$/, value: /^http:\/\/localhost:[0-9]+$/ },
]

const databaseUrl = await freshDatabase()
const app = await buildApp({ ...shop, databaseUrl, migrations: join(root, 'examples', 'shop', 'migrations'), rateLimits: INIT_BUDGETS })
const base = await app.listen({ port: 0, host: '127.0.0.1' })
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'ann@example.com', 'user')

async function documentOf (email: string): Promise<unknown> {
  const answer = await fetch(`${base}/api/openapi.json`, { headers: await bearer(app, email) })
  assert.equal(answer.status, 200)
  return await answer.json()
}

interface Finding { readonly rule: string, readonly at: string, readonly value: unknown, readonly message: string }

/** Where a path of the document with its $refs followed is written, and the value there. */
function written (document: unknown, path: ReadonlyArray<string | number>): { at: string, value: unknown } {
  const resolve = (pointer: string): unknown => pointer.slice(2).split('/').reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document)
  let node: any = document
  let at: string[] = []
  for (const part of path) {
    while (typeof node?.$ref === 'string' && !(String(part) in node)) {
      at = node.$ref.slice(2).split('/')
      node = resolve(node.$ref)
    }
    node = node?.[part]
    at.push(String(part))
  }
  return { at: at.join('/'), value: node }
}

async function findings (document: unknown): Promise<Finding[]> {
  const spectral = new Spectral()
  // Its types describe the CommonJS build; an import loads the ES module, whose default is the ruleset.
  spectral.setRuleset(owasp as unknown as RulesetDefinition)
  const results = await spectral.run(new Document(JSON.stringify(document), Json))
  // Spectral checks the document with its $refs followed and reports each place a component is
  // used; a finding is counted once where it is written, as a reader would fix it.
  const seen = new Set<string>()
  return results.flatMap((r) => {
    const rule = String(r.code).replace(/^owasp:/, '')
    const { at, value } = written(document, r.path)
    if (seen.has(`${rule} ${at}`)) return []
    seen.add(`${rule} ${at}`)
    return [{ rule, at, value, message: r.message }]
  })
}

function perRule (list: readonly Finding[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const f of list) counts[f.rule] = (counts[f.rule] ?? 0) + 1
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)))
}

const used = new Set<Exception>()
const exceptionOf = (f: Finding): Exception | undefined => EXCEPTIONS.find((e) => e.rule === f.rule && e.at.test(f.at) && (e.value === undefined || e.value.test(String(f.value))))

for (const [who, email] of [['the admin', 'admin@example.com'], ['a user', 'ann@example.com']] as const) {
  test(`${who}'s document: no OWASP finding but the written exceptions`, async (t) => {
    const all = await findings(await documentOf(email))
    t.diagnostic(`findings per rule, exceptions included: ${JSON.stringify(perRule(all))}`)
    const left = all.filter((f) => {
      const exception = exceptionOf(f)
      if (exception !== undefined) used.add(exception)
      return exception === undefined
    })
    assert.deepEqual(perRule(left), {}, JSON.stringify(left.slice(0, 30), null, 1))
  })
}

test('each exception still finds something, and docs/decisions.md gives the reason of each', () => {
  assert.deepEqual(EXCEPTIONS.filter((e) => !used.has(e)), [])
  const decisions = readFileSync(join(root, 'docs', 'decisions.md'), 'utf8')
  const section = decisions.split('\n## ').find((s) => s.startsWith('OWASP API ruleset: the rules that do not apply'))
  assert.ok(section, 'docs/decisions.md has no section "OWASP API ruleset: the rules that do not apply"')
  // The rules the list names, before the table of findings.
  const list = section.slice(0, section.indexOf('\n\n', section.indexOf('\n- ')))
  const written = [...new Set([...list.matchAll(/`(api[0-9]+:2023-[a-z0-9-]+)`/g)].map((m) => m[1]))].sort()
  assert.deepEqual(written, [...new Set(EXCEPTIONS.map((e) => e.rule))].sort())
})
