import type { UserSummary } from '../auth/users.js'

export function formatUserTable (users: readonly UserSummary[]): string {
  if (users.length === 0) return 'no users'
  const header = ['EMAIL', 'ROLE', 'BANNED', 'CREATED', 'ID']
  const rows = users.map((u) => [u.email, u.role, u.banned ? 'yes' : 'no', u.createdAt, u.id])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')
}
