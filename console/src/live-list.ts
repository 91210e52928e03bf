// A list page kept up to date by the change feed (change.ts), as pure functions of the page and a
// change. The page's order is never changed under the reader's eyes: a record changed in place is
// replaced where it stands, one that left the list goes, and one new to it is only counted (the
// list says "2 new records" and reads again when asked). Every rule holds for a change seen twice:
// the feed starts before the list is read, so a change the list already shows may still come.
import type { Change, Item } from './change.js'

export interface LivePage {
  readonly items: readonly Item[]
  /** The keys of records new to the list since it was read, not on the page. */
  readonly fresh: ReadonlySet<string>
}

export interface Applied {
  readonly page: LivePage
  /**
   * A record on the page deleted where the list shows deleted records too: the feed tells a soft
   * delete as deleted, and only the record read again can say whether it is still shown (marked).
   */
  readonly reread?: string
}

function without (keys: ReadonlySet<string>, key: string): ReadonlySet<string> {
  if (!keys.has(key)) return keys
  const rest = new Set(keys)
  rest.delete(key)
  return rest
}

/** `page` after `change`; `keyOf` gives an item's key as its URL writes it (route.ts keyOf). */
export function applyChange (page: LivePage, change: Change, keyOf: (item: Item) => string, showDeleted: boolean): Applied {
  const at = page.items.findIndex((item) => keyOf(item) === change.key)
  switch (change.type) {
    case 'created':
    case 'entered':
    case 'updated':
      if (at >= 0) return { page: { items: page.items.map((item, i) => i === at ? change.record : item), fresh: page.fresh } }
      // An update of a record off the page is another page's business.
      if (change.type === 'updated' || page.fresh.has(change.key)) return { page }
      return { page: { items: page.items, fresh: new Set([...page.fresh, change.key]) } }
    case 'deleted':
    case 'left':
      if (at >= 0 && change.type === 'deleted' && showDeleted) return { page, reread: change.key }
      if (at < 0 && !page.fresh.has(change.key)) return { page }
      return { page: { items: page.items.filter((_, i) => i !== at), fresh: without(page.fresh, change.key) } }
  }
}

/** "1 new record", "2 new records": the notice above the list. */
export function freshLabel (count: number): string {
  return `${count} new record${count === 1 ? '' : 's'}`
}
