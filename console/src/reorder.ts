// A move on the board as batch operations: the cards keep the order field's values they had
// between them, handed out again in the new order, so a move writes only the cards between its two
// ends and nothing outside the board changes place. Where those values cannot say an order
// (equal, missing or not integers), the board is numbered 1, 2, 3, ... instead.
export type Row = Readonly<Record<string, unknown>>

/** `rows` with the one at `from` taken out and put in at `to`. */
export function moved<T> (rows: readonly T[], from: number, to: number): T[] {
  const next = [...rows]
  const [row] = next.splice(from, 1)
  if (row !== undefined) next.splice(to, 0, row)
  return next
}

function integerOf (value: unknown): number | undefined {
  const number = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value
  return typeof number === 'number' && Number.isSafeInteger(number) ? number : undefined
}

/** The values the order field takes, board position by position. */
export function positionsOf (rows: readonly Row[], field: string): unknown[] {
  const values = rows.map((row) => integerOf(row[field]))
  const increasing = values.every((value, i) => value !== undefined && (i === 0 || value > values[i - 1]!))
  // bigint fields come as strings, and go back as strings.
  const text = typeof rows[0]?.[field] === 'string'
  return increasing ? rows.map((row) => row[field]) : rows.map((_, i) => text ? String(i + 1) : i + 1)
}

export interface UpdateOp {
  readonly op: 'update'
  readonly resource: string
  readonly key: unknown
  readonly etag: string
  readonly data: Readonly<Record<string, unknown>>
}

/** A record's key for a batch operation: its one value, or its parts in key order. */
export function batchKey (row: Row, key: readonly string[]): unknown {
  return key.length === 1 ? row[key[0]!] : key.map((field) => row[field])
}

/**
 * The updates that give `next` (the board after the move) the positions `before` had, one per card
 * whose value changes, each guarded by the ETag it was read with.
 */
export function reorderOps (resource: string, key: readonly string[], field: string, before: readonly Row[], next: readonly Row[]): { ops: UpdateOp[], rows: Row[] } {
  const positions = positionsOf(before, field)
  const ops: UpdateOp[] = []
  const rows = next.map((row, i) => {
    const value = positions[i]
    if (String(row[field]) === String(value)) return row
    ops.push({ op: 'update', resource, key: batchKey(row, key), etag: String(row.etag), data: { [field]: value } })
    return { ...row, [field]: value }
  })
  return { ops, rows }
}
