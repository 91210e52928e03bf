// The repository's import graph, read from source text: every import and re-export form, type-only
// ones included, with relative specifiers resolved to repository paths (`./x.js` → `lib/x.ts`) and the
// package's own name to its entry (`tablegate` → `lib/index.ts`), which is what Node loads for it.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))

export interface Import {
  /** A repository path (`lib/sql/sql.ts`) or another package's specifier (`fastify`, `node:crypto`). */
  readonly to: string
  /** Erased at compile time. `import { type A }` is not: verbatimModuleSyntax keeps `import {}`. */
  readonly typeOnly: boolean
}

// Top-level statements start a line. The clause is a default or namespace binding, braces, or both.
const STATEMENT = /^(?:import|export)(\s+type\b)?\s*(?:[\w$]+\s*,\s*)?(?:\*(?:\s+as\s+[\w$]+)?|[\w$]+|\{[^}]*\})\s*from\s*(['"])([^'"]+)\2/gm
const SIDE_EFFECT = /^import\s*(['"])([^'"]+)\1/gm
// `import('x')` is a type query after `typeof` or before a member (`import('x').T`), else a dynamic import.
const IMPORT_CALL = /(\btypeof\s+)?\bimport\(\s*(['"])([^'"]+)\2\s*\)(\.(?!then\b|catch\b|finally\b)[\w$])?/g

/** The `.ts` files under a repository folder, as repository paths. */
export function sources (dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  }).sort()
}

/** The imports of a file's text, in source order. */
export function parseImports (file: string, text: string): Import[] {
  const found = [
    ...[...text.matchAll(STATEMENT)].map((m) => ({ at: m.index, spec: m[3]!, typeOnly: m[1] !== undefined })),
    ...[...text.matchAll(SIDE_EFFECT)].map((m) => ({ at: m.index, spec: m[2]!, typeOnly: false })),
    ...[...text.matchAll(IMPORT_CALL)].map((m) => ({ at: m.index, spec: m[3]!, typeOnly: m[1] !== undefined || m[4] !== undefined })),
  ].sort((a, b) => a.at - b.at)
  return found.map(({ spec, typeOnly }) => ({ to: resolveSpecifier(file, spec), typeOnly }))
}

/** The package's entry: `exports` has only `.`, so any `tablegate/…` is the entry or nothing. */
const OWN_ENTRY = 'lib/index.ts'

function resolveSpecifier (file: string, spec: string): string {
  if (spec === 'tablegate' || spec.startsWith('tablegate/')) return OWN_ENTRY
  if (!spec.startsWith('.')) return spec
  return relative(root, join(root, file, '..', spec)).replace(/\.js$/, '.ts')
}

/** The imports of a repository file. */
export function importsOf (file: string): Import[] {
  return parseImports(file, readFileSync(join(root, file), 'utf8'))
}

/** One cycle path (`a → b → a`) per back edge of a depth-first walk over the nodes, in order. */
export function findCycles (nodes: readonly string[], next: (node: string) => Iterable<string>): string[] {
  const cycles: string[] = []
  const onPath: string[] = []
  const done = new Set<string>()
  const visit = (node: string): void => {
    onPath.push(node)
    for (const target of next(node)) {
      const at = onPath.indexOf(target)
      if (at >= 0) cycles.push([...onPath.slice(at), target].join(' → '))
      else if (!done.has(target)) visit(target)
    }
    onPath.pop()
    done.add(node)
  }
  for (const node of nodes) if (!done.has(node)) visit(node)
  return cycles
}
