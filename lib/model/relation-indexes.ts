// Which relations' foreign keys have no index: a startup warning each, naming the index to create.
// Following a relation reads the table that holds its foreign key by that column: a to-many's
// every embed reads the children by `by`; a to-one's reverse lookups and the filters that traverse
// it read this resource's rows by `field`. Without an index whose first column is that one, each
// such read scans the table. A tenancy through relations (./tenancy.ts) reads the children of the
// caller's tenant's parents: the parents by their tenant column, then the children by their
// relations' columns (advised above, as those of any relation).
import { quoteIdent } from '../sql/sql.js'
import type { ResourceModel } from './types.js'
import { tableNameParts } from './table-name.js'

/** What a table's indexes can serve: the first two key columns of each (null for an expression). */
export interface TableIndexes {
  /** False for a view or a foreign table: whatever serves its reads is not its own to tell. */
  readonly known: boolean
  readonly leads: ReadonlyArray<readonly [string | null, string | null]>
}

/**
 * Whether an index serves reads by `column`: it starts with the column, or, on a tenant's table,
 * with the tenant column and then it (every read there is also by tenant).
 */
function served (indexes: TableIndexes, column: string, tenant: string | undefined): boolean {
  return indexes.leads.some(([first, second]) => first === column || (tenant !== undefined && first === tenant && second === column))
}

/** One warning per missing index, naming every relation that reads by its column. */
export function unindexedRelations (models: ReadonlyMap<string, ResourceModel>, indexesOf: (resource: string) => TableIndexes | undefined): string[] {
  const wanted = new Map<string, { holder: ResourceModel, column: string, paths: string[] }>()
  const want = (holder: ResourceModel, column: string, path: string): void => {
    const indexes = indexesOf(holder.name)
    if (indexes === undefined || !indexes.known || served(indexes, column, holder.tenant)) return
    const key = JSON.stringify([holder.name, column])
    const entry = wanted.get(key) ?? { holder, column, paths: [] }
    entry.paths.push(path)
    wanted.set(key, entry)
  }
  for (const model of models.values()) {
    for (const relation of model.relations.values()) {
      const holder = relation.kind === 'one' ? model : models.get(relation.target)!
      want(holder, relation.kind === 'one' ? relation.field.column : relation.by.column, `config.resources.${model.name}.relations.${relation.name}`)
    }
    const { tenancy } = model
    if (tenancy?.kind === 'through') want(models.get(tenancy.hops.at(-1)!.target)!, tenancy.column, `config.resources.${model.name}.tenant.through`)
  }
  return [...wanted.values()].map(({ holder, column, paths }) => {
    const table = tableNameParts(holder.tableText).map(quoteIdent).join('.')
    return `${paths.join(', ')}: following the relation reads table ${holder.tableText} by column ${column}, and no index starts with it, so each such read scans the table. Create one: CREATE INDEX ON ${table} (${quoteIdent(column)})`
  })
}
