// Startup check of views, pages and the user menu against the models: an unknown resource, field,
// page or role is a startup error naming its config path, so a typo never reaches a client as a
// column that silently never shows.
import { ConfigError } from '../config/validate.js'
import type { MenuEntryConfig, PageConfig, ViewConfig, ViewsConfig } from '../config/metadata-schema.js'
import type { ResourceModel } from '../model/types.js'
import type { ResolvedConfig } from '../config/resolve.js'
import { nearest } from '../text.js'
import { sortTerms, titleFields } from './view-fields.js'

export interface ClientMetadata {
  readonly views: ViewsConfig
  readonly pages: readonly PageConfig[]
  /** Undefined when the config has none: then each caller's menu is every resource they may read. */
  readonly userMenu: readonly MenuEntryConfig[] | undefined
}

function didYouMean (word: string, candidates: Iterable<string>): string {
  const suggestion = nearest(word, candidates)
  return suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`
}

class Checker {
  constructor (private readonly models: ReadonlyMap<string, ResourceModel>, private readonly roles: readonly string[]) {}

  resource (path: string, name: string): ResourceModel {
    const model = this.models.get(name)
    if (model === undefined) throw new ConfigError(`${path}: '${name}' is not a resource${didYouMean(name, this.models.keys())}`)
    return model
  }

  field (path: string, model: ResourceModel, name: string): void {
    if (!model.fields.has(name)) throw new ConfigError(`${path}: '${name}' is not a field of ${model.name}${didYouMean(name, model.fields.keys())}`)
  }

  fields (path: string, model: ResourceModel, names: readonly string[] | undefined): void {
    names?.forEach((name, i) => { this.field(`${path}[${i}]`, model, name) })
  }

  roleList (path: string, roles: readonly string[] | undefined): void {
    roles?.forEach((role, i) => {
      if (!this.roles.includes(role)) throw new ConfigError(`${path}[${i}]: '${role}' is not a configured role (${this.roles.join(', ')})`)
    })
  }

  view (path: string, model: ResourceModel, view: ViewConfig): void {
    this.roleList(`${path}.roles`, view.roles)
    this.fields(`${path}.columns`, model, view.columns)
    this.fields(`${path}.search`, model, view.search)
    this.fields(`${path}.filters`, model, view.filters)
    view.layout?.forEach((row, i) => { this.fields(`${path}.layout[${i}]`, model, row) })
    if (view.sort !== undefined) {
      for (const term of sortTerms(view.sort)) {
        this.field(`${path}.sort`, model, term.field)
        if (term.direction !== undefined && term.direction !== 'asc' && term.direction !== 'desc') {
          throw new ConfigError(`${path}.sort: '${term.direction}' is not a direction (asc or desc)`)
        }
      }
    }
    if (view.chart !== undefined) {
      this.field(`${path}.chart.x`, model, view.chart.x)
      this.field(`${path}.chart.y`, model, view.chart.y)
    }
    if (view.title !== undefined) for (const name of titleFields(view.title)) this.field(`${path}.title`, model, name)
    if (view.nav?.recent !== undefined) this.field(`${path}.nav.recent.field`, model, view.nav.recent.field)
    if (view.reorder !== undefined) this.orderField(`${path}.reorder`, model, view.reorder)
  }

  /** A field a client renumbers by hand: the batch's updates write integers to it. */
  orderField (path: string, model: ResourceModel, name: string): void {
    this.field(path, model, name)
    const type = model.fields.get(name)!.type
    if (type !== 'integer' && type !== 'bigint') throw new ConfigError(`${path}: '${name}' is a ${type} field of ${model.name}, and a reorder field must be an integer or bigint`)
  }

  page (path: string, page: PageConfig): void {
    this.roleList(`${path}.roles`, page.roles)
    page.elements.forEach((element, i) => {
      const at = `${path}.elements[${i}]`
      if (element.resource === undefined) {
        if (element.columns !== undefined || element.action !== undefined) throw new ConfigError(`${at}: columns and action need a resource`)
        return
      }
      const model = this.resource(`${at}.resource`, element.resource)
      this.fields(`${at}.columns`, model, element.columns)
    })
  }
}

export function clientMetadata (config: ResolvedConfig): ClientMetadata {
  return { views: config.config.views ?? {}, pages: config.config.pages ?? [], userMenu: config.config.userMenu }
}

/** Throws a ConfigError naming the first reference that does not exist. */
export function checkClientMetadata (metadata: ClientMetadata, models: ReadonlyMap<string, ResourceModel>, roles: readonly string[]): void {
  const check = new Checker(models, roles)
  for (const [resource, views] of Object.entries(metadata.views)) {
    const model = check.resource(`config.views.${resource}`, resource)
    if (Array.isArray(views)) views.forEach((view, i) => { check.view(`config.views.${resource}[${i}]`, model, view) })
    else check.view(`config.views.${resource}`, model, views as ViewConfig)
  }
  const pageNames = new Set<string>()
  metadata.pages.forEach((page, i) => {
    if (pageNames.has(page.name)) throw new ConfigError(`config.pages[${i}].name: a page named '${page.name}' is already defined`)
    pageNames.add(page.name)
    check.page(`config.pages[${i}]`, page)
  })
  metadata.userMenu?.forEach((entry, i) => {
    if ('resource' in entry) check.resource(`config.userMenu[${i}].resource`, entry.resource)
    else if (!pageNames.has(entry.page)) throw new ConfigError(`config.userMenu[${i}].page: '${entry.page}' is not a page${didYouMean(entry.page, pageNames)}`)
  })
}
