// CHECK constraints as PostgreSQL writes them back (pg_get_constraintdef), read into the facts a
// field option can state: a column's allowed values, its lower and upper bounds. PostgreSQL
// normalises what was written (`IN (...)` comes back as `= ANY (ARRAY[...])`, `BETWEEN` as two
// comparisons joined by AND), so a few shapes cover them all. Anything else is `understood: false`
// and stays a comment: a fact is only ever drawn from a shape read in full, never guessed.

export type CheckFact =
  | { readonly kind: 'enum', readonly column: string, readonly values: ReadonlyArray<string | number>, readonly rounded?: true }
  | { readonly kind: 'minimum' | 'maximum', readonly column: string, readonly value: number, readonly exclusive: boolean, readonly rounded?: true }

export interface CheckReading {
  readonly facts: readonly CheckFact[]
  /** Every conjunct became a fact. */
  readonly understood: boolean
}

interface Token { readonly t: 'str' | 'num' | 'ident' | 'qident' | 'op', readonly v: string }

const PUNCT = ['::', '(', ')', '[', ']', ',', '.']

function tokenize (text: string): Token[] | undefined {
  const out: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (/\s/.test(c)) { i++; continue }
    if (c === '\'' || c === '"') {
      let value = ''
      let j = i + 1
      for (;;) {
        if (j >= text.length) return undefined
        if (text[j] === c) {
          if (text[j + 1] === c) { value += c; j += 2; continue }
          break
        }
        value += text[j]
        j++
      }
      out.push({ t: c === '\'' ? 'str' : 'qident', v: value })
      i = j + 1
      continue
    }
    const number = /^\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/.exec(text.slice(i))
    if (number !== null) { out.push({ t: 'num', v: number[0] }); i += number[0].length; continue }
    const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(text.slice(i))
    if (word !== null) {
      // E'...' and other prefixed strings are read by no shape here.
      if (text[i + word[0].length] === '\'') return undefined
      out.push({ t: 'ident', v: word[0] }); i += word[0].length; continue
    }
    // Operators as PostgreSQL lexes them (longest run of operator characters): `~`, `||`, `>=` alike.
    const operator = /^[-+*/<>=~!@#%^&|`?]+/.exec(text.slice(i))?.[0]
    const punct = operator ?? PUNCT.find((p) => text.startsWith(p, i))
    if (punct === undefined) return undefined
    out.push({ t: 'op', v: punct })
    i += punct.length
  }
  return out
}

const isOp = (token: Token | undefined, v: string): boolean => token?.t === 'op' && token.v === v
const isWord = (token: Token | undefined, v: string): boolean => token?.t === 'ident' && token.v.toUpperCase() === v

/** The index of the `)` closing the `(` at `open`. */
function closing (tokens: readonly Token[], open: number): number {
  let depth = 0
  for (let i = open; i < tokens.length; i++) {
    if (isOp(tokens[i], '(') || isOp(tokens[i], '[')) depth++
    if (isOp(tokens[i], ')') || isOp(tokens[i], ']')) depth--
    if (depth === 0) return i
  }
  return -1
}

function unwrap (tokens: readonly Token[]): readonly Token[] {
  let slice = tokens
  while (slice.length > 1 && isOp(slice[0], '(') && closing(slice, 0) === slice.length - 1) slice = slice.slice(1, -1)
  return slice
}

/** Top-level tokens (outside brackets) and their positions. */
function topLevel (tokens: readonly Token[]): Array<[Token, number]> {
  const out: Array<[Token, number]> = []
  let depth = 0
  tokens.forEach((token, i) => {
    if (isOp(token, '(') || isOp(token, '[')) depth++
    else if (isOp(token, ')') || isOp(token, ']')) depth--
    else if (depth === 0) out.push([token, i])
  })
  return out
}

const NUMERIC_CASTS = new Set(['integer', 'bigint', 'smallint', 'numeric', 'real', 'double precision', 'int', 'int2', 'int4', 'int8', 'float4', 'float8'])

const ROUNDING_CASTS = new Set(['integer', 'bigint', 'smallint', 'int', 'int2', 'int4', 'int8'])

type Operand = { kind: 'column', name: string, rounded?: true } | { kind: 'value', value: string | number } | { kind: 'array', values: Array<string | number> }

/** A cursor over one operand: `x`, `'a'::text`, `(x)::text`, `'-1'::integer`, `(ARRAY[...])::text[]`. */
class OperandReader {
  i = 0
  constructor (readonly tokens: readonly Token[]) {}

  read (): Operand | undefined {
    const operand = this.primary()
    if (operand === undefined) return undefined
    let cast: string | undefined
    while (isOp(this.tokens[this.i], '::')) {
      this.i++
      cast = this.typeName()
      if (cast === undefined) return undefined
    }
    // A column cast to a whole number is rounded first, unless it is one (a domain over integer is
    // cast to it): whether the fact holds of the column is for its field type to say.
    if (cast !== undefined && operand.kind === 'column' && ROUNDING_CASTS.has(cast)) return { ...operand, rounded: true }
    if (cast !== undefined && operand.kind === 'value' && typeof operand.value === 'string' && NUMERIC_CASTS.has(cast)) {
      const value = Number(operand.value)
      return /^-?\d+(\.\d+)?$/.test(operand.value.trim()) && Number.isFinite(value) ? { kind: 'value', value } : undefined
    }
    return operand
  }

  private typeName (): string | undefined {
    const words: string[] = []
    while (this.tokens[this.i]?.t === 'ident' || this.tokens[this.i]?.t === 'qident' || (isOp(this.tokens[this.i], '.') && words.length > 0)) {
      const token = this.tokens[this.i]!
      words.push(token.v)
      this.i++
    }
    if (words.length === 0) return undefined
    if (isOp(this.tokens[this.i], '(')) {
      const end = closing(this.tokens, this.i)
      if (end < 0) return undefined
      this.i = end + 1
    }
    while (isOp(this.tokens[this.i], '[') && isOp(this.tokens[this.i + 1], ']')) this.i += 2
    return words.join(' ').replace(/ \. /g, '.').toLowerCase()
  }

  private primary (): Operand | undefined {
    const token = this.tokens[this.i]
    if (token === undefined) return undefined
    if (isOp(token, '(')) {
      const end = closing(this.tokens, this.i)
      if (end < 0) return undefined
      const inner = new OperandReader(this.tokens.slice(this.i + 1, end))
      const operand = inner.read()
      if (operand === undefined || inner.i !== end - this.i - 1) return undefined
      this.i = end + 1
      return operand
    }
    if (isWord(token, 'ARRAY') && isOp(this.tokens[this.i + 1], '[')) {
      const end = closing(this.tokens, this.i + 1)
      if (end < 0) return undefined
      const values: Array<string | number> = []
      let start = this.i + 2
      for (const [t, at] of [...topLevel(this.tokens.slice(start, end)).map(([t, at]) => [t, at + start] as [Token, number]), [{ t: 'op', v: ',' } as Token, end] as [Token, number]]) {
        if (!isOp(t, ',')) continue
        const element = new OperandReader(this.tokens.slice(start, at))
        const value = element.read()
        if (value?.kind !== 'value' || element.i !== at - start) return undefined
        values.push(value.value)
        start = at + 1
      }
      this.i = end + 1
      return { kind: 'array', values }
    }
    if (token.t === 'str') { this.i++; return { kind: 'value', value: token.v } }
    if (token.t === 'num') { this.i++; return { kind: 'value', value: Number(token.v) } }
    if (isOp(token, '-') && this.tokens[this.i + 1]?.t === 'num') { this.i += 2; return { kind: 'value', value: -Number(this.tokens[this.i - 1]!.v) } }
    if (token.t === 'qident' || (token.t === 'ident' && !['ARRAY', 'ANY', 'AND', 'OR', 'NOT', 'NULL', 'TRUE', 'FALSE'].includes(token.v.toUpperCase()))) {
      // A function call is not a column.
      if (isOp(this.tokens[this.i + 1], '(') || isOp(this.tokens[this.i + 1], '.')) return undefined
      this.i++
      return { kind: 'column', name: token.t === 'ident' ? token.v.toLowerCase() : token.v }
    }
    return undefined
  }
}

function operand (tokens: readonly Token[]): Operand | undefined {
  const reader = new OperandReader(tokens)
  const read = reader.read()
  return read !== undefined && reader.i === tokens.length ? read : undefined
}

const FLIPPED: Record<string, string> = { '>=': '<=', '<=': '>=', '>': '<', '<': '>' }

/** One comparison: `col >= 0`, `0 <= col`, `col = ANY (ARRAY[...])`; undefined for anything else. */
function comparison (tokens: readonly Token[]): CheckFact | undefined {
  const ops = topLevel(tokens).filter(([t]) => t.t === 'op' && ['=', '>=', '<=', '>', '<', '<>', '!='].includes(t.v))
  if (ops.length !== 1) return undefined
  const [[op, at]] = ops as [[Token, number]]
  const left = operand(tokens.slice(0, at))
  if (left?.kind !== 'column') {
    const right = operand(tokens.slice(at + 1))
    if (left?.kind !== 'value' || right?.kind !== 'column' || FLIPPED[op.v] === undefined) return undefined
    return rounding(right, bound(right.name, FLIPPED[op.v]!, left.value))
  }
  const rest = tokens.slice(at + 1)
  if (op.v === '=' && isWord(rest[0], 'ANY') && isOp(rest[1], '(') && closing(rest, 1) === rest.length - 1) {
    const list = operand(rest.slice(2, -1))
    return list?.kind === 'array' && list.values.length > 0 ? rounding(left, { kind: 'enum', column: left.name, values: list.values }) : undefined
  }
  const right = operand(rest)
  if (right?.kind !== 'value') return undefined
  return rounding(left, bound(left.name, op.v, right.value))
}

function rounding (column: Operand & { kind: 'column' }, fact: CheckFact | undefined): CheckFact | undefined {
  return fact === undefined || column.rounded !== true ? fact : { ...fact, rounded: true }
}

function bound (column: string, op: string, value: string | number): CheckFact | undefined {
  if (typeof value !== 'number') return undefined
  if (op === '>=' || op === '>') return { kind: 'minimum', column, value, exclusive: op === '>' }
  if (op === '<=' || op === '<') return { kind: 'maximum', column, value, exclusive: op === '<' }
  return undefined
}

/** The conjuncts of an AND chain, brackets removed; one slice when the top holds OR or NOT. */
function conjuncts (tokens: readonly Token[]): Array<readonly Token[]> {
  const slice = unwrap(tokens)
  const top = topLevel(slice)
  if (top.some(([t]) => isWord(t, 'OR') || isWord(t, 'NOT'))) return [slice]
  const ands = top.filter(([t]) => isWord(t, 'AND')).map(([, at]) => at)
  if (ands.length === 0) return [slice]
  const parts: Array<readonly Token[]> = []
  let start = 0
  for (const at of [...ands, slice.length]) {
    parts.push(...conjuncts(slice.slice(start, at)))
    start = at + 1
  }
  return parts
}

/** The facts of one constraint definition (`CHECK (...)`, maybe `NOT VALID`); a domain's column is `value`. */
export function readCheck (definition: string): CheckReading {
  const tokens = tokenize(definition)
  if (tokens === undefined || !isWord(tokens[0], 'CHECK')) return { facts: [], understood: false }
  let body = tokens.slice(1)
  if (isWord(body.at(-2), 'NOT') && isWord(body.at(-1), 'VALID')) body = body.slice(0, -2)
  if (!isOp(body[0], '(') || closing(body, 0) !== body.length - 1) return { facts: [], understood: false }
  const facts: CheckFact[] = []
  let understood = true
  for (const part of conjuncts(body)) {
    const fact = comparison(part)
    if (fact === undefined) understood = false
    else facts.push(fact)
  }
  return { facts, understood }
}
