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

/** Checks values against `#/components/schemas/<name>` of a document. */
export function schemaChecker (document: unknown): (name: string, value: unknown) => void {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
  ajv.addSchema({ ...(document as object), $id: 'openapi.json' })
  return (name, value) => {
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`)
    assert.ok(validate, `no schema ${name}`)
    assert.equal(validate(value), true, `${name}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(value)}`)
  }
}
