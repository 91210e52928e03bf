// Relations from the config to models: each checked against the resources it joins, every mistake
// a ConfigError naming its path (with a did-you-mean where a name was mistyped), as other config
// errors are. Which relations a caller may follow is access's question (lib/access/relations.ts).
import { ConfigError } from '../config/validate.js'
import type { ResourceConfig } from '../config/schema.js'
import { didYouMean } from '../text.js'
import type { RelationModel, RelationOrder, ResourceModel } from './types.js'

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const RESERVED = new Set(['etag', 'permissions'])
export const RELATION_PAGE_SIZE = 10
// A plugin's rows that hold other resources' records (the audit log's) are trimmed for each caller
// by the plugin's presenter; an embed reads rows as they are stored, so it would show them whole.
const PRESENTED = 'a plugin\'s resource whose records the plugin trims for each caller: a relation cannot embed them'

type RelationConfig = NonNullable<ResourceConfig['relations']>[string]

/**
 * The tail of "not a field": the nearest name, else the fields that could link (those with
 * `references`), since a relation names the linking field, not the resource it reaches.
 */
function linkingFields (name: string, model: ResourceModel): string {
  const near = didYouMean(name, model.fields.keys())
  if (near !== '') return near
  const linking = [...model.fields.values()].filter((f) => f.references !== undefined).map((f) => f.name)
  return linking.length === 0 ? '' : ` (the fields of ${model.name} that reference a resource: ${linking.join(', ')})`
}

function orderOf (path: string, text: string | undefined, target: ResourceModel): RelationOrder[] {
  if (text === undefined || text.trim() === '') return []
  return text.split(',').map((term) => {
    const [name, direction = 'asc', ...rest] = term.trim().split(/\s+/)
    if (name === undefined || name === '' || rest.length > 0 || !['asc', 'desc'].includes(direction.toLowerCase())) {
      throw new ConfigError(`${path}.orderBy: '${term.trim()}' is not a field with an optional asc or desc`)
    }
    const field = target.fields.get(name)
    if (field === undefined) throw new ConfigError(`${path}.orderBy: '${name}' is not a field of ${target.name}${didYouMean(name, target.fields.keys())}`)
    if (!field.sortable || field.type === 'json') throw new ConfigError(`${path}.orderBy: ${target.name}.${name} is not sortable`)
    return { field, direction: direction.toLowerCase() === 'desc' ? 'DESC' : 'ASC' }
  })
}

function relationModel (model: ResourceModel, name: string, config: RelationConfig, models: ReadonlyMap<string, ResourceModel>): RelationModel {
  const path = `config.resources.${model.name}.relations.${name}`
  if (!NAME.test(name) || name.startsWith('__') || RESERVED.has(name)) throw new ConfigError(`${path}: a relation name must start with a letter or '_' and hold letters, digits or '_' (not '__…', etag or permissions)`)
  if (model.fields.has(name)) throw new ConfigError(`${path}: ${model.name} has a field named '${name}': a relation needs a name of its own`)
  if ('field' in config) {
    const field = model.fields.get(config.field)
    if (field === undefined) throw new ConfigError(`${path}.field: '${config.field}' is not a field of ${model.name}${linkingFields(config.field, model)}`)
    if (field.references === undefined) throw new ConfigError(`${path}.field: ${model.name}.${field.name} references no resource: give it \`references\` (the resource whose key it holds)`)
    if (models.get(field.references)?.present !== undefined) throw new ConfigError(`${path}.field: ${model.name}.${field.name} references ${field.references}, ${PRESENTED}`)
    return Object.freeze({ kind: 'one', name, target: field.references, field })
  }
  const target = models.get(config.resource)
  if (target === undefined) throw new ConfigError(`${path}.resource: resource '${config.resource}' does not exist${didYouMean(config.resource, models.keys())}`)
  if (target.present !== undefined) throw new ConfigError(`${path}.resource: ${target.name} is ${PRESENTED}`)
  const by = target.fields.get(config.by)
  if (by === undefined) throw new ConfigError(`${path}.by: '${config.by}' is not a field of ${target.name}${linkingFields(config.by, target)}`)
  if (by.references !== model.name) {
    throw new ConfigError(`${path}.by: ${target.name}.${by.name} must reference ${model.name} (\`references: '${model.name}'\`)${by.references === undefined ? ', and references nothing' : `, not ${by.references}`}`)
  }
  return Object.freeze({
    kind: 'many',
    name,
    target: target.name,
    by,
    orderBy: Object.freeze(orderOf(path, config.orderBy, target)),
    pageSize: config.pageSize ?? RELATION_PAGE_SIZE,
  })
}

/** Each model with its relations, checked against the others (references are checked already). */
export function withRelations (models: ReadonlyMap<string, ResourceModel>, resources: Readonly<Record<string, ResourceConfig>>): Map<string, ResourceModel> {
  return new Map([...models].map(([name, model]) => {
    const declared = Object.entries(resources[name]?.relations ?? {})
    if (declared.length === 0) return [name, model]
    const relations = new Map(declared.map(([relation, config]) => [relation, relationModel(model, relation, config, models)]))
    return [name, Object.freeze({ ...model, relations })]
  }))
}

/**
 * The relations again, on the models introspection made: their fields are new objects (with what
 * the database says of each column), and a relation holds the fields of the models it joins.
 */
export function relinkRelations (models: ReadonlyMap<string, ResourceModel>): Map<string, ResourceModel> {
  const fieldOf = (resource: string, name: string) => models.get(resource)!.fields.get(name)!
  return new Map([...models].map(([name, model]) => {
    if (model.relations.size === 0) return [name, model]
    const relations = new Map([...model.relations].map(([relation, r]): [string, RelationModel] => [relation, r.kind === 'one'
      ? Object.freeze({ ...r, field: fieldOf(name, r.field.name) })
      : Object.freeze({ ...r, by: fieldOf(r.target, r.by.name), orderBy: Object.freeze(r.orderBy.map((o) => ({ field: fieldOf(r.target, o.field.name), direction: o.direction }))) })]))
    return [name, Object.freeze({ ...model, relations })]
  }))
}
