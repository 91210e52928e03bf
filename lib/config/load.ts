// Config discovery and loading: `--config`, else TABLEGATE_CONFIG, else ./tablegate.config.{ts,mts,js,mjs,json}.
// TypeScript configs are loaded through tsx at run time, so users need no build step of their own.
import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { extname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ConfigError } from './validate.js'

export const CONFIG_FILE_NAMES = ['tablegate.config.ts', 'tablegate.config.mts', 'tablegate.config.js', 'tablegate.config.mjs', 'tablegate.config.json']

/** The config file to load, or undefined when none is given and none is found in `cwd`. */
export function discoverConfigFile (explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  const given = explicit ?? (env.TABLEGATE_CONFIG === '' ? undefined : env.TABLEGATE_CONFIG)
  if (given !== undefined) {
    const path = resolve(cwd, given)
    if (!existsSync(path) || !statSync(path).isFile()) throw new ConfigError(`config file not found: ${given}`)
    return path
  }
  return CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((path) => existsSync(path))
}

/** Loads the default export of a config file (`.json`: the whole document). */
export async function loadConfigFile (path: string): Promise<unknown> {
  const ext = extname(path)
  try {
    if (ext === '.json') return JSON.parse(await readFile(path, 'utf8'))
    if (ext === '.js' || ext === '.mjs') return defaultExport(await import(pathToFileURL(path).href))
    if (ext === '.ts' || ext === '.mts') {
      const { tsImport } = await import('tsx/esm/api')
      return defaultExport(await tsImport(pathToFileURL(path).href, import.meta.url))
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err
    throw new ConfigError(`cannot load config ${path}: ${(err as Error).message.split('\n')[0]}`)
  }
  throw new ConfigError(`config ${path}: unsupported extension '${ext}' (use .ts, .mts, .js, .mjs or .json)`)
}

function defaultExport (mod: { default?: unknown }): unknown {
  // tsx may wrap a TypeScript module's default export once more when it compiles to CommonJS.
  let value = mod.default
  while (value !== null && typeof value === 'object' && 'default' in value && Object.keys(value).length === 1) {
    value = (value as { default: unknown }).default
  }
  if (value === undefined) throw new ConfigError('the config file has no default export')
  return value
}
