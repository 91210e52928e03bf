// A to-many embed's `next_page_token` sent to the child's own list (`GET /order_lines?page_token=`,
// or :search and :seek with it): the list is then the following children of that parent, in the
// relation's order, under the caller's own read access on the child. The token carries the parent
// (encrypted and authenticated, so it cannot be forged); the relation must still be one the
// caller may follow, else the token is refused as any token this server did not issue. It is
// taken alone: a filter, an order_by or show_deleted=true with it is refused, as they would change
// which children it continues; page_size, fields and count apply as on any list.
import type { AccessPlan } from '../access/types.js'
import { canFollow } from '../access/relations.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import type { OrderTerm } from '../query/order-by.js'
import { notIssued, type RelationPage } from '../query/page-token.js'
import { invalidParameter, parseShowDeleted, textParameter } from '../query/params.js'
import { relationOrder } from './embed.js'
import type { AccessOf } from './filter.js'
import { relationTokenBinding } from './read.js'

/** What continues a parent's children: their link as the filter, the relation's order, and the tokens' binding. */
export interface ChildrenPage {
  readonly filter: CheckedFilter
  readonly order: readonly OrderTerm[]
  readonly binding: string
}

/** The parameters of a list that would choose other children (lib/plan/list.ts PageInput's). */
interface Choosing {
  readonly filter?: unknown
  readonly order_by?: unknown
  readonly show_deleted?: unknown
}

export function childrenPage (parent: RelationPage, input: Choosing, access: AccessPlan, accessOf: AccessOf): ChildrenPage {
  if (textParameter('filter', input.filter) !== '' || textParameter('order_by', input.order_by) !== '' || parseShowDeleted(access.model, input.show_deleted)) {
    invalidParameter('page_token', 'This page_token continues the children of a to-many embed, in its relation\'s order: send it without filter, order_by or show_deleted (page_size, fields and count apply as usual).')
  }
  // Only a resource the child references can be its parent; asking for any other plan would be a
  // 404 for a resource this app may no longer have.
  if (!access.model.fieldList.some((f) => f.references === parent.resource)) return notIssued()
  const parentAccess = accessOf(parent.resource)
  const relation = parentAccess.model.relations.get(parent.relation)
  if (relation?.kind !== 'many' || relation.target !== access.resource || !parentAccess.operations.read.allowed || !canFollow(parentAccess, relation, access)) return notIssued()
  const order = relationOrder(relation, access.model)
  return {
    filter: { kind: 'compare', field: access.model.fields.get(relation.by.name)!, op: '=', value: { kind: 'value', value: parent.key } },
    order,
    binding: relationTokenBinding(access.model.name, parent, order),
  }
}
