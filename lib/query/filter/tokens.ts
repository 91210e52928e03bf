// Token kinds of the AIP-160 filter language (with tablegate's `now() ± duration`).
import type { Span } from '../span.js'

export type TokenKind =
  | 'text' // a bare word: field name, function name, unquoted value (`open`, `12`, `tea*`, `7d`)
  | 'string' // "..." or '...', escapes resolved
  | 'and' | 'or' | 'not'
  | '(' | ')' | ',' | '-' | '+'
  | '=' | '!=' | '<' | '<=' | '>' | '>=' | ':'
  | 'eof'

export interface Token {
  readonly kind: TokenKind
  /** The text of a `text` token, or the value of a `string` token. */
  readonly text: string
  readonly span: Span
}
