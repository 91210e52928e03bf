// Resources a plugin brings. A plugin in `config.plugins` may carry, under `kPluginResources`, a
// function of its options that declares resources of its own (the audit log's table), the
// migration that creates their tables, and how a caller sees their rows. They are read when the
// config is resolved, so models, access checks, `/api/meta` and `tablegate migrate` see them as
// they see the config's own resources.
import type pg from 'pg'
import type { ResourceConfig } from './schema.js'
import { ConfigError } from './validate.js'

/** Registered, so a plugin built against another module instance of tablegate is still read. */
export const kPluginResources = Symbol.for('tablegate.pluginResources')

/**
 * How a caller sees rows whose values hold records of other resources: given the fields the
 * caller may read of a resource (undefined: none, or no such resource), a function rewriting a
 * row as read. It runs before the row's ETag and JSON, so neither depends on what it removes.
 */
export type RowPresenter = (readableFields: (resource: string) => ReadonlySet<string> | undefined) =>
  (row: Record<string, unknown>) => Record<string, unknown>

export interface PluginResource {
  readonly config: ResourceConfig
  readonly present?: RowPresenter
}

/** Creates a plugin's tables: run by `tablegate migrate`, and on start with `migrateOnStart`. */
export type PluginMigration = (db: Pick<pg.Pool, 'query'>) => Promise<void>

export interface PluginResources {
  readonly resources: Readonly<Record<string, PluginResource>>
  readonly migrate?: PluginMigration
}

export type ContributeResources = (options: unknown) => PluginResources | undefined

/** The plugin, marked as one that brings resources. */
export function withResources<P extends object> (plugin: P, contribute: ContributeResources): P {
  return Object.defineProperty(plugin, kPluginResources, { value: contribute })
}

export interface ContributedResources {
  readonly resources: Readonly<Record<string, ResourceConfig>>
  readonly presenters: ReadonlyMap<string, RowPresenter>
  readonly migrations: readonly PluginMigration[]
}

/** The config's resources with those its plugins bring; a name given twice fails the start. */
export function contributedResources (own: Readonly<Record<string, ResourceConfig>>, plugins: ReadonlyArray<readonly [plugin: unknown, options: unknown]>): ContributedResources {
  const resources: Record<string, ResourceConfig> = { ...own }
  const presenters = new Map<string, RowPresenter>()
  const migrations: PluginMigration[] = []
  plugins.forEach(([plugin, options], i) => {
    const contribute = (plugin as { [kPluginResources]?: ContributeResources })[kPluginResources]
    const contributed = contribute?.(options)
    if (contributed === undefined) return
    for (const [name, resource] of Object.entries(contributed.resources)) {
      if (name in resources) throw new ConfigError(`config.plugins[${i}]: the plugin adds a resource '${name}', which config.resources already has: give one of them another name`)
      resources[name] = resource.config
      if (resource.present !== undefined) presenters.set(name, resource.present)
    }
    if (contributed.migrate !== undefined) migrations.push(contributed.migrate)
  })
  return { resources, presenters, migrations }
}
