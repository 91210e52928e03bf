// The session's active organization as a token carries it (docs/organizations.md, "Tokens"): its
// id and the member's organization role, read when the token is made, so a session whose user has
// left the organization (or whose organization is gone) gets a token without one.
import { sql } from '../sql/sql.js'
import { rows, type Queryable } from '../db/query.js'
import type { AuthTables } from './store/migrate.js'
import type { OrganizationClaim } from './tokens.js'

export async function activeOrganization (db: Queryable, tables: AuthTables, sessionId: string): Promise<OrganizationClaim | undefined> {
  const [found] = await rows<OrganizationClaim>(db, sql`SELECT m.organization_id AS id, m.role
    FROM ${tables.session} s JOIN ${tables.member} m ON m.organization_id = s.active_organization_id AND m.user_id = s.user_id
    WHERE s.id = ${sessionId}`)
  return found
}
