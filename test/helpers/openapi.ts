// Real OpenAPI tooling for the document tests: the OpenAPI 3.1 schema validator, and ajv
// (JSON Schema 2020-12, the 3.1 dialect) to check responses against a document's schemas.
import assert from 'node:assert/strict'
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

/** Fails with the validator's own errors when the document is not valid OpenAPI 3.1. */
export async function assertValidOpenApi (document: unknown): Promise<void> {
  const validator = new Validator()
  const result = await validator.validate(document as Parameters<Validator["validate"]>[0])
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2))
  assert.equal(validator.version, '3.1')
}

function checkerAt (document: unknown): (pointer: string, value: unknown) => void {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
  ajv.addSchema({ ...(document as object), $id: 'openapi.json' })
  return (pointer, value) => {
    const validate = ajv.getSchema(`openapi.json#${pointer}`)
    assert.ok(validate, `no schema at ${pointer}`)
    assert.equal(validate(value), true, `${pointer}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(value)}`)
  }
}

/** Checks values against `#/components/schemas/<name>` of a document. */
export function schemaChecker (document: unknown): (name: string, value: unknown) => void {
  const check = checkerAt(document)
  return (name, value) => { check(`/components/schemas/${name}`, value) }
}

/** Checks a JSON answer against the 200 response schema a document gives an operation. */
export function responseChecker (document: unknown): (path: string, method: string, value: unknown) => void {
  const check = checkerAt(document)
  const escape = (part: string): string => part.replace(/~/g, '~0').replace(/\//g, '~1')
  return (path, method, value) => { check(`/paths/${escape(path)}/${method}/responses/200/content/${escape('application/json')}/schema`, value) }
}
