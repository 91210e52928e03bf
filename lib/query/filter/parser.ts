// Tokens → filter syntax tree, one function per grammar rule (AIP-160, plus `now() ± duration`).
// Note AIP-160's precedence: OR binds tighter than AND, and adjacent terms are ANDed.
import { QuerySyntaxError, cover, type Span } from '../span.js'
import type { Token, TokenKind } from './tokens.js'
import type { Comparator, FilterNode, LiteralValue, Value } from './ast.js'
import { lex } from './lexer.js'

export const MAX_DEPTH = 64

const COMPARATORS = new Set<TokenKind>(['=', '!=', '<', '<=', '>', '>=', ':'])

class Parser {
  #i = 0
  #depth = 0
  constructor (private readonly tokens: readonly Token[]) {}

  get #peek (): Token { return this.tokens[this.#i]! }
  #next (): Token { return this.tokens[this.#i++]! }
  #at (kind: TokenKind): boolean { return this.#peek.kind === kind }

  #fail (code: string, message: string, hint: string | undefined, at: Span): never {
    throw new QuerySyntaxError({ code, message, hint, span: at })
  }

  #expect (kind: TokenKind, message: string, hint?: string): Token {
    if (!this.#at(kind)) this.#fail('syntax', message, hint, this.#peek.span)
    return this.#next()
  }

  // filter = [ expression ] EOF
  filter (): FilterNode | undefined {
    if (this.#at('eof')) return undefined
    const node = this.expression()
    if (!this.#at('eof')) {
      const t = this.#peek
      this.#fail('syntax', t.kind === ')' ? 'Unmatched closing parenthesis.' : 'Unexpected token.', t.kind === ')' ? 'Remove it or add the matching (.' : undefined, t.span)
    }
    return node
  }

  // expression = sequence { "AND" sequence }
  expression (): FilterNode {
    const children = [this.sequence()]
    while (this.#at('and')) {
      this.#next()
      if (this.#at('eof') || this.#at(')')) this.#fail('syntax', 'AND needs a condition after it.', undefined, this.#peek.span)
      children.push(this.sequence())
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children, span: cover(children[0]!.span, children.at(-1)!.span) }
  }

  // sequence = factor { factor }   (adjacent factors are ANDed)
  sequence (): FilterNode {
    const children = [this.factor()]
    while (!this.#at('eof') && !this.#at(')') && !this.#at('and') && !this.#at(',')) {
      if (this.#at('or')) this.#fail('syntax', 'OR needs a condition before it.', undefined, this.#peek.span)
      children.push(this.factor())
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children, span: cover(children[0]!.span, children.at(-1)!.span) }
  }

  // factor = term { "OR" term }
  factor (): FilterNode {
    const children = [this.term()]
    while (this.#at('or')) {
      this.#next()
      if (this.#at('eof') || this.#at(')')) this.#fail('syntax', 'OR needs a condition after it.', undefined, this.#peek.span)
      children.push(this.term())
    }
    return children.length === 1 ? children[0]! : { kind: 'or', children, span: cover(children[0]!.span, children.at(-1)!.span) }
  }

  // term = [ "NOT" | "-" ] simple
  term (): FilterNode {
    if (this.#at('not') || this.#at('-')) {
      const negation = this.#next()
      if (this.#at('eof') || this.#at(')')) this.#fail('syntax', 'NOT needs a condition after it.', undefined, negation.span)
      const child = this.simple()
      return { kind: 'not', child, span: cover(negation.span, child.span) }
    }
    return this.simple()
  }

  // simple = restriction | "(" expression ")"
  simple (): FilterNode {
    if (this.#at('(')) {
      const open = this.#next()
      // Depth counts parentheses: 64 nested pairs parse, the 65th is refused before recursing.
      if (++this.#depth > MAX_DEPTH) this.#fail('too-deep', `The filter nests deeper than ${MAX_DEPTH} levels.`, 'Flatten the parentheses.', open.span)
      if (this.#at(')')) this.#fail('syntax', 'Empty parentheses.', 'Put a condition inside, or remove them.', cover(open.span, this.#peek.span))
      const inner = this.expression()
      if (!this.#at(')')) this.#fail('syntax', 'A parenthesis is not closed.', 'Add the matching ).', open.span)
      this.#next()
      this.#depth--
      return inner
    }
    return this.restriction()
  }

  // restriction = comparable [ comparator arg ]
  // comparable  = call | value
  restriction (): FilterNode {
    const t = this.#peek
    if (t.kind === 'text' && this.tokens[this.#i + 1]?.kind === '(') {
      const call = this.call()
      if (COMPARATORS.has(this.#peek.kind)) this.#fail('syntax', 'A function cannot stand left of a comparison.', 'Put the field on the left: placed_at > now() - 7d.', this.#peek.span)
      return call
    }
    if (t.kind !== 'text' && t.kind !== 'string') {
      this.#fail('syntax', t.kind === 'eof' ? 'The filter ends where a condition was expected.' : 'Expected a field, a value or a function.', undefined, t.span)
    }
    this.#next()
    const value: LiteralValue = { kind: 'literal', quoted: t.kind === 'string', text: t.text, span: t.span }
    if (!COMPARATORS.has(this.#peek.kind)) return { kind: 'term', value, span: t.span }
    if (t.kind === 'string') this.#fail('syntax', 'A field name cannot be quoted.', 'Write the field name without quotes.', t.span)
    const op = this.#next().kind as Comparator
    const arg = this.arg()
    return { kind: 'compare', field: { text: t.text, span: t.span }, op, value: arg, span: cover(t.span, arg.span) }
  }

  // call = NAME "(" [ arg { "," arg } ] ")"
  call (): FilterNode & { kind: 'call' } {
    const name = this.#next()
    this.#next()
    const args: Value[] = []
    if (!this.#at(')')) {
      args.push(this.arg())
      while (this.#at(',')) {
        this.#next()
        args.push(this.arg())
      }
    }
    const close = this.#expect(')', 'A function call is not closed.', 'Separate arguments with commas and end with ).')
    return { kind: 'call', name: { text: name.text, span: name.span }, args, span: cover(name.span, close.span) }
  }

  // arg = value | "now" "(" ")" [ ("+" | "-") DURATION ]
  arg (): Value {
    const t = this.#peek
    if (t.kind === 'text' && t.text === 'now' && this.tokens[this.#i + 1]?.kind === '(') {
      this.#next()
      this.#next()
      const close = this.#expect(')', 'now() takes no arguments.')
      let offset: { sign: 1 | -1, text: string, span: Span } | undefined
      if ((this.#at('+') || this.#at('-')) && this.tokens[this.#i + 1]?.kind === 'text') {
        const sign = this.#next().kind === '+' ? 1 : -1
        const duration = this.#next()
        offset = { sign, text: duration.text, span: duration.span }
      } else if (this.#at('text') && this.#peek.text.startsWith('-')) {
        const duration = this.#next()
        offset = { sign: -1, text: duration.text.slice(1), span: duration.span }
      }
      return { kind: 'now', offset, span: cover(t.span, offset?.span ?? close.span) }
    }
    if (t.kind === 'text' && this.tokens[this.#i + 1]?.kind === '(') {
      this.#fail('unknown-function', 'Only now() can stand as a value.', 'Compare with a literal, or use now() - 7d.', t.span)
    }
    if (t.kind !== 'text' && t.kind !== 'string') this.#fail('syntax', 'Expected a value.', 'Quote text with spaces: "some text".', t.span)
    this.#next()
    return { kind: 'literal', quoted: t.kind === 'string', text: t.text, span: t.span }
  }
}

export function parseFilter (text: string): FilterNode | undefined {
  return new Parser(lex(text)).filter()
}
