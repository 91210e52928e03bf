// The repository stands on its own: its comments and docs cite docs/ pages, never a specification
// or design document kept outside it, which a reader of the repository cannot open. A citation of a
// docs page names a page and a heading that exist, so it stays true when a page is reworked.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join, relative } from 'node:path'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const self = 'test/unit/self-contained.test.ts'
// What git ignores (.gitignore) and what is not ours (the lock file, the licence text).
const SKIPPED_DIRS = new Set(['.git', 'node_modules', 'dist', '.tablegate'])
const SKIPPED_FILES = new Set(['package-lock.json', 'LICENSE'])

function sourceFiles (dir = ''): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) || entry.name.startsWith('.out-') ? [] : sourceFiles(path)
    return SKIPPED_FILES.has(entry.name) || /\.(cpuprofile|png|ico)$/.test(entry.name) ? [] : [path]
  })
}

const files = sourceFiles().filter((file) => file !== self).map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }))

// The outside documents as they were cited: by file name, by their names in capitals (`SPEC
// "Errors"`, `DESIGN 5.14`), as "the design card", and as "the spec" (which in this repository meant
// the outside one; a public standard is cited by its own name: AIP-160, RFC 9457, OpenAPI 3.1).
const OUTSIDE = [/\b(SPEC|DESIGN)(\.md)?\b/, /\bdesign card\b/i, /\bthe spec\b/i]

test('no comment or doc cites a document outside the repository', () => {
  const citations = files.flatMap(({ file, text }) => text.split('\n').flatMap((line, i) =>
    OUTSIDE.some((pattern) => pattern.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : []))
  assert.deepEqual(citations, [], 'cite the docs/ page (and heading) that states the rule, or state the rule itself')
})

test('the walk sees the places citations live', () => {
  const seen = new Set(files.map(({ file }) => file.split('/')[0]))
  for (const dir of ['lib', 'plugins', 'hooks', 'bin', 'scripts', 'test', 'benchmarks', 'examples', 'docs', 'README.md']) {
    assert.ok(seen.has(dir), `${dir} was not walked`)
  }
})

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf (heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')
}

// Each docs page's headings, and its anchors: the headings' and any `<a id>` of its own.
const pages = new Map(readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => {
  const text = readFileSync(join(root, 'docs', name), 'utf8')
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim())
  const anchors = new Set([...headings.map(anchorOf), ...[...text.matchAll(/<a id="([^"]+)">/g)].map((m) => m[1]!)])
  return [name, { headings, anchors }]
}))

test('every docs page a comment or doc names exists, with the heading it quotes', () => {
  const broken: string[] = []
  for (const { file, text } of files) {
    // A citation may wrap over comment lines: read the text with the comment markers taken out.
    const prose = text.replace(/\n\s*(\/\/|\*(?!\/))\s*/g, ' ')
    for (const m of prose.matchAll(/(?<![\w/-])docs\/([a-z-]+\.md)(?:,? \(?"([^"]+)")?/g)) {
      const [citation, page, heading] = m
      const cited = pages.get(page!)
      if (cited === undefined) broken.push(`${file}: ${citation} (no such page)`)
      else if (heading !== undefined && !cited.headings.some((h) => h.replace(/`/g, '').startsWith(heading))) broken.push(`${file}: ${citation} (no such heading)`)
    }
  }
  assert.deepEqual(broken, [])
})

test('every link to a docs page leads to a page and a heading that exist', () => {
  const broken: string[] = []
  for (const { file, text } of files.filter(({ file }) => file.endsWith('.md'))) {
    for (const m of text.matchAll(/\]\(([^)#\s]*\.md)?(?:#([^)\s]+))?\)/g)) {
      const [link, target, anchor] = m
      if (target === undefined && anchor === undefined) continue
      if (target !== undefined && /^[a-z]+:/.test(target)) continue
      const path = relative(join(root, 'docs'), join(root, dirname(file), target ?? file.slice(dirname(file).length + 1)))
      const linked = pages.get(path)
      if (linked === undefined) {
        if (path.startsWith('..') || path.includes('/')) continue
        broken.push(`${file}: ${link} (no such page)`)
      } else if (anchor !== undefined && !linked.anchors.has(anchor)) {
        broken.push(`${file}: ${link} (no such heading)`)
      }
    }
  }
  assert.deepEqual(broken, [])
})
