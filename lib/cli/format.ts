import type { UserSummary } from '../auth/users.js'
import type { OrganizationSummary } from '../auth/organizations.js'

function table (header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')
}

export function formatUserTable (users: readonly UserSummary[]): string {
  if (users.length === 0) return 'no users'
  return table(['EMAIL', 'ROLE', 'BANNED', 'CREATED', 'ID'], users.map((u) => [u.email, u.role, u.banned ? 'yes' : 'no', u.createdAt, u.id]))
}

export function formatOrganizationTable (organizations: readonly OrganizationSummary[]): string {
  if (organizations.length === 0) return 'no organizations'
  return table(['SLUG', 'NAME', 'MEMBERS', 'CREATED', 'ID'], organizations.map((o) => [o.slug, o.name, String(o.members), o.createdAt, o.id]))
}
