// What tests of "refused exactly as an unknown field" compare: two refusals of different names
// must be the same problem once the quoted name is taken out.
import assert from 'node:assert/strict'
import type { CallResult } from './app.js'

/**
 * The refusal with its quoted name taken out, and its did-you-mean too when `suggestion` is
 * 'strip' (for two names far enough apart that each gets its own suggestion).
 */
export function refusalShape (response: CallResult, suggestion: 'keep' | 'strip' = 'keep'): unknown {
  const name = suggestion === 'strip' ? /'[^']*' is not a field( \(did you mean '[^']*'\?\))?/ : /'[^']*' is not a field/
  const strip = (text: string): string => text.replace(name, "'…' is not a field")
  const body = response.body
  return { ...body, instance: undefined, detail: strip(body.detail), errors: body.errors.map((e: { message: string }) => ({ ...e, message: strip(e.message) })) }
}

/** A 400 invalid-parameter whose first error says `fields: '<name>' is not a field`. */
export function assertUnknownField (response: CallResult, name: string): void {
  assert.equal(response.status, 400, JSON.stringify(response.body))
  assert.equal(response.body.type, 'urn:service:problem:invalid-parameter')
  assert.match(response.body.errors[0].message, new RegExp(`^fields: '${name.replace(/\./g, '\\.')}' is not a field`))
}
