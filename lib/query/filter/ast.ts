// The filter syntax tree. Every node carries its span; values are still untyped text here.
import type { Span } from '../span.js'

export type Comparator = '=' | '!=' | '<' | '<=' | '>' | '>=' | ':'

export interface Name { readonly text: string, readonly span: Span }

/** A value as written: a quoted string, or bare text (`open`, `12`, `true`, `null`, `7d`, `tea*`). */
export interface LiteralValue {
  readonly kind: 'literal'
  readonly quoted: boolean
  /** Quoted strings keep `\\` and `\*` escaped; see the lexer. */
  readonly text: string
  readonly span: Span
}

/** `now()`, optionally shifted by a duration: `now() - 7d`. */
export interface NowValue {
  readonly kind: 'now'
  readonly offset: { readonly sign: 1 | -1, readonly text: string, readonly span: Span } | undefined
  readonly span: Span
}

export type Value = LiteralValue | NowValue

export interface Call {
  readonly kind: 'call'
  readonly name: Name
  readonly args: readonly Value[]
  readonly span: Span
}

export type FilterNode =
  | { readonly kind: 'and', readonly children: readonly FilterNode[], readonly span: Span }
  | { readonly kind: 'or', readonly children: readonly FilterNode[], readonly span: Span }
  | { readonly kind: 'not', readonly child: FilterNode, readonly span: Span }
  /** `field op value`; `path` holds the keys of a traversal (`meta.color = red`: field meta, path [color]). */
  | { readonly kind: 'compare', readonly field: Name, readonly path: readonly Name[], readonly op: Comparator, readonly value: Value, readonly span: Span }
  | Call
  /** A bare word or string standing alone: a text search term. */
  | { readonly kind: 'term', readonly value: LiteralValue, readonly span: Span }
  /** A traversal standing alone, with no comparison (`meta.gift`). */
  | { readonly kind: 'member', readonly field: Name, readonly path: readonly Name[], readonly span: Span }
