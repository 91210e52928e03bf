// Filter text → tokens with spans. AND, OR and NOT are keywords only in upper case, as in AIP-160;
// a `-` directly before a word is the NOT shorthand, before a digit part of a number. String values
// keep `\\` and `\*` escaped, so a literal star stays apart from the `*` wildcard until the checker.
// An RFC 3339 timestamp is one bare word although it holds `:` (and maybe `+`), so it needs no quotes.
import { QuerySyntaxError, span } from '../span.js'
import type { Token, TokenKind } from './tokens.js'

const TEXT_STOP = new Set([' ', '\t', '\n', '\r', '(', ')', ',', '=', '!', '<', '>', ':', '"', "'", '+'])
/** A number up to its exponent's `e`: what a `+` may follow inside a bare number. */
const EXPONENT_START = /^-?(?:\d+\.?\d*|\.\d+)[eE]$/
/** An RFC 3339 date-time at a word's start; whether it is a valid one is the checker's business. */
const TIMESTAMP_WORD = /^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})/
// A Map, not an object: a word such as `constructor` or `toString` is a field, never a prototype member.
const KEYWORDS: ReadonlyMap<string, TokenKind> = new Map([['AND', 'and'], ['OR', 'or'], ['NOT', 'not']])
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\\\', '"': '"', "'": "'", '*': '\\*' }

function isDigit (c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9'
}

export function lex (input: string): Token[] {
  // PostgreSQL text cannot hold NUL: refused here, it can never reach a bound value.
  const nul = input.indexOf('\0')
  if (nul >= 0) throw new QuerySyntaxError({ code: 'unexpected-character', message: 'Unexpected character.', hint: 'A filter cannot contain the NUL character.', span: span(nul, nul + 1) })
  const tokens: Token[] = []
  let i = 0
  const push = (kind: TokenKind, start: number, end: number, text = input.slice(start, end)): void => {
    tokens.push({ kind, text, span: span(start, end) })
  }
  while (i < input.length) {
    const c = input[i]!
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++
      continue
    }
    const start = i
    if (c === '"' || c === "'") {
      let value = ''
      i++
      while (i < input.length && input[i] !== c) {
        if (input[i] === '\\') {
          const escaped = ESCAPES[input[i + 1] ?? '']
          if (escaped === undefined) {
            throw new QuerySyntaxError({ code: 'invalid-escape', message: 'Unknown escape sequence in a string.', hint: 'Use \\" \\\' \\\\ \\n \\t or \\* (a literal *).', span: span(i, Math.min(i + 2, input.length)) })
          }
          value += escaped
          i += 2
        } else {
          value += input[i]
          i++
        }
      }
      if (i >= input.length) {
        throw new QuerySyntaxError({ code: 'unterminated-string', message: 'A string is not closed.', hint: `Close it with ${c}.`, span: span(start, input.length) })
      }
      i++
      push('string', start, i, value)
      continue
    }
    if (c === '!' || c === '<' || c === '>') {
      if (input[i + 1] === '=') {
        i += 2
        push(c === '!' ? '!=' : c === '<' ? '<=' : '>=', start, i)
      } else if (c === '!') {
        throw new QuerySyntaxError({ code: 'unexpected-character', message: 'Unexpected character.', hint: 'Use != for "not equal", or NOT / - to negate.', span: span(i, i + 1) })
      } else {
        i++
        push(c, start, i)
      }
      continue
    }
    if (c === '(' || c === ')' || c === ',' || c === '=' || c === ':' || c === '+') {
      i++
      push(c, start, i)
      continue
    }
    if (c === '-' && !isDigit(input[i + 1]) && input[i + 1] !== '.') {
      i++
      push('-', start, i)
      continue
    }
    const timestamp = isDigit(c) ? TIMESTAMP_WORD.exec(input.slice(i, i + 200))?.[0] : undefined
    if (timestamp !== undefined && (i + timestamp.length === input.length || TEXT_STOP.has(input[i + timestamp.length]!))) {
      i += timestamp.length
      push('text', start, i)
      continue
    }
    i++
    while (i < input.length) {
      // `+` ends a bare word (`now() + 1h`) except as an exponent's sign: `1.5E+10` stays one number.
      if (input[i] === '+' && isDigit(input[i + 1]) && EXPONENT_START.test(input.slice(start, i))) {
        i++
        continue
      }
      if (TEXT_STOP.has(input[i]!)) break
      i++
    }
    const text = input.slice(start, i)
    push(KEYWORDS.get(text) ?? 'text', start, i)
  }
  push('eof', input.length, input.length, '')
  return tokens
}
