#!/usr/bin/env node
// Checked before anything is loaded: on an older Node, loading tablegate fails in ways that say
// nothing of the cause (Node 20 ends in a segmentation fault).
const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  process.stderr.write(`tablegate: Node ${process.versions.node} is too old: tablegate runs on Node 22 or 24 (install one, e.g. nvm install 22, and run it again)\n`)
  process.exit(1)
}
const { main } = await import('../dist/lib/cli/main.js')
process.exitCode = await main(process.argv.slice(2))
