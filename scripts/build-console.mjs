// Builds the console (console/) into dist/plugins/console/app/: one minified bundle and one
// stylesheet with content hashes in their names, and index.html naming them. Run by `npm run
// build` (and so by `prepare`), never at server start.
import { build } from 'esbuild'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const out = join(root, 'dist/plugins/console/app')
mkdirSync(join(out, 'assets'), { recursive: true })

const result = await build({
  entryPoints: [join(root, 'console/src/main.tsx'), join(root, 'console/style.css')],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
})

const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file))
const script = outputs.find((name) => name.endsWith('.js'))
const style = outputs.find((name) => name.endsWith('.css'))
if (script === undefined || style === undefined) throw new Error(`console build: expected a .js and a .css, got ${outputs.join(', ')}`)
const page = readFileSync(join(root, 'console/index.html'), 'utf8').replace('%SCRIPT%', script).replace('%STYLE%', style)
writeFileSync(join(out, 'index.html'), page)
