// `npm run docs:config`: writes docs/configuration.md from the config schema (scripts/config-reference.ts).
import { writeFileSync } from 'node:fs'
import { configReference } from './config-reference.js'

const target = new URL('../../docs/configuration.md', import.meta.url)
writeFileSync(target, configReference())
console.log('wrote docs/configuration.md')
