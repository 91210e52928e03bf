// Tokens → filter syntax tree, one method per grammar rule. The grammar is AIP-160's EBNF with
// tablegate's choices (docs/queries.md, "Differences from AIP-160"); tokens are the lexer's:
//
//   filter      = [ expression ] EOF ;
//   expression  = sequence { "AND" sequence } ;
//   sequence    = factor { factor } ;                  (* adjacent factors are ANDed *)
//   factor      = term { "OR" term } ;                 (* so OR binds tighter than AND *)
//   term        = [ "NOT" | "-" ] simple ;
//   simple      = composite | restriction ;
//   composite   = "(" expression ")" ;
//   restriction = call | comparable [ comparator comparand ] ;
//   comparable  = member | TEXT | STRING ;             (* alone, TEXT or STRING is a search term *)
//   member      = NAME "." key { "." key } ;           (* no space around the dots *)
//   key         = TEXT | STRING ;
//   call        = NAME "(" [ arg { "," arg } ] ")" ;   (* no space between NAME and "(" *)
//   comparator  = "=" | "!=" | "<" | "<=" | ">" | ">=" | ":" ;
//   comparand   = arg | "(" expression ")" ;           (* every restriction inside is one arg *)
//   arg         = TEXT | STRING | now ;
//   now         = "now" "(" ")" [ ( "+" | "-" ) DURATION ] ;
//
// NAME is a TEXT starting with a letter or `_`. A comparand in parentheses distributes its
// comparison: `a = (x OR y)` is `a = x OR a = y`, `a > (-2.4)` is `a > -2.4`. Depth counts
// parentheses of both kinds.
import { QuerySyntaxError, cover, type Span } from '../span.js'
import type { Token, TokenKind } from './tokens.js'
import type { Comparator, FilterNode, Name, Value } from './ast.js'
import { lex } from './lexer.js'
import { isPath, pathOf, type PathPiece } from './member.js'

export const MAX_DEPTH = 64

const COMPARATORS = new Set<TokenKind>(['=', '!=', '<', '<=', '>', '>=', ':'])

/** The comparison a parenthesised comparand distributes over the values inside it. */
interface Comparison { readonly field: Name, readonly path: readonly Name[], readonly op: Comparator }

class Parser {
  #i = 0
  #depth = 0
  #comparison: Comparison | undefined
  constructor (private readonly tokens: readonly Token[]) {}

  get #peek (): Token { return this.tokens[this.#i]! }
  #next (): Token { return this.tokens[this.#i++]! }
  #at (kind: TokenKind): boolean { return this.#peek.kind === kind }
  /** The token after the current one, when nothing separates them (`name(`, `meta."key"`). */
  #glued (kind: TokenKind, offset = 1): boolean {
    const token = this.tokens[this.#i + offset]
    return token?.kind === kind && token.span.start === this.tokens[this.#i + offset - 1]!.span.end
  }

  #fail (code: string, message: string, hint: string | undefined, at: Span): never {
    throw new QuerySyntaxError({ code, message, hint, span: at })
  }

  #expect (kind: TokenKind, message: string, hint?: string): Token {
    if (!this.#at(kind)) this.#fail('syntax', message, hint, this.#peek.span)
    return this.#next()
  }

  #unexpected (t: Token): never {
    if (t.kind === ')') this.#fail('syntax', 'Unmatched closing parenthesis.', 'Remove it or add the matching (.', t.span)
    if (t.kind === ',') {
      this.#fail('syntax', 'A comma outside a function call.', this.#comparison !== undefined
        ? 'Separate values with OR: status = (draft OR open).'
        : 'A call has no space before its parenthesis: in(status, draft, open).', t.span)
    }
    this.#fail('syntax', 'Unexpected token.', undefined, t.span)
  }

  filter (): FilterNode | undefined {
    if (this.#at('eof')) return undefined
    const node = this.expression()
    if (!this.#at('eof')) this.#unexpected(this.#peek)
    return node
  }

  expression (): FilterNode {
    const children = [this.sequence()]
    while (this.#at('and')) {
      this.#next()
      if (this.#at('eof') || this.#at(')')) this.#fail('syntax', 'AND needs a condition after it.', undefined, this.#peek.span)
      children.push(this.sequence())
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children, span: cover(children[0]!.span, children.at(-1)!.span) }
  }

  sequence (): FilterNode {
    const children = [this.factor()]
    while (!this.#at('eof') && !this.#at(')') && !this.#at('and') && !this.#at(',')) {
      if (this.#at('or')) this.#fail('syntax', 'OR needs a condition before it.', undefined, this.#peek.span)
      children.push(this.factor())
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children, span: cover(children[0]!.span, children.at(-1)!.span) }
  }

  factor (): FilterNode {
    const children = [this.term()]
    while (this.#at('or')) {
      this.#next()
      if (this.#at('eof') || this.#at(')')) this.#fail('syntax', 'OR needs a condition after it.', undefined, this.#peek.span)
      children.push(this.term())
    }
    return children.length === 1 ? children[0]! : { kind: 'or', children, span: cover(children[0]!.span, children.at(-1)!.span) }
  }

  term (): FilterNode {
    if (this.#at('not') || this.#at('-')) {
      const negation = this.#next()
      if (this.#at('eof') || this.#at(')')) this.#fail('syntax', 'NOT needs a condition after it.', undefined, negation.span)
      const child = this.simple()
      return { kind: 'not', child, span: cover(negation.span, child.span) }
    }
    return this.simple()
  }

  simple (): FilterNode {
    if (!this.#at('(')) return this.#comparison === undefined ? this.restriction() : this.#distributed(this.#comparison)
    const open = this.#next()
    // Depth counts parentheses: 64 nested pairs parse, the 65th is refused before recursing.
    if (++this.#depth > MAX_DEPTH) this.#fail('too-deep', `The filter nests deeper than ${MAX_DEPTH} levels.`, 'Flatten the parentheses.', open.span)
    if (this.#at(')')) this.#fail('syntax', 'Empty parentheses.', 'Put a condition inside, or remove them.', cover(open.span, this.#peek.span))
    const inner = this.expression()
    if (this.#at(',')) this.#unexpected(this.#peek)
    if (!this.#at(')')) this.#fail('syntax', 'A parenthesis is not closed.', 'Add the matching ).', open.span)
    this.#next()
    this.#depth--
    return inner
  }

  restriction (): FilterNode {
    const t = this.#peek
    if (t.kind === 'text' && this.#glued('(')) {
      const call = this.call()
      if (COMPARATORS.has(this.#peek.kind)) this.#fail('syntax', 'A function cannot stand left of a comparison.', 'Put the field on the left: placed_at > now() - 7d.', this.#peek.span)
      return call
    }
    if (t.kind !== 'text' && t.kind !== 'string') {
      this.#fail('syntax', t.kind === 'eof' ? 'The filter ends where a condition was expected.' : 'Expected a field, a value or a function.', undefined, t.span)
    }
    const member = t.kind === 'text' && isPath(t.text) ? this.member() : undefined
    if (member === undefined) this.#next()
    if (!COMPARATORS.has(this.#peek.kind)) {
      if (member !== undefined) return { kind: 'member', ...member, span: cover(t.span, member.path.at(-1)?.span ?? t.span) }
      return { kind: 'term', value: { kind: 'literal', quoted: t.kind === 'string', text: t.text, span: t.span }, span: t.span }
    }
    if (t.kind === 'string') this.#fail('syntax', 'A field name cannot be quoted.', 'Write the field name without quotes.', t.span)
    const comparison: Comparison = { field: member?.field ?? { text: t.text, span: t.span }, path: member?.path ?? [], op: this.#next().kind as Comparator }
    if (!this.#at('(')) return this.#compared(comparison, this.arg())
    // The values in parentheses are parsed as an expression, each restriction in it one compared value.
    this.#comparison = comparison
    const node = this.simple()
    this.#comparison = undefined
    return node
  }

  /** `field op value`, spanning both. */
  #compared ({ field, path, op }: Comparison, value: Value): FilterNode {
    return { kind: 'compare', field, path, op, value, span: cover(field.span, value.span) }
  }

  /** A restriction inside a parenthesised comparand: one value, compared as the comparand says. */
  #distributed (comparison: Comparison): FilterNode {
    const value = this.arg()
    if (COMPARATORS.has(this.#peek.kind)) {
      this.#fail('syntax', 'A comparison cannot stand inside the values of another.', 'Inside a = (x OR y) write values only.', this.#peek.span)
    }
    return this.#compared(comparison, value)
  }

  /** A path: the word, and quoted keys glued to its dots (`meta."gift card".size`). */
  member (): { field: Name, path: readonly Name[] } {
    const pieces: PathPiece[] = []
    const add = (token: Token): void => { pieces.push({ text: token.text, start: token.span.start, end: token.span.end, quoted: token.kind === 'string' }) }
    add(this.#next())
    for (;;) {
      const last = pieces.at(-1)!
      const next = this.#peek
      const glued = next.span.start === last.end
      if (glued && !last.quoted && last.text.endsWith('.') && next.kind === 'string') add(this.#next())
      else if (glued && last.quoted && next.kind === 'text' && next.text.startsWith('.')) add(this.#next())
      else break
    }
    const result = pathOf(pieces)
    if (!result.ok) throw new QuerySyntaxError(result.issue)
    return result
  }

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

  arg (): Value {
    const t = this.#peek
    if (t.kind === 'text' && this.#glued('(')) {
      if (t.text !== 'now') this.#fail('unknown-function', 'Only now() can stand as a value.', 'Compare with a literal, or use now() - 7d.', t.span)
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
    if (t.kind !== 'text' && t.kind !== 'string') this.#fail('syntax', 'Expected a value.', 'Quote text with spaces: "some text".', t.span)
    this.#next()
    return { kind: 'literal', quoted: t.kind === 'string', text: t.text, span: t.span }
  }
}

export function parseFilter (text: string): FilterNode | undefined {
  return new Parser(lex(text)).filter()
}
