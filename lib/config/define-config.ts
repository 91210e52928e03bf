// A config object → the same object, typed: rule and function parameters take their types from
// `Config`, and a misspelt key is a compile error, as it is a startup error.
import type { Config } from './schema.js'

/**
 * Gives a config file its types; returns the config unchanged. Not generic on purpose: a type
 * parameter inferred from the object would let misspelt keys through (no excess-property check).
 *
 * @example
 * export default defineConfig({
 *   resources: { orders: { fields: { id: { type: 'bigint' } }, access: { update: (ctx) => ({ filter: { owner_id: ctx.user.id } }) } } },
 * })
 */
export function defineConfig (config: Config): Config {
  return config
}
