// The layering of the design holds for every import, type-only ones included: lib never reaches into
// plugins or up its own stack, Fastify stays at the server entry, and no imports form a cycle.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { findCycles, importsOf, parseImports, sources } from '../helpers/imports.js'

interface Edge { readonly from: string, readonly to: string, readonly typeOnly: boolean }

const files = [...sources('lib'), ...sources('plugins'), ...sources('hooks')]
const edges: Edge[] = files.flatMap((from) => importsOf(from).map((i) => ({ from, ...i })))

function arrow (e: Edge): string {
  return `${e.from} → ${e.to}`
}

function edgesFrom (prefix: string): Edge[] {
  return edges.filter((e) => e.from.startsWith(prefix))
}

/** `lib/sql/read.ts` → `sql`; undefined for files at the top of lib and outside it. */
function libFolder (path: string): string | undefined {
  const parts = path.split('/')
  return parts[0] === 'lib' && parts.length > 2 ? parts[1] : undefined
}

test('the scanner sees every import form (so the rules below are not passing vacuously)', () => {
  const text = [
    "import a from './a.js'",
    "import type { B } from '../b.js'",
    'import {\n  c,\n  type D,\n} from \'c\'',
    "import { type E } from 'e'",
    "import './side-effect.js'",
    "export { f } from './f.js'",
    "export type { G } from './g.js'",
    "export * as h from 'h'",
    "let i: import('i').I",
    "type J = typeof import('j')",
    "const k = await import('k')",
    "export type { L }\nimport { m } from 'm'",
    "// import n from 'n'",
    "import { o } from 'tablegate'",
    "import type { P } from 'tablegate/q'",
  ].join('\n')
  assert.deepEqual(parseImports('lib/x/y.ts', text), [
    { to: 'lib/x/a.ts', typeOnly: false },
    { to: 'lib/b.ts', typeOnly: true },
    { to: 'c', typeOnly: false },
    { to: 'e', typeOnly: false },
    { to: 'lib/x/side-effect.ts', typeOnly: false },
    { to: 'lib/x/f.ts', typeOnly: false },
    { to: 'lib/x/g.ts', typeOnly: true },
    { to: 'h', typeOnly: false },
    { to: 'i', typeOnly: true },
    { to: 'j', typeOnly: true },
    { to: 'k', typeOnly: false },
    { to: 'm', typeOnly: false },
    { to: 'lib/index.ts', typeOnly: false },
    { to: 'lib/index.ts', typeOnly: true },
  ])
  assert.ok(importsOf('lib/server.ts').some((i) => i.to === 'plugins/tablegate/index.ts' && !i.typeOnly))
  assert.ok(importsOf('lib/server.ts').some((i) => i.to === 'fastify' && !i.typeOnly))
  assert.ok(importsOf('lib/context.ts').some((i) => i.to === 'lib/access/types.ts' && i.typeOnly))
  assert.ok(importsOf('lib/public.ts').some((i) => i.to === 'lib/config/schema.ts' && i.typeOnly))
  assert.ok(importsOf('lib/auth/keys.ts').some((i) => i.to === 'node:crypto' && i.typeOnly))
})

test('lib does not import plugins, except its entry points', () => {
  const offenders = edgesFrom('lib/').filter((e) => !['lib/index.ts', 'lib/server.ts'].includes(e.from))
    .filter((e) => e.to.startsWith('plugins/')).map(arrow)
  assert.deepEqual(offenders, [])
})

test('query and plan do not build SQL', () => {
  const offenders = [...edgesFrom('lib/query/'), ...edgesFrom('lib/plan/')]
    .filter((e) => e.to.startsWith('lib/sql/')).map(arrow)
  assert.deepEqual(offenders, [])
})

const ABOVE_CORE = ['read', 'write', 'serialize', 'auth', 'cli', 'route', 'init', 'changes']
/** The core leaves config → model → (query, access) → plan → sql → db: none imports a higher one. */
const HIGHER: Record<string, readonly string[]> = {
  config: ['model', 'query', 'access', 'plan', 'sql', 'db', ...ABOVE_CORE],
  model: ['query', 'access', 'plan', 'sql', 'db', ...ABOVE_CORE],
  query: ['plan', 'sql', 'db', ...ABOVE_CORE],
  access: ['plan', 'sql', 'db', ...ABOVE_CORE],
  plan: ['sql', 'db', ...ABOVE_CORE],
  sql: ['db', ...ABOVE_CORE],
}
/** Leaf files of a higher folder that model may import, and why (nothing else below them does). */
const MODEL_MAY_IMPORT: Record<string, string> = {
  'lib/sql/sql.ts': 'a model keeps its table as a quoted identifier fragment, and introspection writes its queries',
  'lib/db/query.ts': 'introspection (model/introspect.ts) reads the catalog through the one door to pg',
}

test('the core leaves of lib import nothing higher', () => {
  const offenders = edgesFrom('lib/').filter((e) => {
    const from = libFolder(e.from)
    const to = libFolder(e.to)
    if (from === undefined || to === undefined || !(HIGHER[from]?.includes(to) ?? false)) return false
    return !(from === 'model' && e.to in MODEL_MAY_IMPORT)
  }).map(arrow)
  assert.deepEqual(offenders, [])
})

test('the leaves model may import reach nothing in lib but each other', () => {
  const offenders = Object.keys(MODEL_MAY_IMPORT).flatMap((leaf) => edgesFrom(leaf))
    .filter((e) => e.to.startsWith('lib/') && !(e.to in MODEL_MAY_IMPORT)).map(arrow)
  assert.deepEqual(offenders, [])
})

test('routes stand on the stages, and no stage stands on routes: only the top of lib imports lib/route', () => {
  // A route composes plan, read, write and serialize; one of those importing a route would run
  // the pipeline backwards. The runtime holds the route table, and the decorator adds to it.
  const offenders = edgesFrom('lib/').filter((e) => e.to.startsWith('lib/route/') && !e.from.startsWith('lib/route/'))
    .filter((e) => !['lib/bootstrap.ts', 'lib/runtime.ts', 'lib/decorator.ts', 'lib/public.ts'].includes(e.from)).map(arrow)
  assert.deepEqual(offenders, [])
})

const TOP = ['lib/index.ts', 'lib/public.ts', 'lib/server.ts', 'lib/bootstrap.ts', 'lib/runtime.ts', 'lib/decorator.ts', 'lib/extensions.ts']

test('nothing in lib, plugins or hooks imports the package entry, by the name tablegate or by path', () => {
  // The entry only re-exports: lib/index.ts reaches the built-in plugins (the root plugin, the audit
  // log), and one of them importing the entry back would be a cycle Node runs half-initialised.
  const offenders = edges.filter((e) => e.to === 'lib/index.ts').map(arrow)
  assert.deepEqual(offenders, [])
})

/**
 * The rule for plugins: a plugin imports the public library (lib/public.ts, what `tablegate`
 * exports) and its own files. The audit log, the scan guard and the examples are written as a
 * third party would write them, and keep to that alone. The other built-in plugins are the HTTP
 * face of lib's own stages, and may also reach exactly the lib folders and files named here:
 * their engines (plans, reads, writes) are lib's, not a public contract, and an import beyond
 * these is a decision to write down, not an accident.
 */
const PLUGIN_REACH: Record<string, readonly string[]> = {
  'audit-log': [],
  'scan-guard': [],
  // The root plugin: the HTTP edge (request context, bodies, problems) and the route table's mount.
  tablegate: ['bootstrap', 'config', 'decorator', 'http', 'model', 'problems', 'route', 'runtime', 'timing'],
  // Route tables: each declaration runs lib's plans, reads and writes through lib/route.
  resources: ['db', 'openapi', 'plan', 'problems', 'query', 'read', 'route', 'runtime', 'serialize', 'text', 'write'],
  aggregates: ['access', 'db', 'model', 'openapi', 'plan', 'read', 'route', 'runtime'],
  export: ['openapi', 'plan', 'problems', 'read', 'route', 'runtime'],
  batch: ['access', 'openapi', 'route', 'runtime', 'write'],
  // The change feed's route over lib/changes; `access` for the caller's shape a stream re-checks.
  changes: ['access', 'changes', 'crypto', 'openapi', 'plan', 'problems', 'query', 'route', 'runtime'],
  // The login, the access plans and the documents made from them, health and metrics.
  auth: ['auth', 'config', 'http', 'limits', 'principal', 'problems', 'runtime'],
  access: ['access', 'runtime'],
  // Request limits: the settings, the counters and the 429, on the runtime's database.
  'rate-limits': ['config', 'limits', 'runtime'],
  meta: ['access', 'auth', 'meta', 'openapi', 'query', 'runtime'],
  health: ['auth', 'db', 'problems', 'runtime'],
  metrics: ['cache', 'problems', 'query', 'runtime'],
  // Static files: the config's path and the not-found problem, nothing of the API's engines.
  console: ['problems', 'runtime'],
}

/** `lib/read/execute.ts` → `read`, `lib/runtime.ts` → `runtime`. */
function libPart (path: string): string {
  return path.split('/')[1]!.replace(/\.ts$/, '')
}

test('the gate is the runner\'s and the write engine\'s alone: no plugin checks an operation or a tenant itself', () => {
  // admit() (lib/access/require.ts) answers 404, 403 and tenant-required for every route; a route
  // handler calling it, or one of its parts, would be a second gate that could drift from it.
  const offenders = edges.filter((e) => e.to === 'lib/access/require.ts')
    .filter((e) => !['lib/route/run.ts', 'lib/write/batch.ts', 'lib/write/batch-operations.ts'].includes(e.from)).map(arrow)
  assert.deepEqual(offenders, [])
})

test('every plugin is named in the rule, and each takes only the public library, its own files and its reach', () => {
  const plugins = [...new Set(edgesFrom('plugins/').map((e) => e.from.split('/')[1]!))].sort()
  assert.deepEqual(plugins, Object.keys(PLUGIN_REACH).sort())
  const offenders = edgesFrom('plugins/').filter((e) => /^(lib|hooks|plugins)\//.test(e.to)).filter((e) => {
    const plugin = e.from.split('/')[1]!
    if (e.to === 'lib/public.ts' || e.to.startsWith(`plugins/${plugin}/`)) return false
    // The root plugin registers the built-in ones.
    if (plugin === 'tablegate' && e.to.startsWith('plugins/') && e.to.endsWith('/index.ts')) return false
    return !(e.to.startsWith('lib/') && PLUGIN_REACH[plugin]!.includes(libPart(e.to)))
  }).map(arrow)
  assert.deepEqual(offenders, [])
})

test('the examples import tablegate only by its name, as an application does', () => {
  const offenders = sources('examples').flatMap((from) => importsOf(from).map((i) => ({ from, ...i })))
    .filter((e) => /^(lib|hooks|plugins)\//.test(e.to) && e.to !== 'lib/index.ts').map(arrow)
  assert.deepEqual(offenders, [])
})

test('only the top of lib (its entry points and the CLI) imports the entry points', () => {
  const offenders = edgesFrom('lib/').filter((e) => TOP.includes(e.to))
    .filter((e) => !TOP.includes(e.from) && !e.from.startsWith('lib/cli/')).map(arrow)
  assert.deepEqual(offenders, [])
})

const isFastify = (spec: string): boolean => /^(fastify(\/|-plugin$|$)|@fastify\/)/.test(spec)

test('only the server entry imports Fastify in lib', () => {
  const offenders = edgesFrom('lib/').filter((e) => isFastify(e.to) && !e.typeOnly && e.from !== 'lib/server.ts').map(arrow)
  assert.deepEqual(offenders, [])
})

test('Fastify types are imported in lib only where config functions and server options are typed', () => {
  // (context.ts and decorator.ts augment 'fastify' with `declare module`, which imports nothing.)
  const typed = ['lib/config/functions.ts', 'lib/http/server-options.ts']
  const offenders = edgesFrom('lib/').filter((e) => isFastify(e.to) && e.typeOnly && !typed.includes(e.from)).map(arrow)
  assert.deepEqual(offenders, [])
})

test('hooks import from lib only problems, the query door, the database error table and the request context', () => {
  // pg-errors: a database that went away under a hook is the database's problem, not the hook's.
  const allowed = ['lib/problems.ts', 'lib/db/query.ts', 'lib/db/pg-errors.ts', 'lib/context.ts']
  const offenders = edgesFrom('hooks/').filter((e) => e.to.startsWith('lib/') && !allowed.includes(e.to)).map(arrow)
  assert.deepEqual(offenders, [])
})

test('no plugin imports another plugin, except the root plugin registering the built-in ones', () => {
  const offenders = edgesFrom('plugins/').filter((e) => !e.from.startsWith('plugins/tablegate/')).filter((e) => {
    return e.to.startsWith('plugins/') && e.to.split('/')[1] !== e.from.split('/')[1]
  }).map(arrow)
  assert.deepEqual(offenders, [])
})

test('the folders of lib import each other without a cycle', () => {
  // A file at the top of lib, and a leaf model may import, stands for itself: it is not its folder.
  const unit = (path: string): string => path in MODEL_MAY_IMPORT || libFolder(path) === undefined ? path : `lib/${libFolder(path)}/`
  const next = new Map<string, Set<string>>()
  for (const e of edgesFrom('lib/')) {
    if (!e.to.startsWith('lib/') || unit(e.from) === unit(e.to)) continue
    next.set(unit(e.from), (next.get(unit(e.from)) ?? new Set()).add(unit(e.to)))
  }
  assert.deepEqual(findCycles([...next.keys()].sort(), (u) => next.get(u) ?? []), [])
})

test('no file in lib, plugins or hooks reaches itself through imports', () => {
  const next = (file: string): string[] => edges.filter((e) => e.from === file).map((e) => e.to)
  assert.deepEqual(findCycles(files, next), [])
})

