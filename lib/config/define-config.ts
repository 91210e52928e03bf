import type { Config } from './schema.js'

/** Gives a config file its types; returns the config unchanged. */
export function defineConfig<const C extends Config> (config: C): C {
  return config
}
