// What the OpenAPI document says of the bounds every request has, beside each field's own: a
// string with no length of its own is bounded by what carries it (a path segment 4096 characters,
// the request line and headers 128 KiB, a JSON body `bodyLimit` bytes), each refused with the
// status the document gives it (414, 431, 413). Also the server entry, the bearer scheme and CORS.
import type { VerifierConfig } from '../config/schema.js'
import { ACCESS_TOKEN_TTL_SECONDS } from '../auth/tokens.js'
import type { JsonSchema } from './schemas.js'
import { MAX_HEADER_BYTES, MAX_PATH_SEGMENT } from '../http/server-options.js'

const boundedAlready = (schema: JsonSchema): boolean => schema.maxLength !== undefined || schema.enum !== undefined || schema.const !== undefined

/** A JSON body's strings and arrays without a bound of their own: none is longer than the body. */
function boundBody (schema: JsonSchema, bodyLimit: number): JsonSchema {
  if (schema.$ref !== undefined) return schema
  const out: JsonSchema = { ...schema }
  if (out.type === 'string' && !boundedAlready(out)) out.maxLength = bodyLimit
  // Each item takes a byte and a comma at least.
  if (out.type === 'array' && out.maxItems === undefined) out.maxItems = Math.floor(bodyLimit / 2)
  for (const key of ['items', 'additionalProperties'] as const) {
    if (typeof out[key] === 'object' && out[key] !== null) out[key] = boundBody(out[key] as JsonSchema, bodyLimit)
  }
  for (const key of ['properties', 'patternProperties'] as const) {
    if (out[key] !== undefined) out[key] = Object.fromEntries(Object.entries(out[key] as Record<string, JsonSchema>).map(([name, s]) => [name, boundBody(s, bodyLimit)]))
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(out[key])) out[key] = (out[key] as JsonSchema[]).map((s) => boundBody(s, bodyLimit))
  }
  return out
}

/** A parameter, inline or shared, whose string has no bound of its own: its transport's. */
export function boundParameter (parameter: JsonSchema): JsonSchema {
  const schema = parameter.schema as JsonSchema | undefined
  if (parameter.$ref !== undefined || schema?.type !== 'string' || boundedAlready(schema)) return parameter
  return { ...parameter, schema: { ...schema, maxLength: parameter.in === 'path' ? MAX_PATH_SEGMENT : MAX_HEADER_BYTES } }
}

/** Each operation's inline parameters and JSON body with the bounds their transport sets. */
export function bounded (paths: Record<string, Record<string, unknown>>, bodyLimit: number): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, Object.fromEntries(Object.entries(item).map(([method, operation]) => {
    // A path item's own `parameters`, beside its operations.
    if (Array.isArray(operation)) return [method, (operation as JsonSchema[]).map(boundParameter)]
    const op = operation as { parameters?: JsonSchema[], requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }
    const parameters = op.parameters?.map(boundParameter)
    const json = op.requestBody?.content?.['application/json']
    const requestBody = json?.schema === undefined ? op.requestBody : { ...op.requestBody, content: { ...op.requestBody!.content, 'application/json': { ...json, schema: boundBody(json.schema, bodyLimit) } } }
    return [method, { ...op, ...(parameters === undefined ? {} : { parameters }), ...(requestBody === undefined ? {} : { requestBody }) }]
  }))]))
}

/** The CORS field as lib/http/cors.ts sends it: the request's Origin, where it is one of `origins`. */
export function CORS_HEADER (origins: readonly string[]): Record<string, JsonSchema> {
  return {
    'Access-Control-Allow-Origin': {
      schema: { type: 'string', format: 'uri', maxLength: MAX_HEADER_BYTES },
      description: `Sent only to a browser request whose Origin is one of these (config trustedOrigins and the public URL's): ${origins.join(', ')}; that origin, with Access-Control-Allow-Credentials: true. Other origins get no CORS field, so a browser keeps their scripts from reading the answer.`,
    },
  }
}

/**
 * The bearer scheme, as the verifier checks tokens (lib/auth/verifier.ts): the built-in login's
 * are EdDSA, its own issuer and audience, 15 minutes; another issuer's as its config says.
 */
export function bearerScheme (verifier: VerifierConfig | undefined): JsonSchema {
  const description = verifier === undefined
    ? `An access token from GET /api/auth/token: a JWT handled as RFC8725 (JSON Web Token Best Current Practices) asks. Signed with EdDSA (Ed25519) only: "none", HMAC and any other algorithm are refused. exp (the token lives ${ACCESS_TOKEN_TTL_SECONDS / 60} minutes, no clock leeway), iss and aud (both the public URL) and sub are checked; a token of a revoked session is refused.`
    : `A JWT of the configured issuer, handled as RFC8725 (JSON Web Token Best Current Practices) asks: signed with ${verifier.algorithms === undefined ? 'an asymmetric algorithm (EdDSA, ES*, RS*, PS*), never "none" or HMAC' : verifier.algorithms.join(', ')} only; exp and sub are required and checked, with no clock leeway; iss ${verifier.issuer === undefined ? 'is not checked (config verifier.issuer)' : 'is checked'}, aud ${verifier.audience === undefined ? 'is not checked (config verifier.audience)' : 'is checked'}. Keep such tokens short-lived.`
  return { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description }
}

/** The server entry: this deployment's public URL, for callers with an account (not internal). */
export function serverEntry (publicUrl: string): JsonSchema {
  const host = new URL(publicUrl).hostname
  const local = host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost')
  return {
    url: publicUrl,
    description: `${local ? 'A local development server' : 'The production server'} of this deployment (config publicUrl): every operation needs a bearer token of an account, and lists only what that account may use.`,
    'x-internal': false,
  }
}
