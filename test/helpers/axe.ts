// axe-core in the page under test: its source evaluated through the DevTools protocol (which the
// console's CSP does not govern, so the CSP under test stays as shipped), then run for WCAG 2.x
// levels A and AA. Answers each violation as `rule: target, target…` so an assertion names them.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'puppeteer-core'

const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const LEVELS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

export async function axeViolations (page: Page): Promise<string[]> {
  if (await page.evaluate('typeof window.axe') === 'undefined') await page.evaluate(source)
  return await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(LEVELS)} }, resultTypes: ['violations'] })
    .then((result) => result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`) as string[]
}
